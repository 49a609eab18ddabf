import Foundation
import Testing

@testable import PassboxWeb

/// Passbox Marina in the page (issue 34, DS-1…DS-8): the tokens are the only place a colour is written, the
/// style sheet holds Solar Silk to being a fill with Marina ink, status text uses the *Text tokens, and the
/// tokens' own pairs have the contrast WCAG AA asks for. The rendered screens are checked again in the
/// browser (Tests/Web/ui_test.py, `design_check`).
struct WebDesignTests {
    static let tokensURL = WebUIFileTests.ui.appendingPathComponent("tokens.json")

    static func tokens() throws -> DesignTokens { try DesignTokens.parse(try Data(contentsOf: tokensURL)) }

    /// Every file of the page but the tokens, with its text.
    static func pageFiles() throws -> [(name: String, text: String)] {
        let base = WebUIFileTests.ui
        var out = [(String, String)]()
        for name in try FileManager.default.subpathsOfDirectory(atPath: base.path).sorted() where [".css", ".js", ".html", ".svg"].contains(where: name.hasSuffix) {
            out.append((name, try String(contentsOf: base.appendingPathComponent(name), encoding: .utf8)))
        }
        return out
    }

    static let namedColours: Set<String> = [
        "black", "white", "red", "green", "blue", "yellow", "orange", "purple", "gray", "grey", "silver", "maroon", "navy", "teal",
        "olive", "lime", "aqua", "fuchsia", "pink", "brown", "gold", "indigo", "violet", "cyan", "magenta", "beige", "coral", "crimson",
        "khaki", "lavender", "salmon", "tan", "tomato", "turquoise", "wheat", "ivory", "azure", "orchid", "plum", "sienna", "chocolate",
        "darkblue", "darkgray", "darkgrey", "lightgray", "lightgrey", "whitesmoke", "gainsboro", "dimgray", "dimgrey", "slategray",
        "rebeccapurple", "darkred", "darkgreen", "lightblue", "skyblue", "steelblue", "royalblue", "dodgerblue", "midnightblue",
    ]

