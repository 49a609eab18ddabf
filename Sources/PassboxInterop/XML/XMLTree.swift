import Foundation
internal import CXMLSupport

/// An XML element read whole: name, attributes, text and children in document order. Read with libxml2's
/// streaming reader (loaded on first use): no network, no external entity, no DTD; a document's own entities,
/// nesting deeper than `depthLimit` and malformed XML are refused.
final class XMLTree {
    let name: String
    var attributes: [String: String] = [:]
    var text = ""
    var children: [XMLTree] = []

    /// KeePass nests groups a few levels deep; 200 leaves room and keeps recursion shallow.
    static let depthLimit = 200

    init(name: String) {
        self.name = name
    }

    func child(_ name: String) -> XMLTree? { children.first { $0.name == name } }
    func children(_ name: String) -> [XMLTree] { children.filter { $0.name == name } }

    /// Parses a whole document. `closing` sees each element as it closes (whole, its children read), in
    /// document order, with the elements it is inside, outermost first (empty for the root); when it answers
    /// true the element is taken out of its parent, so a caller that turns elements into values as they close
    /// (a KeePass entry) never holds the whole document as a tree. An error it throws ends the parse with it.
    static func parse(_ bytes: [UInt8], closing: ((XMLTree, [XMLTree]) throws -> Bool)? = nil) throws -> XMLTree {
        // KeePass writes UTF-8 only; anything else is refused before libxml2 sees it.
        guard isUTF8(bytes) else { throw InteropError.damaged(reason: "its XML is not UTF-8 text") }
        guard let closing else { return try parse(bytes, builder: Builder(closing: nil)) }
        return try withoutActuallyEscaping(closing) { try parse(bytes, builder: Builder(closing: $0)) }
    }

    /// Whether `bytes` are UTF-8, checked 64 KiB at a time (cut between characters) so that no copy of a
    /// document of many mebibytes is made just to be checked and thrown away.
    static func isUTF8(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            let window = 1 << 16
            var start = 0
            while start < b.count {
                var end = min(start + window, b.count)
                // Back up over continuation bytes (a character has at most three) to the start of a character.
                var backed = 0
                while end < b.count, backed < 3, end > start, b[end] & 0xC0 == 0x80 {
                    end -= 1
                    backed += 1
                }
                guard end > start, String(validating: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self) != nil else { return false }
                start = end
            }
            return true
        }
    }

    private static func parse(_ bytes: [UInt8], builder: Builder) throws -> XMLTree {
        var callbacks = CXML_Callbacks(
            start: { context, name in Builder.from(context).start(String(cString: name!)) },
            attribute: { context, name, value in Builder.from(context).stack.last?.attributes[String(cString: name!)] = String(cString: value!) },
            end: { context in Builder.from(context).end() },
            text: { context, text in Builder.from(context).stack.last?.text += String(cString: text!) })
        var line: Int32 = 0
        let result = bytes.withUnsafeBufferPointer { b in
            withExtendedLifetime(builder) {
                CXML_parse(b.baseAddress, b.count, Int32(depthLimit), &callbacks, Unmanaged.passUnretained(builder).toOpaque(), &line)
            }
        }
        if let failure = builder.failure { throw failure }
        switch result {
        case 0: break
        case -1: throw InteropError.unsupported(what: "XML without libxml2 (apt-get install libxml2)")
        case -3: throw InteropError.damaged(reason: "its XML is nested deeper than \(depthLimit) levels")
        case -4: throw InteropError.damaged(reason: "its XML declares entities of its own")
        case -5: throw InteropError.damaged(reason: "its XML has a document type declaration, which KeePass never writes")
        default: throw InteropError.damaged(reason: line > 0 ? "its XML is malformed (line \(line))" : "its XML is malformed")
        }
        guard let root = builder.root, builder.stack.isEmpty, !builder.extraRoot else { throw InteropError.damaged(reason: "its XML is malformed") }
        return root
    }

    private final class Builder {
        var root: XMLTree?
        var stack: [XMLTree] = []
        var extraRoot = false
        let closing: ((XMLTree, [XMLTree]) throws -> Bool)?
        /// The first error `closing` threw; later elements are no longer shown to it.
        var failure: Error?

        init(closing: ((XMLTree, [XMLTree]) throws -> Bool)?) { self.closing = closing }

        func end() {
            guard let node = stack.popLast(), let closing, failure == nil else { return }
            do {
                // A closing element is its parent's last child: later siblings start after it ends.
                if try closing(node, stack), let parent = stack.last { parent.children.removeLast() }
            } catch {
                failure = error
            }
        }

        static func from(_ context: UnsafeMutableRawPointer?) -> Builder { Unmanaged<Builder>.fromOpaque(context!).takeUnretainedValue() }

        func start(_ name: String) {
            let node = XMLTree(name: name)
            if let parent = stack.last {
                parent.children.append(node)
            } else if root == nil {
                root = node
            } else {
                extraRoot = true
            }
            stack.append(node)
        }
    }
}

/// Writes XML text with the five predefined entities escaped, and characters XML 1.0 cannot hold left out.
struct XMLWriter {
    private(set) var output = #"<?xml version="1.0" encoding="utf-8" standalone="yes"?>"# + "\n"
    private var open: [String] = []

    mutating func start(_ name: String, _ attributes: [(String, String)] = []) {
        output += "<" + name
        for (k, v) in attributes { output += " \(k)=\"\(Self.escape(v))\"" }
        output += ">"
        open.append(name)
    }

    mutating func end() {
        output += "</\(open.removeLast())>"
    }

    /// `<name attributes>text</name>`.
    mutating func element(_ name: String, _ text: String, _ attributes: [(String, String)] = []) {
        start(name, attributes)
        output += Self.escape(text)
        end()
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                // XML 1.0 has no way to write other control characters, nor U+FFFE/U+FFFF.
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
