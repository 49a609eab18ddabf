internal import CQRSupport
import Foundation

/// A QR code as its modules, for a surface that draws it itself (the web UI's two-factor setup): `size`
/// rows of `size` characters, "1" for a dark module; nil when libqrencode is missing.
public enum QRModules {
    public static func encode(_ text: String) -> (size: Int, rows: [String])? {
        var width: Int32 = 0
        guard let modules = CQR_encode(text, &width) else { return nil }
        defer { free(modules) }
        let n = Int(width)
        let rows = (0..<n).map { y in String((0..<n).map { modules[y * n + $0] == 1 ? "1" : "0" }) }
        return (n, rows)
    }
}
