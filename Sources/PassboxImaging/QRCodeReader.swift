import Foundation
internal import CPNGSupport
internal import CTurboJPEGSupport
internal import CZbarSupport

/// Finds QR codes in a PNG or JPEG file (a screenshot is enough) with libzbar. libpng, libturbojpeg and libzbar
/// are loaded with dlopen on first use; a missing one is a `ReadError` that names it.
public enum QRCodeReader {
    /// Why an image gave no codes, as a reason and facts (worded by the surfaces: `qr.REASON`).
    public struct ReadError: Error, Equatable, Sendable {
        public let reason: String
        public let facts: [String: String]
        public init(_ reason: String, _ facts: [String: String] = [:]) {
            self.reason = reason
            self.facts = facts
        }
    }

    /// Loads libpng, libturbojpeg and libzbar now, and reads `modules` (a QR code's rows of "0" and "1") once,
    /// so whatever libzbar loads on its first scan (iconv's converters) is loaded too: a confined parse child
    /// can open nothing later. Returns the texts read (empty when a library is missing).
    @discardableResult
    public static func warmUp(modules rows: [String]) -> [String] {
        guard CPNG_available() != 0, CTurboJPEG_available() != 0, CZbar_available() != 0, !rows.isEmpty else { return [] }
        let scale = 4, side = (rows.count + 8) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for (y, row) in rows.enumerated() {
            for (x, module) in row.utf8.enumerated() where module == UInt8(ascii: "1") {
                for dy in 0..<scale {
                    let start = ((y + 4) * scale + dy) * side + (x + 4) * scale
                    for dx in 0..<scale { pixels[start + dx] = 0 }
                }
            }
        }
        return (try? scan(GrayImage(width: side, height: side, pixels: pixels))) ?? []
    }

    /// The text of every QR code in the image, in the order zbar finds them.
    public static func decode(file path: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReadError("cannotRead", ["path": path])
        }
        return try decode(bytes: [UInt8](data), name: path)
    }

    /// The text of every QR code in a PNG or JPEG image held in memory (`name` words the errors).
    public static func decode(bytes: [UInt8], name path: String) throws -> [String] {
        let image: GrayImage
        let photo = bytes.starts(with: [0xff, 0xd8, 0xff])
        if bytes.starts(with: [0x89, 0x50, 0x4e, 0x47]) {
            image = try decodePNG(bytes)
        } else if photo {
            image = try decodeJPEG(bytes)
        } else {
            throw ReadError("notAnImage", ["path": path])
        }
        var codes = try scan(image)
        // A second look at twice the size: zbar misses a code now and then in a blurred, turned photo of a page
        // (a printed backup taken with a phone), and, rarely, in a small scan or screenshot whose modules are two
        // or three pixels wide (one code of a 150-dpi page in one CI run; none in 360 pages since); what either pass
        // reads counts, each code once. A large scan (300 dpi) has room enough and is not looked at twice.
        if image.width * image.height <= (photo ? 8_000_000 : secondLookPixels) {
            for code in try scan(upscaled(image)) where !codes.contains(code) { codes.append(code) }
        }
        guard !codes.isEmpty else {
            throw ReadError("noCode", ["path": path])
        }
        return codes
    }

    struct GrayImage {
        var width: Int
        var height: Int
        var pixels: [UInt8]
    }

    static let maximumPixels = 64_000_000
    /// The largest PNG that gets the second look: a letter page at 150 dpi (1,275 × 1,650) and a full-HD
    /// screenshot get it, a page at 300 dpi does not.
    static let secondLookPixels = 4_000_000

    static func decodePNG(_ bytes: [UInt8], rgb: Bool = false) throws -> GrayImage {
        guard CPNG_available() != 0 else {
            throw ReadError("pngMissing")
        }
        var image = png_image()
        image.version = UInt32(CPNG_imageVersion())
        guard bytes.withUnsafeBytes({ CPNG_beginReadFromMemory(&image, $0.baseAddress, $0.count) }) != 0 else {
            throw ReadError("pngDamaged")
        }
        defer { CPNG_free(&image) }
        guard Int(image.width) * Int(image.height) <= maximumPixels else {
            throw ReadError("tooLarge", ["width": String(image.width), "height": String(image.height)])
        }
        image.format = rgb ? UInt32(PNG_FORMAT_RGB) : UInt32(PNG_FORMAT_GRAY)
        var pixels = [UInt8](repeating: 0, count: Int(image.width) * Int(image.height) * (rgb ? 3 : 1))
        let ok = bytes.withUnsafeBytes { _ in
            pixels.withUnsafeMutableBytes { CPNG_finishRead(&image, nil, $0.baseAddress, 0, nil) }
        }
        guard ok != 0 else { throw ReadError("pngDamaged") }
        return GrayImage(width: Int(image.width), height: Int(image.height), pixels: pixels)
    }

    static func decodeJPEG(_ bytes: [UInt8], rgb: Bool = false) throws -> GrayImage {
        guard CTurboJPEG_available() != 0 else {
            throw ReadError("jpegMissing")
        }
        guard let handle = CTurboJPEG_initDecompress() else { throw ReadError("jpegFailed") }
        defer { CTurboJPEG_destroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        var mutableBytes = bytes
        let header = mutableBytes.withUnsafeMutableBufferPointer {
            CTurboJPEG_decompressHeader(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0, width > 0, height > 0 else {
            throw ReadError("jpegDamaged")
        }
        guard Int(width) * Int(height) <= maximumPixels else {
            throw ReadError("tooLarge", ["width": String(width), "height": String(height)])
        }
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * (rgb ? 3 : 1))
        let result = mutableBytes.withUnsafeMutableBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                CTurboJPEG_decompress(handle, src.baseAddress, UInt(src.count), dst.baseAddress, width, 0, height, Int32((rgb ? TJPF_RGB : TJPF_GRAY).rawValue), 0)
            }
        }
        guard result == 0 else { throw ReadError("jpegDamaged") }
        return GrayImage(width: Int(width), height: Int(height), pixels: pixels)
    }

    /// The image at twice its width and height, each new pixel the mean of its neighbours (bilinear).
    static func upscaled(_ image: GrayImage) -> GrayImage {
        let (w, h) = (image.width, image.height)
        precondition(image.pixels.count == w * h, "a gray image holds one byte a pixel")
        var out = [UInt8](repeating: 0, count: 4 * w * h)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in CZbar_upscale2x(src.baseAddress, UInt32(w), UInt32(h), dst.baseAddress) }
        }
        return GrayImage(width: 2 * w, height: 2 * h, pixels: out)
    }

    /// The QR codes in a grayscale image, through libzbar (loaded on first use).
    static func scan(_ image: GrayImage) throws -> [String] {
        final class Found {
            var codes = [String]()
        }
        let found = Found()
        let context = Unmanaged.passRetained(found)
        defer { context.release() }
        let count = image.pixels.withUnsafeBufferPointer { pixels in
            CZbar_scanQR(pixels.baseAddress, UInt32(image.width), UInt32(image.height), { data, length, context in
                let found = Unmanaged<Found>.fromOpaque(context!).takeUnretainedValue()
                guard let data else { return }
                found.codes.append(String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self))
            }, context.toOpaque())
        }
        guard count >= 0 else {
            throw ReadError("zbarMissing")
        }
        return found.codes
    }
}
