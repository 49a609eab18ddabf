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

    /// Parses a whole document.
    static func parse(_ bytes: [UInt8]) throws -> XMLTree {
        // KeePass writes UTF-8 only; anything else is refused before libxml2 sees it.
        guard String(validating: bytes, as: UTF8.self) != nil else { throw InteropError.damaged(reason: "its XML is not UTF-8 text") }
        let builder = Builder()
        var callbacks = CXML_Callbacks(
            start: { context, name in Builder.from(context).start(String(cString: name!)) },
            attribute: { context, name, value in Builder.from(context).stack.last?.attributes[String(cString: name!)] = String(cString: value!) },
            end: { context in _ = Builder.from(context).stack.popLast() },
            text: { context, text in Builder.from(context).stack.last?.text += String(cString: text!) })
        var line: Int32 = 0
        let result = bytes.withUnsafeBufferPointer { b in
            withExtendedLifetime(builder) {
                CXML_parse(b.baseAddress, b.count, Int32(depthLimit), &callbacks, Unmanaged.passUnretained(builder).toOpaque(), &line)
            }
        }
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
