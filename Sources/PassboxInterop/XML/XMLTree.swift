import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An XML element read whole: name, attributes, text and children in document order. Read with Foundation's
/// XMLParser (libxml2), which resolves no external entity and refuses entities that expand without bound;
/// elements nested deeper than `depthLimit` are refused here (the tree is walked recursively).
final class XMLTree {
    let name: String
    var attributes: [String: String]
    var text = ""
    var children: [XMLTree] = []

    /// KeePass nests groups a few levels deep; 200 leaves room and keeps recursion shallow.
    static let depthLimit = 200

    init(name: String, attributes: [String: String] = [:]) {
        self.name = name
        self.attributes = attributes
    }

    func child(_ name: String) -> XMLTree? { children.first { $0.name == name } }
    func children(_ name: String) -> [XMLTree] { children.filter { $0.name == name } }

    /// Parses a whole document; a malformed one is damage, with libxml2's line number.
    static func parse(_ bytes: [UInt8]) throws -> XMLTree {
        // Foundation's parser traps on an element name that is not UTF-8 (found by the mutation test), so
        // bytes that are not UTF-8 never reach it. KeePass writes UTF-8 only.
        guard String(validating: bytes, as: UTF8.self) != nil else { throw InteropError.damaged(reason: "its XML is not UTF-8 text") }
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let builder = Builder()
        parser.delegate = builder
        let parsed = parser.parse()
        guard !builder.tooDeep else { throw InteropError.damaged(reason: "its XML is nested deeper than \(depthLimit) levels") }
        guard parsed, let root = builder.root, builder.stack.isEmpty else {
            throw InteropError.damaged(reason: "its XML is malformed (line \(parser.lineNumber))")
        }
        return root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: XMLTree?
        var stack: [XMLTree] = []
        var tooDeep = false

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            guard stack.count < XMLTree.depthLimit else {
                tooDeep = true
                parser.abortParsing()
                return
            }
            let node = XMLTree(name: name, attributes: attributes)
            if let parent = stack.last {
                parent.children.append(node)
            } else if root == nil {
                root = node
            } else {
                parser.abortParsing()
            }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, foundCDATA data: Data) {
            stack.last?.text += String(decoding: data, as: UTF8.self)
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
