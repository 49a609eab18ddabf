// Fuzz target: the QR reader's PNG and JPEG decoding and the zbar scan (PassboxImaging).
@testable import PassboxImaging

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // The same dispatch as QRCodeReader.decode(file:), without the file.
    let image: QRCodeReader.GrayImage?
    if bytes.starts(with: [0x89, 0x50, 0x4e, 0x47]) {
        image = try? QRCodeReader.decodePNG(bytes)
    } else if bytes.starts(with: [0xff, 0xd8, 0xff]) {
        image = try? QRCodeReader.decodeJPEG(bytes)
    } else {
        image = nil
    }
    if let image { _ = try? QRCodeReader.scan(image) }
    return 0
}
