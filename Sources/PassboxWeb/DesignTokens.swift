import Foundation

/// Passbox Marina's tokens (`UI/tokens.json`) as CSS custom properties, served as `/app/tokens.css`: the dark
/// theme on `:root` (dark first), the light one under `data-theme="light"` and, for `data-theme="system"`,
/// under the system's `prefers-color-scheme: light`. No other file of the page names a colour; the tests
/// hold the page to that and check the tokens' contrasts.
public struct DesignTokens: Sendable, Decodable {
    public struct Color: Sendable, Decodable {
        public let dark: String
        public let light: String
    }

    public struct TypeStyle: Sendable, Decodable {
        public let size: String
        public let weight: Int
        public let lineHeight: Double
    }

    public struct Tints: Sendable, Decodable {
        public let dark: [String]
        public let light: [String]
        public let ink: String
    }

    public let version: Int
    public let color: [String: Color]
    public let tint: Tints
    public let gradient: [String: String]
    public let type: [String: TypeStyle]
    public let radius: [String: String]
    public let space: [String: String]
    public let size: [String: String]
    public let motion: [String: String]

    /// The tokens of a tokens.json, every colour checked to be #RRGGBB or #RRGGBBAA.
    public static func parse(_ json: Data) throws -> DesignTokens {
        let tokens = try JSONDecoder().decode(DesignTokens.self, from: json)
        for (name, value) in tokens.color where !isHexColour(value.dark) || !isHexColour(value.light) {
            throw WebServerError(reason: "tokens.json: the colour \(name) is not #RRGGBB or #RRGGBBAA")
        }
        for value in tokens.tint.dark + tokens.tint.light + [tokens.tint.ink] where !isHexColour(value) {
            throw WebServerError(reason: "tokens.json: the tint \(value) is not #RRGGBB or #RRGGBBAA")
        }
        return tokens
    }

    static func isHexColour(_ value: String) -> Bool {
        let digits = value.dropFirst()
        return value.first == "#" && (digits.count == 6 || digits.count == 8) && digits.allSatisfy(\.isHexDigit)
    }

    /// `surfaceRaised` → `surface-raised`, `title2` → `title2`.
    static func kebab(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase { out += "-" + character.lowercased() } else { out.append(character) }
        }
        return out
    }

    /// The style sheet: every token a custom property, the colours once per theme.
    public var css: String {
        var lines = ["/* Generated from tokens.json (DesignTokens.swift): edit that file, not this one. */", ":root {"]
        lines += colours(dark: true)
        for (name, style) in type.sorted(by: { $0.key < $1.key }) {
            let n = Self.kebab(name)
            lines.append("  --font-\(n): \(style.size); --weight-\(n): \(style.weight); --leading-\(n): \(style.lineHeight);")
        }
        for (prefix, values) in [("radius", radius), ("space", space), ("size", size), ("motion", motion)] {
            lines.append("  " + values.sorted(by: { $0.key < $1.key }).map { "--\(prefix)-\(Self.kebab($0.key)): \($0.value);" }.joined(separator: " "))
        }
        for (name, value) in gradient.sorted(by: { $0.key < $1.key }) {
            lines.append("  --gradient-\(Self.kebab(name)): \(Self.resolved(value));")
        }
        lines.append("  --tint-ink: \(tint.ink);")
        lines += ["}", ":root[data-theme=\"light\"] {"] + colours(dark: false) + ["}"]
        lines += ["@media (prefers-color-scheme: light) {", "  :root[data-theme=\"system\"] {"] + colours(dark: false).map { "  " + $0 } + ["  }", "}"]
        return lines.joined(separator: "\n") + "\n"
    }

    private func colours(dark: Bool) -> [String] {
        var lines = color.sorted(by: { $0.key < $1.key }).map { "  --\(Self.kebab($0.key)): \(dark ? $0.value.dark : $0.value.light);" }
        let tints = dark ? tint.dark : tint.light
        lines.append("  " + tints.enumerated().map { "--tint-\($0.offset): \($0.element);" }.joined(separator: " "))
        lines.append("  color-scheme: \(dark ? "dark" : "light");")
        return lines
    }

    /// `{marinaHigh}` in a gradient → `var(--marina-high)`.
    static func resolved(_ value: String) -> String {
        var out = "", name = "", inName = false
        for character in value {
            switch character {
            case "{": inName = true; name = ""
            case "}" where inName: inName = false; out += "var(--\(kebab(name)))"
            default: if inName { name.append(character) } else { out.append(character) }
            }
        }
        return out
    }
}
