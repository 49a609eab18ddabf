import Foundation
import PassboxCore
import PassboxProtocol
import PassboxTestKit
import Testing

@testable import PassboxWeb
import PassboxWording

/// The web UI's files: no text written in them (every string comes from the en/de tables), every key and icon
/// they use exists, and the page stays under its weight. Its behaviour in a browser is Tests/Web/ui_test.py.
struct WebUIFileTests {
    static let ui = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/PassboxWeb/UI")

    static func sources(_ ext: String) throws -> [(name: String, text: String)] {
        let app = ui.appendingPathComponent("app")
        let names = try FileManager.default.contentsOfDirectory(atPath: app.path).filter { $0.hasSuffix("." + ext) }.sorted()
        return try names.map { ($0, try String(contentsOf: app.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The string literals of a script ('…', "…" and the text parts of `…`), comments left out.
    static func literals(_ script: String) -> [String] {
        var out = [String]()
        let chars = Array(script)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "/", i + 1 < chars.count, chars[i + 1] == "/" {
                while i < chars.count, chars[i] != "\n" { i += 1 }
                continue
            }
            if c == "/", i + 1 < chars.count, chars[i + 1] == "*" {
                i += 2
                while i + 1 < chars.count, !(chars[i] == "*" && chars[i + 1] == "/") { i += 1 }
                i += 2
                continue
            }
            if c == "'" || c == "\"" || c == "`" {
                var text = ""
                i += 1
                var depth = 0
                while i < chars.count, !(chars[i] == c && depth == 0) {
                    if chars[i] == "\\", i + 1 < chars.count {
                        text.append(chars[i + 1])
                        i += 2
                        continue
                    }
                    if c == "`", chars[i] == "$", i + 1 < chars.count, chars[i + 1] == "{" { depth += 1; text.append(" "); i += 2; continue }
                    if c == "`", depth > 0 {
                        if chars[i] == "}" { depth -= 1 }
                        i += 1
                        continue
                    }
                    text.append(chars[i])
                    i += 1
                }
                out.append(text)
            }
            i += 1
        }
        return out
    }

    /// Whether a literal reads as text for people: a capitalised word next to another word, a sentence's
    /// punctuation between words, or letters outside ASCII.
    static func looksLikeText(_ literal: String) -> Bool {
        if literal.range(of: #"[A-Z][a-z]+ [A-Za-z]"#, options: .regularExpression) != nil { return true }
        if literal.range(of: #"[a-z]{2,}[.,:;!?] [A-Za-z]"#, options: .regularExpression) != nil { return true }
        return literal.unicodeScalars.contains { $0.properties.isAlphabetic && !$0.isASCII }
    }

    @Test func noTextForPeopleIsWrittenInTheScripts() throws {
        let scripts = try Self.sources("js")
        #expect(scripts.count >= 8)
        for (name, text) in scripts {
            let offending = Self.literals(text).filter(Self.looksLikeText)
            #expect(offending.isEmpty, "\(name) writes text that belongs in the tables: \(offending)")
        }
        // The checker itself: it catches a sentence and lets code through.
        #expect(Self.looksLikeText("Copy password") && Self.looksLikeText("wrong password, try again") && Self.looksLikeText("Passwort löschen"))
        #expect(!Self.looksLikeText("button ghost icon-only") && !Self.looksLikeText("application/x-passbox-frame") && !Self.looksLikeText("ui.item.copy"))
    }

    @Test func thePageHasNoTextOfItsOwn() throws {
        let page = try String(contentsOf: Self.ui.appendingPathComponent("index.html"), encoding: .utf8)
        // Text between tags, other than the product's name in <title> (the same in both languages).
        let texts = page.replacingOccurrences(of: "<title>Passbox</title>", with: "").split(separator: ">").compactMap { part -> String? in
            let text = part.split(separator: "<", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : text
        }
        #expect(texts.isEmpty, "index.html has text of its own: \(texts)")
        #expect(Localization.tr("ui.app.name", .english) == "Passbox" && Localization.tr("ui.app.name", .german) == "Passbox")
    }

    @Test func everyKeyTheUIUsesIsWordedInBothLanguages() throws {
        var used = Set<String>()
        let patterns = [#"\bt\('([A-Za-z0-9_.-]+)'"#, #"data-t(?:-label|-placeholder)?="([A-Za-z0-9_.-]+)""#, #"\bt\(\s*'([A-Za-z0-9_.-]+)'"#]
        let files = try Self.sources("js").map(\.text) + [try String(contentsOf: Self.ui.appendingPathComponent("index.html"), encoding: .utf8)]
        for text in files {
            for pattern in patterns {
                let regex = try NSRegularExpression(pattern: pattern)
                for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    if let range = Range(match.range(at: 1), in: text) { used.insert(String(text[range])) }
                }
            }
        }
        #expect(used.count > 150, "only \(used.count) keys found: the scan is broken")
        // The tables as the page gets them (only the keys it can use are served).
        let english = WebAssets.strings(.english).merging(WebAssets.laterStrings(.english)) { a, _ in a }
        let german = WebAssets.strings(.german).merging(WebAssets.laterStrings(.german)) { a, _ in a }
        for key in used.sorted() {
            // A prefix the script completes ('ui.sort.' + name): some key must start with it.
            if key.hasSuffix(".") {
                #expect(english.keys.contains { $0.hasPrefix(key) } && german.keys.contains { $0.hasPrefix(key) }, "no key starts with \(key)")
                continue
            }
            let present = { (table: [String: String]) in table[key] != nil || (table[key + ".one"] != nil && table[key + ".other"] != nil) }
            #expect(present(english) && present(german), "\(key) is not worded in both languages")
        }
        // Every category has its name in both languages.
        for category in Category.all {
            #expect(english["ui.category.\(category.rawValue)"] != nil && german["ui.category.\(category.rawValue)"] != nil, "\(category.rawValue)")
        }
    }

    /// What scripts/embed-icons.py makes of an SVG file: whitespace squeezed, double quotes made single, and
    /// percent-encoded as Python's `quote(…, safe=" =:/;,'-.")` does.
    static func dataURL(_ svg: String) -> String {
        let squeezed = svg.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
            .replacingOccurrences(of: "> <", with: "><").replacingOccurrences(of: "\"", with: "'")
        let safe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~ =:/;,'".utf8)
        var out = "data:image/svg+xml,"
        for byte in squeezed.utf8 {
            if safe.contains(byte) { out.append(Character(Unicode.Scalar(byte))) } else { out += String(format: "%%%02X", byte) }
        }
        return out
    }

    @Test func everyIconTheScriptsNameShipsWithItsRule() throws {
        let css = try String(contentsOf: Self.ui.appendingPathComponent("app/style.css"), encoding: .utf8)
        var named = Set<String>()
        for (_, script) in try Self.sources("js") {
            // Icons named in calls, and the category icons' table.
            let table = script.range(of: "categoryIcons = {").flatMap { start in script[start.upperBound...].range(of: "};").map { String(script[start.upperBound..<$0.lowerBound]) } } ?? ""
            for (pattern, text) in [(#"icon(?:Button)?\('([a-z0-9-]+)'"#, script), (#"'[a-z-]+': '([a-z0-9-]+)'"#, table)] {
                let regex = try NSRegularExpression(pattern: pattern)
                for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    if let range = Range(match.range(at: 1), in: text) { named.insert(String(text[range])) }
                }
            }
        }
        #expect(named.count > 30)
        for icon in named.sorted() {
            #expect(FileManager.default.fileExists(atPath: Self.ui.appendingPathComponent("icons/\(icon).svg").path), "icons/\(icon).svg is missing")
            #expect(css.contains(".i-\(icon) {"), "style.css has no rule for \(icon)")
        }
        // The rules embed the files (scripts/embed-icons.py): each file's drawing is in its rule.
        let iconFiles = try FileManager.default.contentsOfDirectory(atPath: Self.ui.appendingPathComponent("icons").path).filter { $0.hasSuffix(".svg") }
        for file in iconFiles {
            let svg = try String(contentsOf: Self.ui.appendingPathComponent("icons/\(file)"), encoding: .utf8)
            let name = String(file.dropLast(4))
            guard let rule = css.split(separator: "\n").first(where: { $0.hasPrefix(".i-\(name) {") }) else {
                Issue.record("style.css has no rule for \(name): run scripts/embed-icons.py")
                continue
            }
            #expect(rule.contains("url(\"\(Self.dataURL(svg))\")"), "the rule for \(name) does not match icons/\(file): run scripts/embed-icons.py")
        }
        #expect(FileManager.default.fileExists(atPath: Self.ui.appendingPathComponent("icons/LICENSE.txt").path))
        #expect(FileManager.default.fileExists(atPath: Self.ui.appendingPathComponent("fonts/LICENSE.txt").path))
    }

    /// What the first visit loads: the page, its styles (with the icons inside) and scripts, one language's
    /// strings, the catalogue, the fonts and the tab's icon; not the modules only ever loaded with
    /// `import()` when their screen is first shown (the account pages, coercion and backup settings), which
    /// are weighed with the rest against a second bound (310 KiB since the paired browsers' section of issue
    /// 31; 350 KiB since issue 32's Family & Team page, its module and wording 36 KiB; 365 KiB since issue 33's device
    /// linking page; 380 KiB since issue 34's home, picking and About; 400 KiB since its menus, risk badges, the breach check run from the page and the suggested passphrases; 420 KiB since the list's sections, the 2FA codes filter and history's reveal; 440 KiB since the recovery and account password sections, the breach notice and the narrow layout's tab bar). The first visit's bound is issue 34's: 300 KiB with
    /// the font. Printed beside the targets.
    @Test func thePageWeighsUnder300KiBWithItsFont() throws {
        let assets = try WebAssets.load()
        let scripts = assets.paths.filter { $0.hasSuffix(".js") }.map { String(decoding: assets.file($0)?.bytes ?? [], as: UTF8.self) }
        let lazy = Set(assets.paths.filter { path in
            let name = "./" + (path.split(separator: "/").last.map(String.init) ?? "")
            return path.hasSuffix(".js") && scripts.contains { $0.contains("import('\(name)')") } && !scripts.contains { $0.contains("from '\(name)'") }
        }).union(assets.paths.filter { $0.hasSuffix(".later.json") })
        #expect(lazy.contains("/app/backup.js") && lazy.contains("/app/account.js") && !lazy.contains("/app/main.js"), "\(lazy.sorted())")
        let everything = assets.paths.filter { path in
            !path.hasPrefix("/strings/de") && !path.hasSuffix(".txt") && (!path.hasPrefix("/icons/") || path == "/icons/keyhole.svg")
        }
        let loaded = everything.filter { !lazy.contains($0) }
        let bytes = loaded.reduce(0) { $0 + (assets.file($1)?.bytes.count ?? 0) }
        let all = everything.reduce(0) { $0 + (assets.file($1)?.bytes.count ?? 0) }
        print("web UI page weight: \(bytes) bytes, \(bytes / 1024) KiB in \(loaded.count) files at the first visit (issue 34's target: at most 300 KiB with the font, before compression); \(all / 1024) KiB with the \(lazy.count) modules loaded later (under 440 KiB)")
        #expect(bytes <= 300 * 1024)
        #expect(all < 440 * 1024)
        #expect(assets.file("/index.html") != nil && assets.file("/strings/en.json") != nil && assets.file("/catalog.json") != nil)
    }

    /// Scripts are served without their comment-only lines: no string or template literal has a line that
    /// starts with `//` (it would be cut), and what is left still has every other line.
    @Test func scriptsLoseOnlyTheirCommentLines() throws {
        for (name, text) in try Self.sources("js") {
            for literal in Self.literals(text) {
                for line in literal.split(separator: "\n").dropFirst() {
                    #expect(!line.trimmingCharacters(in: .whitespaces).hasPrefix("//"), "\(name): a literal line would be cut")
                }
            }
            let served = String(decoding: WebAssets.withoutCommentLines(Array(text.utf8)), as: UTF8.self)
            let kept = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            #expect(served == kept.joined(separator: "\n"), "\(name)")
        }
    }

    /// Every script parses as a module (Debian's node, `--check`: nothing runs): a syntax error that would leave
    /// the page blank is caught in seconds, not by the browser flows minutes later.
    @Test func everyScriptParses() throws {
        guard let node = try Peers.find("/usr/bin/node", package: "nodejs") else { return }
        let scripts = try Self.sources("js")
        #expect(scripts.count > 10, "the scripts were read")
        for (name, text) in scripts {
            let run = try Transcript.execute(node, ["--check", "--input-type=module"], stdin: [text], environment: [:])
            #expect(run.status == 0, "\(name) does not parse: \(run.stderr.prefix(400))")
        }
    }

    /// The scripts' imports, static and dynamic, form no cycle (issue 29): the screens reach the shell through app.js, never
    /// by importing main.js, which imports them.
    @Test func theScriptsImportsHaveNoCycle() throws {
        let scripts = try Self.sources("js")
        // Static imports and dynamic ones (`import('./x.js')`): a module loaded later closes a cycle too.
        let pattern = try NSRegularExpression(pattern: #"(?:from |import\()'\./([a-z]+\.js)'"#)
        var graph: [String: [String]] = [:]
        for (name, text) in scripts {
            graph[name] = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } }
        }
        #expect(graph["main.js"]?.contains("item.js") == true, "the imports were read")
        #expect(!graph.contains { $0.key != "main.js" && $0.value.contains("main.js") }, "no script imports main.js")
        // Depth-first search for a way back to where it started.
        func cycle(from start: String) -> [String]? {
            var stack: [(String, [String])] = [(start, [start])]
            var seen = Set<String>()
            while let (node, path) = stack.popLast() {
                for next in graph[node] ?? [] {
                    if next == start { return path + [next] }
                    if seen.insert(next).inserted { stack.append((next, path + [next])) }
                }
            }
            return nil
        }
        for name in graph.keys.sorted() { #expect(cycle(from: name) == nil, "a cycle: \(cycle(from: name) ?? [])") }
    }

    /// The page sends the agent's protocol version: a page of another version would be refused on every call.
    @Test func thePageSpeaksTheAgentsProtocolVersion() throws {
        let api = try String(contentsOf: Self.ui.appendingPathComponent("app/api.js"), encoding: .utf8)
        #expect(api.contains("export const PROTOCOL_VERSION = \(ProtocolVersion.current);"))
    }
}

/// One-time tokens and sessions, in process (the HTTP checks against a real agent are in Tests/Web/ui_test.py).
struct WebSessionTests {
    static func server() throws -> (WebServer, String) {
        let directory = NSTemporaryDirectory() + "passbox-web-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return (try WebServer(directory: directory) { _ in [] }, directory)
    }

    @Test func aTokenOpensOneSessionOnce() throws {
        let (server, directory) = try Self.server()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let minted = try server.mintOpenAddress()
        #expect(minted.url.hasPrefix("http://127.0.0.1:\(server.port)/open/"))
        #expect((try FileManager.default.attributesOfItem(atPath: minted.opener)[.posixPermissions] as? Int) == 0o600)
        let token = String(minted.url.split(separator: "/").last!)
        let session = server.redeem(token)
        #expect(session != nil && session!.cookie.count == 64 && session!.key.count == 64 && session!.cookie != session!.key)
        #expect(!FileManager.default.fileExists(atPath: minted.opener), "the opener goes once the token is spent")
        #expect(server.redeem(token) == nil, "a spent token opens nothing")
        #expect(server.redeem(String(repeating: "0", count: 64)) == nil)
    }

    @Test func aTokenExpiresAfterAMinute() throws {
        let (server, directory) = try Self.server()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let minted = try server.mintOpenAddress(now: Date(timeIntervalSinceNow: -WebServer.tokenSeconds - 1))
        let token = String(minted.url.split(separator: "/").last!)
        #expect(server.redeem(token) == nil)
        #expect(!FileManager.default.fileExists(atPath: minted.opener), "an expired token's opener is removed")
    }

    /// Any local user can connect to the page's port. Sixty-four silent connections (all the slots there are)
    /// do not keep the owner out: their browser's next connection, which shows the session's cookie, is
    /// answered, and a connection it has kept open is never one of those closed to make room.
    @Test func connectionsWithoutTheSessionCannotHoldTheOwnersSlots() throws {
        let (server, directory) = try Self.server()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let token = String(try server.mintOpenAddress().url.split(separator: "/").last!)
        let session = try #require(server.redeem(token))
        let page = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nCookie: \(server.cookieName)=\(session.cookie)\r\n\r\n".utf8)
        let kept = try #require(connectLoopback(port: server.port, seconds: 10))
        defer { close(kept) }
        #expect(answeredOK(kept, page))
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<64 {
            if let fd = connectLoopback(port: server.port, seconds: 10) { held.append(fd) }
        }
        #expect(held.count == 64)
        let fresh = try #require(connectLoopback(port: server.port, seconds: 10))
        defer { close(fresh) }
        #expect(answeredOK(fresh, page), "the owner's new connection is answered")
        #expect(answeredOK(kept, page), "the owner's open connection is still served")
        // At most the untrusted slots' worth of the silent ones are still open.
        let open = held.filter { !closedByServer($0, within: 1) }.count
        #expect(open <= Int(WebServer.untrustedConnections))
    }
}
