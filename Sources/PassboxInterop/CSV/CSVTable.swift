import Foundation

/// A CSV file as rows of fields (RFC 4180: fields separated by commas, or by the semicolons or tabs some
/// spreadsheets write; a quoted field may hold separators, line breaks and doubled quotes; CRLF or LF; a
/// UTF-8 byte-order mark is skipped). Hand-written: about 60 lines, bounds-checked and fuzzed with the rest.
struct CSVTable {
    var header: [String]
    var rows: [[String]]

    static let columnLimit = 1_000

    init(parsing bytes: [UInt8]) throws {
        guard var text = String(validating: bytes, as: UTF8.self) else { throw InteropError.damaged(reason: "it is not UTF-8 text") }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let scalars = Array(text.unicodeScalars)
        // The separator the header line uses most: comma, semicolon or tab (quotes respected).
        var counts: [Unicode.Scalar: Int] = [",": 0, ";": 0, "\t": 0]
        var quoted = false
        for s in scalars {
            if s == "\"" { quoted.toggle() } else if !quoted, s == "\n" || s == "\r" { break } else if !quoted, counts[s] != nil { counts[s]! += 1 }
        }
        let separator = counts.max { a, b in a.value < b.value || (a.value == b.value && a.key != ",") }?.key ?? ","
        var records: [[String]] = []
        var record: [String] = [], field = String.UnicodeScalarView()
        var i = 0, line = 1, recordLine = 1
        var inQuotes = false, wasQuoted = false
        func endField() throws {
            record.append(String(field))
            field = String.UnicodeScalarView()
            wasQuoted = false
            guard record.count <= Self.columnLimit else { throw InteropError.damaged(reason: "line \(recordLine) has more than \(Self.columnLimit) columns") }
        }
        func endRecord() throws {
            try endField()
            // A line with nothing on it is no record.
            if !(record.count == 1 && record[0].isEmpty) {
                records.append(record)
            }
            record = []
        }
        while i < scalars.count {
            let s = scalars[i]
            if inQuotes {
                if s == "\"" {
                    if i + 1 < scalars.count, scalars[i + 1] == "\"" {
                        field.append("\"")
                        i += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if s == "\n" { line += 1 }
                    field.append(s)
                }
            } else if s == "\"", field.isEmpty, !wasQuoted {
                inQuotes = true
                wasQuoted = true
            } else if s == separator {
                try endField()
            } else if s == "\r" || s == "\n" {
                if s == "\r", i + 1 < scalars.count, scalars[i + 1] == "\n" { i += 1 }
                try endRecord()
                line += 1
                recordLine = line
            } else {
                field.append(s)
            }
            i += 1
        }
        guard !inQuotes else { throw InteropError.damaged(reason: "a quoted field that starts on line \(recordLine) never ends") }
        if !field.isEmpty || !record.isEmpty { try endRecord() }
        guard let first = records.first else { throw InteropError.empty }
        header = first.map { $0.trimmingCharacters(in: .whitespaces) }
        rows = Array(records.dropFirst())
    }
}
