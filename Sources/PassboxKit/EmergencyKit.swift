internal import CKitSupport
import Foundation

/// The Emergency Kit's one page, already worded in the user's language (the surface words it; this lays it
/// out and draws it with cairo).
public struct EmergencyKitPage: Sendable {
    public var title: String
    public var introduction: String
    /// Server, email, account id, Secret Key…: each label above its value; `emphasised` values (the Secret
    /// Key) are set in a monospace box, on one line, never cut or wrapped.
    public var fields: [(label: String, value: String, emphasised: Bool)]
    public var passwordLabel: String
    public var created: String
    public var stepsTitle: String
    public var steps: [String]
    public var footer: String

    public init(
        title: String, introduction: String, fields: [(label: String, value: String, emphasised: Bool)], passwordLabel: String, created: String,
        stepsTitle: String, steps: [String], footer: String
    ) {
        self.title = title
        self.introduction = introduction
        self.fields = fields
        self.passwordLabel = passwordLabel
        self.created = created
        self.stepsTitle = stepsTitle
        self.steps = steps
        self.footer = footer
    }
}

public struct EmergencyKitError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

/// Writes the Emergency Kit as a one-page A4 PDF (cairo, loaded on first use).
public enum EmergencyKit {
    static let width = 595.0, height = 842.0, margin = 56.0

    public static func write(_ page: EmergencyKitPage, to path: String) throws {
        var texts: [(Double, Double, Double, Bool, Bool, String)] = []
        var boxes: [CKit_Box] = []
        let usable = width - 2 * margin
        var y = margin + 30
        texts.append((margin, y, 24, true, false, page.title))
        y += 28
        for line in wrap(page.introduction, size: 10.5, width: usable) {
            texts.append((margin, y, 10.5, false, false, line))
            y += 15
        }
        y += 18
        for field in page.fields {
            texts.append((margin, y, 9.5, true, false, field.label))
            y += field.emphasised ? 32 : 20
            if field.emphasised {
                // The whole key on one line: the font shrinks until it fits, it is never wrapped or cut.
                var size = 17.0
                while size > 8, CKit_textWidth(field.value, size, 1, 1) > usable - 24 { size -= 0.5 }
                boxes.append(CKit_Box(x: margin, y: y - size - 6, width: usable, height: size + 16))
                texts.append((margin + 12, y, size, true, true, field.value))
                y += 34
            } else {
                texts.append((margin, y, 13, false, false, field.value))
                y += 26
            }
        }
        y += 4
        texts.append((margin, y, 9.5, true, false, page.passwordLabel))
        y += 30
        boxes.append(CKit_Box(x: margin, y: y, width: usable, height: 0))
        y += 34
        texts.append((margin, y, 9.5, false, false, page.created))
        y += 34
        texts.append((margin, y, 13, true, false, page.stepsTitle))
        y += 22
        for (index, step) in page.steps.enumerated() {
            let lines = wrap(step, size: 10.5, width: usable - 20)
            texts.append((margin, y, 10.5, true, false, "\(index + 1)."))
            for line in lines {
                texts.append((margin + 20, y, 10.5, false, false, line))
                y += 15
            }
            y += 6
        }
        let footerLines = wrap(page.footer, size: 9, width: usable)
        var footerY = height - margin - Double(footerLines.count - 1) * 12
        for line in footerLines {
            texts.append((margin, footerY, 9, false, false, line))
            footerY += 12
        }

        let cStrings = texts.map { strdup($0.5) }
        defer { cStrings.forEach { free($0) } }
        let cTexts = texts.enumerated().map { i, t in
            CKit_Text(x: t.0, y: t.1, size: t.2, bold: t.3 ? 1 : 0, monospace: t.4 ? 1 : 0, text: UnsafePointer(cStrings[i]))
        }
        var error = [CChar](repeating: 0, count: 256)
        let result = cTexts.withUnsafeBufferPointer { t in
            boxes.withUnsafeBufferPointer { b in
                CKit_writePDF(path, width, height, t.baseAddress, Int32(t.count), b.baseAddress, Int32(b.count), &error)
            }
        }
        guard result == 0 else {
            throw EmergencyKitError(reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// `text` in lines no wider than `width` at `size`, broken between words, and inside a word that is
    /// wider than a line on its own (a backup's hint written without spaces is never cut off).
    static func wrap(_ text: String, size: Double, width: Double) -> [String] {
        var lines: [String] = []
        var current = ""
        func fits(_ s: String) -> Bool { CKit_textWidth(s, size, 0, 0) <= width }
        for word in text.split(separator: " ") {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if current.isEmpty || fits(candidate) {
                current = candidate
            } else {
                lines.append(current)
                current = String(word)
            }
            while !fits(current), current.count > 1 {
                // The longest head of the word that fits is a line of its own.
                var head = ""
                for character in current {
                    if !head.isEmpty, !fits(head + String(character)) { break }
                    head.append(character)
                }
                guard head.count < current.count else { break }
                lines.append(head)
                current.removeFirst(head.count)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
