import Foundation

/// User-facing text in English and German from one set of tables: `tr("key", ["name": value])`.
/// Placeholders are `{name}`; a key with `.one` / `.other` variants picks by the `count` argument.
public enum Language: String, Sendable, CaseIterable {
    case english = "en"
    case german = "de"

    /// The language from `PASSBOX_LANG`, else `LC_ALL`, `LC_MESSAGES` or `LANG` ("de_DE.UTF-8" → German).
    /// Without `environment`, the process's own variables are read one by one (`getenv`): building
    /// `ProcessInfo`'s whole dictionary costs a command a measurable part of its start-up.
    public static func fromEnvironment(_ environment: [String: String]? = nil) -> Language {
        for key in ["PASSBOX_LANG", "LC_ALL", "LC_MESSAGES", "LANG"] {
            let found = environment.map { $0[key] } ?? getenv(key).map { String(cString: $0) }
            if let value = found, !value.isEmpty {
                return value.lowercased().hasPrefix("de") ? .german : .english
            }
        }
        return .english
    }
}

public enum Localization {
    /// The text for `key` in `language` with `{placeholders}` filled; an unknown key comes back as itself.
    public static func tr(_ key: String, _ language: Language = .english, _ arguments: [String: String] = [:]) -> String {
        let table = language == .german ? Tables.allGerman : Tables.allEnglish
        var chosen = key
        if let count = arguments["count"].flatMap(Int.init) {
            chosen = table[key + (count == 1 ? ".one" : ".other")] != nil ? key + (count == 1 ? ".one" : ".other") : key
        }
        let text = table[chosen] ?? Tables.allEnglish[chosen] ?? key
        return arguments.isEmpty ? text : fill(text, arguments)
    }

    /// `text` with each `{name}` that `arguments` names replaced by its value, in one pass (values are not
    /// searched again, so a value holding "{x}" stays as it is); other braces stay.
    public static func fill(_ text: String, _ arguments: [String: String]) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}"), let value = arguments[String(rest[rest.index(after: open)..<close])] else {
                out += "{"
                rest = rest[rest.index(after: open)...]
                continue
            }
            out += value
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out
    }

    /// A language's whole table (the web UI gets it as JSON and words everything with it).
    public static func table(_ language: Language) -> [String: String] {
        language == .german ? Tables.allGerman : Tables.allEnglish
    }

    /// Every key of a language's table (for the test that both languages match).
    public static func keys(_ language: Language) -> Set<String> {
        Set((language == .german ? Tables.allGerman : Tables.allEnglish).keys)
    }

    /// Whether `key` (or its `.one`/`.other` variants) has a text.
    public static func has(_ key: String) -> Bool {
        Tables.allEnglish[key] != nil || Tables.allEnglish[key + ".other"] != nil
    }

    /// The placeholders used by a key in a language.
    public static func placeholders(_ key: String, _ language: Language) -> Set<String> {
        let text = (language == .german ? Tables.allGerman : Tables.allEnglish)[key] ?? ""
        var out = Set<String>()
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return out
    }
}

extension Tables {
    static let allEnglish = english.merging(errorsEnglish) { a, _ in a }.merging(serverEnglish) { a, _ in a }.merging(syncEnglish) { a, _ in a }.merging(webEnglish) { a, _ in a }.merging(webToolsEnglish) { a, _ in a }.merging(webCheckEnglish) { a, _ in a }.merging(webAccountEnglish) { a, _ in a }.merging(webCoercionEnglish) { a, _ in a }.merging(coercionErrorsEnglish) { a, _ in a }.merging(backupEnglish) { a, _ in a }.merging(interopEnglish) { a, _ in a }.merging(attachmentsEnglish) { a, _ in a }.merging(validationEnglish) { a, _ in a }.merging(sharingEnglish) { a, _ in a }.merging(webSharingEnglish) { a, _ in a }.merging(linkingEnglish) { a, _ in a }.merging(webHomeEnglish) { a, _ in a }.merging(webVaultsEnglish) { a, _ in a }
    static let allGerman = german.merging(errorsGerman) { a, _ in a }.merging(serverGerman) { a, _ in a }.merging(syncGerman) { a, _ in a }.merging(webGerman) { a, _ in a }.merging(webToolsGerman) { a, _ in a }.merging(webCheckGerman) { a, _ in a }.merging(webAccountGerman) { a, _ in a }.merging(webCoercionGerman) { a, _ in a }.merging(coercionErrorsGerman) { a, _ in a }.merging(backupGerman) { a, _ in a }.merging(interopGerman) { a, _ in a }.merging(attachmentsGerman) { a, _ in a }.merging(validationGerman) { a, _ in a }.merging(sharingGerman) { a, _ in a }.merging(webSharingGerman) { a, _ in a }.merging(linkingGerman) { a, _ in a }.merging(webHomeGerman) { a, _ in a }.merging(webVaultsGerman) { a, _ in a }
}
