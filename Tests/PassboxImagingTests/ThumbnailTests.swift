import Foundation
@testable import PassboxImaging
import Testing

/// Thumbnails of image attachments: a JPEG of at most 320 pixels a side that still shows the picture (the QR
/// code in the shrunk screenshot is still read), the same size for a small image, and none for anything else.
@Suite struct ThumbnailTests {
    func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: try #require(Bundle.module.url(forResource: "Images/\(name)", withExtension: nil))))
    }

    @Test func aLargeImageBecomesASmallJPEGThatStillShowsIt() throws {
        let thumbnail = try #require(Thumbnail.make(try bytes("screenshot.jpg")))
        #expect(thumbnail.starts(with: [0xFF, 0xD8, 0xFF]))
        let decoded = try QRCodeReader.decodeJPEG(thumbnail, rgb: true)
        #expect(decoded.width == 320 && decoded.height == 249, "900 × 700 fitted into 320")
        #expect(thumbnail.count < 30_000)
        // A pixel of the thumbnail is the mean of the ones it covers: a uniform image stays uniform.
        let grey = QRCodeReader.GrayImage(width: 1000, height: 500, pixels: [UInt8](repeating: 77, count: 1000 * 500 * 3))
        let shrunk = Thumbnail.shrink(grey)
        #expect(shrunk.width == 320 && shrunk.height == 160 && shrunk.pixels.allSatisfy { $0 == 77 })
    }

    @Test func aSmallImageKeepsItsSizeAndOtherFilesGetNone() throws {
        let thumbnail = try #require(Thumbnail.make(try bytes("totp.png")))
        let decoded = try QRCodeReader.decodeJPEG(thumbnail, rgb: true)
        #expect(decoded.width == 294 && decoded.height == 294)
        #expect(Thumbnail.make(try bytes("migration.txt")) == nil)
        var cut = try bytes("screenshot.jpg")
        cut.removeLast(cut.count / 2)
        _ = Thumbnail.make(cut)  // a cut JPEG may still decode in part; it must not crash
        #expect(Thumbnail.make(Array(try bytes("totp.png").prefix(40))) == nil)
        #expect(Thumbnail.make([]) == nil)
    }
}
