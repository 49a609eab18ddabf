internal import CKitSupport
internal import CQRSupport
import Foundation

/// A PDF backup's pages (G58): its QR codes, four to a page (two by two, each module 2 points square, so a
/// 150 dpi scan or a phone's photo reads every one) with their numbers, and in plain text only
/// what the words given say (that it is a Passbox backup, its date, page and code counts, the hint). The
/// surface words them; this lays them out and draws them with cairo.
public enum BackupPDF {
    public enum Paper: String, Sendable, CaseIterable {
        case a4, letter
        var size: (width: Double, height: Double) { self == .a4 ? (595, 842) : (612, 792) }
    }

    public static let columns = 2, rows = 2
    public static var perPage: Int { columns * rows }

    public static func pageCount(codes: Int) -> Int { max(1, (codes + perPage - 1) / perPage) }

    /// Writes `codes` (their texts) to `path`. `heading(page, pages)` gives each page's lines (the first is
    /// the title), `label(number, total)` each code's caption.
    public static func write(
        codes: [String], paper: Paper, to path: String, heading: (Int, Int) -> [String], label: (Int, Int) -> String
    ) throws {
        let (width, height) = paper.size
        let margin = 36.0
        let pages = pageCount(codes: codes.count)
        var modules: [[UInt8]] = []
        var sides: [Int] = []
        for text in codes {
            var side: Int32 = 0
            guard let encoded = CQR_encode(text, &side) else {
                throw EmergencyKitError(reason: "libqrencode (libqrencode.so.4) could not be loaded, or a code is too long")
            }
            modules.append(Array(UnsafeBufferPointer(start: encoded, count: Int(side) * Int(side))))
            sides.append(Int(side))
            free(encoded)
        }
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer { strings.forEach { free($0) } }
        var pageTexts: [[CKit_Text]] = []
        var pageCodes: [[(x: Double, y: Double, size: Double, index: Int)]] = []
        // The heading's lines wrapped to the page (a long hint, even one without spaces, is never cut off).
        let usable = width - 2 * margin
        let headings = (1...pages).map { page in
            heading(page, pages).enumerated().flatMap { i, line in i == 0 ? [line] : EmergencyKit.wrap(line, size: 9.5, width: usable) }
        }
        let headerHeight = 30 + 15 * Double(headings.map(\.count).max() ?? 1)
        let cellWidth = (width - 2 * margin) / Double(columns)
        let cellHeight = (height - 2 * margin - headerHeight) / Double(rows)
        let codeSize = min(cellWidth, cellHeight - 16) - 8
        for page in 0..<pages {
            var texts: [CKit_Text] = []
            for (i, line) in headings[page].enumerated() {
                let s = strdup(line)!
                strings.append(s)
                texts.append(CKit_Text(x: margin, y: margin + 14 + Double(i) * 15, size: i == 0 ? 14 : 9.5, bold: i == 0 ? 1 : 0, monospace: 0, text: UnsafePointer(s)))
            }
            var placed: [(x: Double, y: Double, size: Double, index: Int)] = []
            for slot in 0..<perPage {
                let index = page * perPage + slot
                guard index < codes.count else { break }
                let x = margin + Double(slot % columns) * cellWidth + (cellWidth - codeSize) / 2
                let y = margin + headerHeight + Double(slot / columns) * cellHeight
                placed.append((x, y, codeSize, index))
                let caption = label(index + 1, codes.count)
                let s = strdup(caption)!
                strings.append(s)
                let captionWidth = CKit_textWidth(s, 8.5, 0, 0)
                texts.append(CKit_Text(x: x + (codeSize - captionWidth) / 2, y: y + codeSize + 11, size: 8.5, bold: 0, monospace: 0, text: UnsafePointer(s)))
            }
            pageTexts.append(texts)
            pageCodes.append(placed)
        }
        var error = [CChar](repeating: 0, count: 256)
        // Every buffer handed to C stays alive for the one call.
        let result: Int32 = withExtendedLifetime((modules, pageTexts)) {
            let textBuffers = pageTexts.map { texts -> UnsafeMutableBufferPointer<CKit_Text> in
                let b = UnsafeMutableBufferPointer<CKit_Text>.allocate(capacity: max(1, texts.count))
                _ = b.initialize(from: texts)
                return b
            }
            let moduleBuffers = modules.map { m -> UnsafeMutableBufferPointer<UInt8> in
                let b = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, m.count))
                _ = b.initialize(from: m)
                return b
            }
            let codeBuffers = pageCodes.map { placed -> UnsafeMutableBufferPointer<CKit_QR> in
                let b = UnsafeMutableBufferPointer<CKit_QR>.allocate(capacity: max(1, placed.count))
                for (i, p) in placed.enumerated() {
                    b[i] = CKit_QR(x: p.x, y: p.y, size: p.size, modules: Int32(sides[p.index]), data: UnsafePointer(moduleBuffers[p.index].baseAddress))
                }
                return b
            }
            defer {
                textBuffers.forEach { $0.deallocate() }
                moduleBuffers.forEach { $0.deallocate() }
                codeBuffers.forEach { $0.deallocate() }
            }
            var cPages = [CKit_Page]()
            for p in 0..<pages {
                // Spelled out: as one closure this took the type checker over 4 s.
                let texts: UnsafePointer<CKit_Text>? = UnsafePointer(textBuffers[p].baseAddress)
                let codes: UnsafePointer<CKit_QR>? = UnsafePointer(codeBuffers[p].baseAddress)
                cPages.append(CKit_Page(texts: texts, textCount: Int32(pageTexts[p].count), codes: codes, codeCount: Int32(pageCodes[p].count)))
            }
            return cPages.withUnsafeBufferPointer { CKit_writePages(path, width, height, $0.baseAddress, Int32(pages), &error) }
        }
        guard result == 0 else {
            throw EmergencyKitError(reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }
}
