/// Why a `.env` file could not be read, and where.
public struct DotEnvError: Error, Equatable, Sendable {
    public enum Reason: String, Sendable {
        /// A line that is not blank, a comment, or NAME=VALUE.
        case missingEquals = "missing-equals"
        /// The name is empty or not letters, digits and underscores starting with a letter or underscore.
        case invalidName = "invalid-name"
        /// A quoted value has no closing quote.
        case unterminatedQuote = "unterminated-quote"
        /// Something other than a comment follows a closing quote.
        case textAfterClosingQuote = "text-after-closing-quote"
    }

    /// 1-based line number (of the line where the entry starts).
    public let line: Int
    public let reason: Reason

    public init(line: Int, reason: Reason) {
        self.line = line
        self.reason = reason
    }
}

/// The `.env` format read by `passbox run --env-file`.
///
/// One `NAME=VALUE` per line, optionally after `export `; blank lines and lines starting with `#` are skipped;
/// spaces around the name and `=` are ignored. An unquoted value ends at the line's end or at a `#` preceded by
/// a space, trailing spaces removed. A value in single quotes is taken literally; one in double quotes
/// understands `\n`, `\r`, `\t`, `\"`, `\\` and `\$` (any other backslash is kept as written). Quoted values may
/// span lines. No variable is expanded.
public enum DotEnv {
    /// The entries in file order (a repeated name appears twice; the later one wins when applied).
    public static func parse(_ text: String) throws(DotEnvError) -> [(key: String, value: String)] {
        let bytes = Array(text.utf8)
        var entries = [(key: String, value: String)]()
        var i = 0, line = 1
        func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0d }
        func skipBlanks() { while i < bytes.count, isBlank(bytes[i]) { i += 1 } }
        func skipLine() {
            while i < bytes.count, bytes[i] != 0x0a { i += 1 }
            if i < bytes.count { i += 1; line += 1 }
        }
        while i < bytes.count {
            skipBlanks()
            guard i < bytes.count else { break }
            if bytes[i] == 0x0a { i += 1; line += 1; continue }
            if bytes[i] == 0x23 { skipLine(); continue }
            let startLine = line
            let export = Array("export".utf8)
            if bytes[i...].starts(with: export), i + export.count < bytes.count, bytes[i + export.count] == 0x20 || bytes[i + export.count] == 0x09 {
                i += export.count
                skipBlanks()
            }
            let nameStart = i
            while i < bytes.count, bytes[i] != 0x3d, bytes[i] != 0x0a, !isBlank(bytes[i]) { i += 1 }
            let name = bytes[nameStart..<i]
            skipBlanks()
            guard i < bytes.count, bytes[i] == 0x3d else { throw DotEnvError(line: startLine, reason: .missingEquals) }
            guard let first = name.first, first == 0x5f || isLetter(first), name.allSatisfy({ $0 == 0x5f || isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) }) else {
                throw DotEnvError(line: startLine, reason: .invalidName)
            }
            i += 1
            skipBlanks()
            var value = [UInt8]()
            if i < bytes.count, bytes[i] == 0x27 || bytes[i] == 0x22 {
                let quote = bytes[i]
                i += 1
                var closed = false
                while i < bytes.count {
                    let b = bytes[i]
                    if b == quote { closed = true; i += 1; break }
                    if b == 0x0a { line += 1 }
                    if quote == 0x22, b == 0x5c, i + 1 < bytes.count {
                        let escaped: [UInt8]? =
                            switch bytes[i + 1] {
                            case 0x6e: [0x0a]
                            case 0x72: [0x0d]
                            case 0x74: [0x09]
                            case 0x22, 0x5c, 0x24: [bytes[i + 1]]
                            default: nil
                            }
                        if let escaped {
                            value += escaped
                            i += 2
                            continue
                        }
                    }
                    value.append(b)
                    i += 1
                }
                guard closed else { throw DotEnvError(line: startLine, reason: .unterminatedQuote) }
                skipBlanks()
                if i < bytes.count, bytes[i] != 0x0a, bytes[i] != 0x23 { throw DotEnvError(line: line, reason: .textAfterClosingQuote) }
                skipLine()
            } else {
                while i < bytes.count, bytes[i] != 0x0a {
                    if bytes[i] == 0x23, let last = value.last, isBlank(last) { break }
                    value.append(bytes[i])
                    i += 1
                }
                while let last = value.last, isBlank(last) { value.removeLast() }
                skipLine()
            }
            entries.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return entries
    }

    static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) }
}
