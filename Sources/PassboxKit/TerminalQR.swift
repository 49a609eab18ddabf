import Foundation

/// A QR code drawn with block characters, two module rows per text line, with the quiet zone around it;
/// nil when libqrencode is missing.
public enum TerminalQR {
    public static func render(_ text: String) -> String? {
        guard let (n, rows) = QRModules.encode(text) else { return nil }
        let modules = rows.map { $0.utf8.map { $0 == UInt8(ascii: "1") } }
        let quiet = 2
        func dark(_ x: Int, _ y: Int) -> Bool {
            x >= 0 && y >= 0 && x < n && y < n && modules[y][x]
        }
        // Light text on a dark terminal is the common case, so dark modules are drawn as spaces inside a
        // light field (full blocks), which phone cameras read either way.
        var lines: [String] = []
        var y = -quiet
        while y < n + quiet {
            var line = ""
            for x in -quiet..<(n + quiet) {
                switch (dark(x, y), dark(x, y + 1)) {
                case (false, false): line += "█"
                case (true, false): line += "▄"
                case (false, true): line += "▀"
                case (true, true): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }
}
