/// A small argument parser: options are declared per command, values may follow as the next word or
/// after `=`; repeated options collect every value.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `words` given the options that take a value and the flags (both without the leading dashes).
    init(_ words: [String], valued: Set<String>, flags allowedFlags: Set<String>) throws {
        var index = 0
        var onlyPositionals = false
        while index < words.count {
            let word = words[index]
            index += 1
            let shortOption = !onlyPositionals && word.count == 2 && word.hasPrefix("-") && word != "--"
                && (valued.contains(String(word.dropFirst())) || allowedFlags.contains(String(word.dropFirst())))
            if !shortOption && (onlyPositionals || !word.hasPrefix("--") || word == "--") {
                if word == "--" && !onlyPositionals { onlyPositionals = true; continue }
                positionals.append(word)
                continue
            }
            var name = String(word.dropFirst(shortOption ? 1 : 2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if valued.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < words.count else { throw CLIError.usage("--\(name) needs a value") }
                    values[name, default: []].append(words[index])
                    index += 1
                }
            } else if allowedFlags.contains(name) {
                guard inlineValue == nil else { throw CLIError.usage("--\(name) takes no value") }
                flags.insert(name)
            } else {
                throw CLIError.usage("unknown option --\(name)")
            }
        }
    }

    /// Values that hold unless the command line names the option too (a configuration file's): each goes before
    /// the command line's own, so `value` still answers the command line's last.
    mutating func underlay(_ pairs: [(name: String, value: String)]) {
        var before: [String: [String]] = [:]
        for pair in pairs { before[pair.name, default: []].append(pair.value) }
        for (name, list) in before { values[name] = list + (values[name] ?? []) }
    }

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Fails unless there are between `min` and `max` positionals.
    func expectPositionals(_ range: ClosedRange<Int>, usage: String) throws {
        guard range.contains(positionals.count) else { throw CLIError.usage("usage: \(usage)") }
    }
}
