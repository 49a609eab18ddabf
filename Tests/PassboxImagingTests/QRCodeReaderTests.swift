import Foundation
@testable import PassboxImaging
import PassboxTestKit
import Testing

@Suite struct QRCodeReaderTests {
    func path(_ name: String) throws -> String {
        try #require(Bundle.module.url(forResource: "Images/\(name)", withExtension: nil)).path
    }

    /// The second look's doubling (in C): each new pixel the mean of its up to four neighbours, the last row and
    /// column their own neighbours.
    @Test func theSecondLookDoublesAnImageBilinearly() {
        let image = QRCodeReader.GrayImage(width: 3, height: 2, pixels: [0, 100, 200, 40, 40, 255])
        let big = QRCodeReader.upscaled(image)
        #expect(big.width == 6 && big.height == 4)
        #expect(big.pixels == [
            0, 50, 100, 150, 200, 200,
            20, 45, 70, 148, 227, 227,
            40, 40, 40, 147, 255, 255,
            40, 40, 40, 147, 255, 255,
        ])
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

    /// A PNG whose header claims 20,000 × 20,000 pixels (400 megapixels) is refused from its header, before any
    /// pixel buffer is made: the file is a few dozen bytes, the decoded image would be 400 MB.
    @Test func anOversizedImageIsRefusedBeforeDecoding() throws {
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                c ^= UInt32(b)
                for _ in 0..<8 { c = (c >> 1) ^ (0xEDB8_8320 & (0 &- (c & 1))) }
            }
            return ~c
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be(UInt32(data.count)) + body + be(crc32(body))
        }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        let ihdr = be(20_000) + be(20_000) + [8, 0, 0, 0, 0]  // 8-bit grayscale
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
        let dir = try TemporaryDirectory()
        try Data(png).write(to: dir.file("huge.png"))
        do {
            _ = try QRCodeReader.decode(file: dir.file("huge.png").path)
            Issue.record("a 400-megapixel image was decoded")
        } catch let e as QRCodeReader.ReadError {
            #expect(e.reason == "tooLarge" && e.facts["width"] != nil && e.facts["height"] != nil, "\(e)")
        }
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
