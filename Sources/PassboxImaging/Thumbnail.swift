internal import CPNGSupport
internal import CTurboJPEGSupport

/// An image attachment's thumbnail, made in the agent: the PNG or JPEG decoded to RGB (libpng, libjpeg-turbo),
/// shrunk by averaging the pixels each thumbnail pixel covers, and written as a JPEG (libjpeg-turbo). The caller
/// encrypts it like any attachment. Decoding needs the whole image in memory (width × height × 3 bytes), so
/// only images of at most `maximumPixels` get one.
public enum Thumbnail {
    /// The longer side of a thumbnail, in pixels.
    public static let side = 320
    /// Larger images get no thumbnail (their decoding would need over 120 MB).
    public static let maximumPixels = 40_000_000

    /// The thumbnail of a PNG or JPEG file's bytes, or nil when it is neither, is damaged or too large, or the
    /// libraries are missing (a thumbnail is never needed: the full image still opens).
    public static func make(_ bytes: [UInt8]) -> [UInt8]? {
        let isPNG = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47])
        let isJPEG = bytes.starts(with: [0xFF, 0xD8, 0xFF])
        guard isPNG || isJPEG, let image = try? (isPNG ? QRCodeReader.decodePNG(bytes, rgb: true) : QRCodeReader.decodeJPEG(bytes, rgb: true)) else { return nil }
        guard image.width > 0, image.height > 0, image.width * image.height <= maximumPixels else { return nil }
        let small = shrink(image)
        return encodeJPEG(small)
    }

    /// Area averaging: each thumbnail pixel is the mean of the source pixels it covers (no upscaling).
    static func shrink(_ image: QRCodeReader.GrayImage) -> QRCodeReader.GrayImage {
        let scale = max(1, Double(max(image.width, image.height)) / Double(side))
        let width = max(1, Int((Double(image.width) / scale).rounded()))
        let height = max(1, Int((Double(image.height) / scale).rounded()))
        guard width < image.width || height < image.height else { return image }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        image.pixels.withUnsafeBufferPointer { src in
            for y in 0..<height {
                let y0 = y * image.height / height, y1 = max(y0 + 1, (y + 1) * image.height / height)
                for x in 0..<width {
                    let x0 = x * image.width / width, x1 = max(x0 + 1, (x + 1) * image.width / width)
                    var sum = (0, 0, 0)
                    for sy in y0..<y1 {
                        var i = (sy * image.width + x0) * 3
                        for _ in x0..<x1 {
                            sum.0 += Int(src[i])
                            sum.1 += Int(src[i + 1])
                            sum.2 += Int(src[i + 2])
                            i += 3
                        }
                    }
                    let n = (y1 - y0) * (x1 - x0)
                    let o = (y * width + x) * 3
                    out[o] = UInt8(sum.0 / n)
                    out[o + 1] = UInt8(sum.1 / n)
                    out[o + 2] = UInt8(sum.2 / n)
                }
            }
        }
        return QRCodeReader.GrayImage(width: width, height: height, pixels: out)
    }

    static func encodeJPEG(_ image: QRCodeReader.GrayImage) -> [UInt8]? {
        guard let handle = CTurboJPEG_initCompress() else { return nil }
        defer { CTurboJPEG_destroy(handle) }
        var jpeg: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = image.pixels.withUnsafeBufferPointer {
            CTurboJPEG_compress(handle, $0.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGB.rawValue), &jpeg, &size, Int32(TJSAMP_420.rawValue), 80, 0)
        }
        guard result == 0, let jpeg, size > 0 else { return nil }
        defer { CTurboJPEG_free(jpeg) }
        return Array(UnsafeBufferPointer(start: jpeg, count: Int(size)))
    }
}
