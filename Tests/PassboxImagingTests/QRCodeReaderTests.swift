import Foundation
import PassboxImaging
import PassboxTestSupport
import Testing

@Suite struct QRCodeReaderTests {
    func path(_ name: String) throws -> String {
        try #require(Bundle.module.url(forResource: "Images/\(name)", withExtension: nil)).path
    }

    @Test func readsAPNGCode() throws {
        #expect(try QRCodeReader.decode(file: path("totp.png")) == ["otpauth://totp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example&algorithm=SHA1&digits=6&period=30"])
    }

    @Test func readsAJPEGScreenshot() throws {
        #expect(try QRCodeReader.decode(file: path("screenshot.jpg")).first?.hasPrefix("otpauth://totp/Example:") == true)
    }

    @Test func readsAGoogleAuthenticatorExport() throws {
        let expected = try String(contentsOfFile: path("migration.txt"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try QRCodeReader.decode(file: path("migration.png")) == [expected])
    }

    @Test func sayWhatIsWrong() throws {
        #expect(throws: QRCodeReader.ReadError.self) { try QRCodeReader.decode(file: path("blank.png")) }
        #expect(throws: QRCodeReader.ReadError.self) { try QRCodeReader.decode(file: path("migration.txt")) }
        #expect(throws: QRCodeReader.ReadError.self) { try QRCodeReader.decode(file: "/nonexistent.png") }
        let dir = try TemporaryDirectory()
        var png = Array(try Data(contentsOf: URL(fileURLWithPath: path("totp.png"))))
        png.removeLast(png.count / 2)
        try Data(png).write(to: dir.file("cut.png"))
        #expect(throws: QRCodeReader.ReadError.self) { try QRCodeReader.decode(file: dir.file("cut.png").path) }
    }

    /// Random otpauth links drawn by qrencode (an independent encoder) read back exactly.
    @Test func readsWhatQrencodeDraws() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/qrencode") else {
            Issue.record("qrencode is not installed (Debian package qrencode; make test installs it)")
            return
        }
        let dir = try TemporaryDirectory()
        for i in 0..<10 {
            let text = "otpauth://totp/Issuer\(i):user\(i)@example.com?secret=\(Hex.string(PassboxCryptoShim.random(10)).uppercased())&period=\(30 + i)"
            let file = dir.file("q\(i).png").path
            let r = try Transcript.execute("/usr/bin/qrencode", ["-o", file, text], stdin: [], environment: [:])
            #expect(r.status == 0)
            #expect(try QRCodeReader.decode(file: file) == [text])
        }
    }
}

enum PassboxCryptoShim {
    static func random(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255) } }
}