    /// Colour literals in a text: hex colours in a colour position, colour functions, named colours as values.
    static func colourLiterals(in text: String, css: Bool) -> [String] {
        var found = [String]()
        let patterns = [
            #"(?i)\b(rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(\s*[0-9.]"#,
            css ? #"(?i):[^;{}]*#[0-9a-f]{3,8}\b"# : #"(?i)(fill|stroke|color|background\w*|fillStyle|strokeStyle|style\.\w+)['"`]?\s*[,=:]\s*['"`]#[0-9a-f]{3,8}['"`]"#,
            css ? #"(?i):\s*[^;{}]*(?<![-\w])("# + namedColours.sorted().joined(separator: "|") + #")\b[^-]"#
                : #"(?i)(fill|stroke|color|background\w*|fillStyle|strokeStyle|style\.\w+)['"`]?\s*[,=:]\s*['"`]("# + namedColours.sorted().joined(separator: "|") + #")['"`]"#,
            #"(?i)(fill|stroke|stop-color|color)\s*=\s*['"](?!none|currentColor)[^'"]+['"]"#,
            // A colour inside an inline style string: 'color: #fff'.
            #"(?i)['"`][^'"`\n]*:\s*#[0-9a-f]{3,8}\b"#,
        ]
        for pattern in patterns {
            let regex = try! NSRegularExpression(pattern: pattern)
            for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range, in: text) { found.append(String(text[range]).prefix(80).description) }
            }
        }
        return found
    }

    @Test func noColourIsWrittenOutsideTheTokens() throws {
        var offenders = [String]()
        for (name, text) in try Self.pageFiles() {
            // Lucide's icons (and their data: URLs in the sheet) are drawn in currentColor, which is allowed.
            // In a style sheet only the declarations' values can hold a colour (a selector's #id is no colour).
            let body = name.hasSuffix(".css") ? Self.rules(text).flatMap { rule in rule.declarations.map { ": \($0.value);" } }.joined(separator: "\n") : text
            offenders += Self.colourLiterals(in: body, css: name.hasSuffix(".css")).map { "\(name): \($0)" }
        }
        #expect(offenders.isEmpty, "\(offenders)")
        // The check finds what it is for.
        #expect(!Self.colourLiterals(in: ".a { color: #fff; }", css: true).isEmpty)
        #expect(!Self.colourLiterals(in: ".a { background: rgba(0, 0, 0, 0.5); }", css: true).isEmpty)
        #expect(!Self.colourLiterals(in: ".a { border: 1px solid white; }", css: true).isEmpty)
        #expect(!Self.colourLiterals(in: "el.setAttribute('fill', '#000');", css: false).isEmpty)
        #expect(!Self.colourLiterals(in: "el.style.color = 'white';", css: false).isEmpty)
        #expect(!Self.colourLiterals(in: "<rect fill=\"red\"/>", css: false).isEmpty)
        #expect(Self.colourLiterals(in: ".a { color: var(--text); background: transparent; }", css: true).isEmpty)
        #expect(Self.colourLiterals(in: "document.querySelector('#add')", css: false).isEmpty)
        #expect(!Self.colourLiterals(in: "h('p', { style: 'color: #fff' })", css: false).isEmpty)
        #expect(Self.rules("@import url(x.css); .a { color: red; }").map(\.selector) == [".a"])
    }

    static func cssWithoutComments(_ css: String) -> String {
        css.replacingOccurrences(of: #"/\*[\s\S]*?\*/"#, with: "", options: .regularExpression)
    }

    /// The style sheet's rules: selector and declarations, at-rules' blocks opened into their rules.
    static func rules(_ css: String) -> [(selector: String, declarations: [(property: String, value: String)])] {
        var out = [(String, [(String, String)])]()
        var selector = "", buffer = "", depth = 0
        for character in cssWithoutComments(css) {
            switch character {
            case "{":
                depth += 1
                // After a statement at-rule (@import …;) only what follows its ";" is the selector.
                selector = (buffer.split(separator: ";", omittingEmptySubsequences: false).last.map(String.init) ?? buffer).trimmingCharacters(in: .whitespacesAndNewlines)
                buffer = ""
            case "}":
                depth -= 1
                let declarations = buffer.split(separator: ";").compactMap { part -> (String, String)? in
                    guard let colon = part.firstIndex(of: ":") else { return nil }
                    return (part[..<colon].trimmingCharacters(in: .whitespacesAndNewlines).lowercased(), part[part.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines))
                }
                if !declarations.isEmpty, !selector.hasPrefix("@") { out.append((selector, declarations)) }
                buffer = ""
            default: buffer.append(character)
            }
        }
        return out
    }

    static func uses(_ value: String, _ token: String) -> Bool { value.contains("var(--\(token))") }

    /// DS-4, DS-5, DS-6: Solar is never text and a Solar fill carries Marina ink; a status colour in text is
    /// its *Text token; links and text buttons are linkTint.
    static func designFaults(_ css: String) -> [String] {
        var faults = [String]()
        let textProperties: Set<String> = ["color", "-webkit-text-fill-color", "text-decoration-color", "caret-color"]
        for (selector, declarations) in rules(css) {
            let isIcon = selector.split(separator: ",").allSatisfy { $0.contains(".icon") || $0.contains("::before") || $0.contains("::after") }
            for (property, value) in declarations {
                // Solar initials on the Marina signature gradient are the avatar's (DS-13); anywhere else Solar is no text.
                let onMarina = declarations.contains { ["background", "background-color"].contains($0.property) && uses($0.value, "gradient-signature") }
                if textProperties.contains(property), uses(value, "accent"), !onMarina { faults.append("\(selector): Solar text (\(property))") }
                if textProperties.contains(property), !isIcon, ["danger", "warning", "success", "sky"].contains(where: { uses(value, $0) }) {
                    faults.append("\(selector): a status fill colour used for text (\(value)); use its *Text token")
                }
                if ["background", "background-color"].contains(property), uses(value, "accent"), !isIcon {
                    let ink = declarations.first { $0.property == "color" }?.value
                    if ink.map({ !uses($0, "accent-contrast") }) ?? true { faults.append("\(selector): Solar fill without Marina ink (color: var(--accent-contrast))") }
                }
            }
        }
        return faults
    }

    @Test func solarIsAFillWithMarinaInkAndStatusTextUsesItsTextTokens() throws {
        let css = try String(contentsOf: WebUIFileTests.ui.appendingPathComponent("app/style.css"), encoding: .utf8)
        let faults = Self.designFaults(css)
        #expect(faults.isEmpty, "\(faults)")
        // The check finds each fault it is for.
        #expect(Self.designFaults(".a { color: var(--accent); }").count == 1)
        #expect(Self.designFaults(".a { color: var(--accent); background: var(--surface); }").count == 1)
        #expect(Self.designFaults(".a { color: var(--accent); background: var(--gradient-signature); }").isEmpty)
        #expect(Self.designFaults(".a { background: var(--accent); color: var(--on-dark); }").count == 1)
        #expect(Self.designFaults(".a { background: var(--accent); }").count == 1)
        #expect(Self.designFaults(".a { color: var(--warning); }").count == 1)
        #expect(Self.designFaults(".a { background: var(--accent); color: var(--accent-contrast); } .b .icon { background: var(--accent); }").isEmpty)
    }

    @Test func everyCustomPropertyTheSheetUsesIsDefined() throws {
        let css = try String(contentsOf: WebUIFileTests.ui.appendingPathComponent("app/style.css"), encoding: .utf8)
        let generated = try Self.tokens().css
        let defined = Set((generated + css).matches(of: #/--([a-z0-9-]+)\s*:/#).map { String($0.output.1) })
        let used = Set(css.matches(of: #/var\(--([a-z0-9-]+)\)/#).map { String($0.output.1) })
        #expect(used.subtracting(defined).isEmpty, "\(used.subtracting(defined).sorted())")
    }

    static func luminance(_ hex: String) -> Double {
        let digits = Array(hex.dropFirst().prefix(6))
        let channels = stride(from: 0, to: 6, by: 2).map { Double(Int(String(digits[$0 ..< $0 + 2]), radix: 16)!) / 255 }
        let linear = channels.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    }

    static func contrast(_ a: String, _ b: String) -> Double {
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    /// WCAG AA from the tokens alone, in both themes: text 4.5:1, focus rings 3:1 (DS-6).
    @Test func theTokensPairsHaveTheirContrast() throws {
        let tokens = try Self.tokens()
        var low = [String]()
        for dark in [true, false] {
            func colour(_ name: String) -> String { let c = tokens.color[name]!; return dark ? c.dark : c.light }
            let theme = dark ? "dark" : "light"
            for text in ["text", "textSecondary", "linkTint", "dangerText", "successText", "warningText", "infoText"] {
                for ground in ["canvas", "surface", "surfaceRaised"] where Self.contrast(colour(text), colour(ground)) < 4.5 {
                    low.append("\(theme): \(text) on \(ground) \(Self.contrast(colour(text), colour(ground)))")
                }
            }
            for (ink, ground, least) in [("accentContrast", "accent", 4.5), ("onDark", "swipeAction", 4.5), ("onDark", "swipeFavorite", 4.5), ("focus", "canvas", 3), ("focus", "surface", 3)]
            where Self.contrast(colour(ink), colour(ground)) < least {
                low.append("\(theme): \(ink) on \(ground) \(Self.contrast(colour(ink), colour(ground)))")
            }
            for tint in dark ? tokens.tint.dark : tokens.tint.light where Self.contrast(tokens.tint.ink, tint) < 4.5 {
                low.append("\(theme): monogram ink on \(tint)")
            }
        }
        #expect(low.isEmpty, "\(low)")
        // Solar on white would fail: the rule above is what keeps it off text.
        #expect(Self.contrast(tokens.color["accent"]!.light, tokens.color["surface"]!.light) < 3)
    }

    @Test func theTokensBecomeOneStyleSheetForBothThemes() throws {
        let tokens = try Self.tokens()
        let css = tokens.css
        for (name, colour) in tokens.color {
            let property = "--\(DesignTokens.kebab(name)): "
            #expect(css.contains(property + colour.dark + ";") && css.contains(property + colour.light + ";"), "\(name)")
        }
        #expect(css.contains(":root[data-theme=\"light\"]") && css.contains("@media (prefers-color-scheme: light)") && css.contains(":root[data-theme=\"system\"]"))
        #expect(css.contains("--gradient-signature: linear-gradient(135deg, var(--marina-high) 0%"))
        #expect(css.contains("--font-large-title: 2rem"))
        #expect(DesignTokens.kebab("surfaceRaised") == "surface-raised")
        #expect(throws: (any Error).self) { try DesignTokens.parse(Data(##"{"version":1,"color":{"x":{"dark":"red","light":"#fff"}},"tint":{"dark":[],"light":[],"ink":"#FFFFFF"},"gradient":{},"type":{},"radius":{},"space":{},"size":{},"motion":{}}"##.utf8)) }
        // The agent serves it; the JSON itself is not served.
        let assets = try WebAssets.load()
        #expect(assets.file("/app/tokens.css").map { String(decoding: $0.bytes, as: UTF8.self) } == css)
        #expect(assets.file("/tokens.json") == nil)
    }

    /// KB-1: no password field of the page is offered to the browser's own password manager: each says
    /// autocomplete "new-password" (never "current-password", which invites filling a saved one; axe counts "off" on
    /// a password field as invalid), and every
    /// form is sent by the page's script (a submit handler that prevents the browser's own submission).
    @Test func passwordFieldsAreNotOfferedToTheBrowsersManager() throws {
        var faults = [String]()
        for (name, text) in try WebUIFileTests.sources("js") {
            for line in text.split(separator: "\n") where line.contains("'password'") && line.contains("h('input'") {
                if !(line.contains("autocomplete: 'new-password'") || line.contains("autocomplete,") || line.contains("autocomplete: template.concealed") || line.contains("autocomplete: c.concealed ? 'new-password'")) {
                    faults.append("\(name): \(line.trimmingCharacters(in: .whitespaces).prefix(100))")
                }
            }
            if text.contains("current-password") { faults.append("\(name) asks for current-password") }
            let forms = text.components(separatedBy: "h('form'").count - 1
            let handled = text.components(separatedBy: "preventDefault()").count - 1
            if forms > handled { faults.append("\(name): \(forms) forms, \(handled) preventDefault") }
        }
        #expect(faults.isEmpty, "\(faults)")
    }
}
