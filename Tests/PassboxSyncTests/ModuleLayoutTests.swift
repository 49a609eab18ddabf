import Foundation
import Testing

/// The server never reaches the vault's code (issue 29): `PassboxServer`'s dependency closure, read from
/// Package.swift, holds no `PassboxCore`; it checks manifests through `PassboxManifest`, which imports only
/// crypto.
struct ModuleLayoutTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Package.swift")

    /// Each target's direct dependencies, as Package.swift names them.
    static func dependencies() throws -> [String: [String]] {
        let text = try String(contentsOf: package, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"name:\s*"([^"]+)",\s*dependencies:\s*\[([^\]]*)\]"#)
        var graph: [String: [String]] = [:]
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let name = Range(match.range(at: 1), in: text), let list = Range(match.range(at: 2), in: text) else { continue }
            graph[String(text[name])] = text[list].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }.filter { !$0.isEmpty }
        }
        return graph
    }

    static func closure(of target: String, in graph: [String: [String]]) -> Set<String> {
        var seen = Set<String>(), stack = [target]
        while let next = stack.popLast() {
            for dependency in graph[next] ?? [] where seen.insert(dependency).inserted { stack.append(dependency) }
        }
        return seen
    }

    @Test func theServerDoesNotDependOnTheVaultsCode() throws {
        let graph = try Self.dependencies()
        let server = Self.closure(of: "PassboxServer", in: graph)
        #expect(server.contains("PassboxManifest") && server.contains("PassboxCrypto"), "the layout was read: \(server.sorted())")
        #expect(!server.contains("PassboxCore"), "PassboxServer reaches PassboxCore through \(server.sorted())")
        // Its wire types are the server API's, apart from the agent's protocol (which builds on them).
        #expect(server.contains("PassboxServerAPI") && !server.contains("PassboxProtocol"), "PassboxServer reaches the agent's protocol: \(server.sorted())")
        #expect(Self.closure(of: "PassboxServerAPI", in: graph).isEmpty, "the server API's types depend on nothing")
        #expect(Self.closure(of: "PassboxManifest", in: graph).isSubset(of: Self.closure(of: "PassboxCrypto", in: graph).union(["PassboxCrypto"])))
        // The checker itself: the service does reach Core.
        #expect(Self.closure(of: "PassboxService", in: graph).contains("PassboxCore"))
    }

    /// `make check`'s unit tests start no agent, server or database, and link none (issue 29): their kit,
    /// PassboxTestKit, reaches nothing of the app but the process seam, and no test target of the lane
    /// (CHECK_SUITES in the Makefile) reaches the agent, the service, the server, the CLI or PostgreSQL.
    @Test func theFastLanesTestsLinkNoAgentServerOrDatabase() throws {
        let graph = try Self.dependencies()
        let kit = Self.closure(of: "PassboxTestKit", in: graph)
        #expect(kit == ["PassboxProcess", "CLinux"], "PassboxTestKit reaches \(kit.sorted())")
        let makefile = try String(contentsOf: Self.package.deletingLastPathComponent().appendingPathComponent("Makefile"), encoding: .utf8)
        let line = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("CHECK_SUITES := ") })
        let suites = line.dropFirst("CHECK_SUITES := ".count).split(separator: "|").map(String.init)
        #expect(suites.count >= 10 && suites.allSatisfy { graph[$0] != nil }, "CHECK_SUITES names test targets: \(suites)")
        for suite in suites {
            let reach = Self.closure(of: suite, in: graph)
            let heavy = reach.intersection(["PassboxAgent", "PassboxService", "PassboxServer", "PassboxCLI", "PassboxPostgres", "PassboxTestSupport"])
            #expect(heavy.isEmpty, "\(suite) links \(heavy.sorted())")
        }
    }
}

/// Wording at the edge, facts below (issue 29): the tables live in `PassboxWording`, which only the surfaces
/// import, and Core throws reasons with facts, never a sentence.
struct WordingLayoutTests {
    static let root = ModuleLayoutTests.package.deletingLastPathComponent()

    @Test func onlyTheSurfacesImportTheWording() throws {
        let graph = try ModuleLayoutTests.dependencies()
        let importers = Set(graph.filter { $0.value.contains("PassboxWording") }.keys.filter { !$0.hasSuffix("Tests") })
        #expect(importers == ["PassboxCLI", "PassboxWeb", "PassboxService"], "\(importers.sorted())")
        for library in ["PassboxCore", "PassboxStore", "PassboxSync", "PassboxInterop", "PassboxProtocol", "PassboxServer"] {
            #expect(!ModuleLayoutTests.closure(of: library, in: graph).contains("PassboxWording"), "\(library) reaches the wording")
        }
    }

    @Test func coreAndTheLibrariesThrowNoSentence() throws {
        // A reason is a key ("card.checkDigit"); a sentence has a space.
        let sentence = try NSRegularExpression(pattern: #"(ValidationError|ProtocolError|ReadError|CheckError)\(\s*(message:\s*)?"[^"]*\s[^"]*""#)
        for module in ["PassboxCore", "PassboxImaging", "PassboxClient"] {
            let folder = Self.root.appendingPathComponent("Sources/\(module)")
            let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
            #expect(!files.isEmpty, "the sources of \(module) were read")
            for file in files {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                let found = sentence.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range, in: text)!]) }
                #expect(found.isEmpty, "\(module)/\(file) throws a sentence: \(found)")
            }
        }
    }
}
