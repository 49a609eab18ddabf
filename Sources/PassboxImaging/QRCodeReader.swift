import Foundation
internal import CPNG
internal import CTurboJPEG
internal import CZbar

/// Finds QR codes in a PNG or JPEG file (a screenshot is enough) with libzbar.
public enum QRCodeReader {
    public struct ReadError: Error, Equatable, Sendable {
        public let message: String
        public let hint: String
    }

    /// The text of every QR code in the image, in the order zbar finds them.
    public static func decode(file path: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReadError(message: "cannot read the image \(path)", hint: "check the path and permissions")
        }
        let bytes = [UInt8](data)
        let image: GrayImage
        if bytes.starts(with: [0x89, 0x50, 0x4e, 0x47]) {
            image = try decodePNG(bytes)
        } else if bytes.starts(with: [0xff, 0xd8, 0xff]) {
            image = try decodeJPEG(bytes)
        } else {
            throw ReadError(message: "\(path) is not a PNG or JPEG image", hint: "save the QR code as a PNG or JPEG screenshot")
        }
        let codes = scan(image)
        guard !codes.isEmpty else {
            throw ReadError(message: "no QR code was found in \(path)", hint: "take a sharper screenshot that shows the whole code")
        }
        return codes
    }

    struct GrayImage {
        var width: Int
        var height: Int
        var pixels: [UInt8]
    }

    static let maximumPixels = 64_000_000

    static func decodePNG(_ bytes: [UInt8]) throws -> GrayImage {
        var image = png_image()
        image.version = UInt32(CPNG_imageVersion())
        guard bytes.withUnsafeBytes({ png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }) != 0 else {
            throw ReadError(message: "the PNG image is damaged", hint: "save the screenshot again")
        }
        defer { png_image_free(&image) }
        guard Int(image.width) * Int(image.height) <= maximumPixels else {
            throw ReadError(message: "the image is too large (\(image.width) × \(image.height))", hint: "crop the screenshot to the QR code")
        }
        image.format = UInt32(PNG_FORMAT_GRAY)
        var pixels = [UInt8](repeating: 0, count: Int(image.width) * Int(image.height))
        let ok = bytes.withUnsafeBytes { _ in
            pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
        }
        guard ok != 0 else { throw ReadError(message: "the PNG image is damaged", hint: "save the screenshot again") }
        return GrayImage(width: Int(image.width), height: Int(image.height), pixels: pixels)
    }

    static func decodeJPEG(_ bytes: [UInt8]) throws -> GrayImage {
        guard let handle = tjInitDecompress() else { throw ReadError(message: "the JPEG decoder could not start", hint: "") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        var mutableBytes = bytes
        let header = mutableBytes.withUnsafeMutableBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0, width > 0, height > 0 else {
            throw ReadError(message: "the JPEG image is damaged", hint: "save the screenshot again")
        }
        guard Int(width) * Int(height) <= maximumPixels else {
            throw ReadError(message: "the image is too large (\(width) × \(height))", hint: "crop the screenshot to the QR code")
        }
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height))
        let result = mutableBytes.withUnsafeMutableBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(handle, src.baseAddress, UInt(src.count), dst.baseAddress, width, 0, height, Int32(TJPF_GRAY.rawValue), 0)
            }
        }
        guard result == 0 else { throw ReadError(message: "the JPEG image is damaged", hint: "save the screenshot again") }
        return GrayImage(width: Int(width), height: Int(height), pixels: pixels)
    }

    static func scan(_ image: GrayImage) -> [String] {
        guard let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        guard let zimage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zimage) }
        // fourcc "Y800": 8-bit grayscale (zbar_fourcc is a macro).
        let y800 = UInt(UInt8(ascii: "Y")) | UInt(UInt8(ascii: "8")) << 8 | UInt(UInt8(ascii: "0")) << 16 | UInt(UInt8(ascii: "0")) << 24
        zbar_image_set_format(zimage, UInt(y800))
        zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        var results = [String]()
        image.pixels.withUnsafeBytes { raw in
            // No cleanup handler: the pixel buffer outlives the scan.
            zbar_image_set_data(zimage, raw.baseAddress, UInt(raw.count), nil)
            guard zbar_scan_image(scanner, zimage) > 0 else { return }
            var symbol = zbar_image_first_symbol(zimage)
            while let s = symbol {
                if let data = zbar_symbol_get_data(s) {
                    let length = Int(zbar_symbol_get_data_length(s))
                    results.append(String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self))
                }
                symbol = zbar_symbol_next(s)
            }
        }
        return results
    }
}
