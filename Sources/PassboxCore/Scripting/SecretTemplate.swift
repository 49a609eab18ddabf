/// A template for `passbox inject`: text with `{{ passbox://… }}` references, split once so each reference can be
/// resolved and the whole written only when every one resolved.
public struct SecretTemplate: Sendable, Equatable {
    public enum Segment: Sendable, Equatable {
        case text(String)
        /// A `passbox://` reference, without the braces and spaces around it.
        case reference(String)
    }

    public let segments: [Segment]

    /// The references, in order (repeats included).
    public var references: [String] {
        segments.compactMap { if case .reference(let r) = $0 { r } else { nil } }
    }

    /// Splits `text`: a reference is `{{`, optional white space, `passbox://` and at least one character that is
    /// neither white space nor `}`, optional white space, `}}`. Anything else is text, kept as written.
    public init(parsing text: String) {
        let scalars = Array(text.unicodeScalars)
        let scheme = Array(SecretReference.scheme.unicodeScalars)
        func isSpace(_ s: Unicode.Scalar) -> Bool { s.properties.isWhitespace }
        var segments = [Segment]()
        var literal = String.UnicodeScalarView()
        var i = 0
        func reference(at start: Int) -> (String, end: Int)? {
            guard start + 1 < scalars.count, scalars[start] == "{", scalars[start + 1] == "{" else { return nil }
            var j = start + 2
            while j < scalars.count, isSpace(scalars[j]) { j += 1 }
            guard scalars[j...].starts(with: scheme) else { return nil }
            let referenceStart = j
            j += scheme.count
            let bodyStart = j
            while j < scalars.count, !isSpace(scalars[j]), scalars[j] != "}" { j += 1 }
            guard j > bodyStart else { return nil }
            let referenceEnd = j
            while j < scalars.count, isSpace(scalars[j]) { j += 1 }
            guard j + 1 < scalars.count, scalars[j] == "}", scalars[j + 1] == "}" else { return nil }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[referenceStart..<referenceEnd])
            return (String(view), j + 2)
        }
        while i < scalars.count {
            if let (found, end) = reference(at: i) {
                if !literal.isEmpty { segments.append(.text(String(literal))) }
                literal = String.UnicodeScalarView()
                segments.append(.reference(found))
                i = end
            } else {
                literal.append(scalars[i])
                i += 1
            }
        }
        if !literal.isEmpty { segments.append(.text(String(literal))) }
        self.segments = segments
    }

    /// The text with each reference replaced by `resolve(reference)`; the first error stops it.
    public func rendered<E: Error>(_ resolve: (String) throws(E) -> String) throws(E) -> String {
        var out = ""
        for segment in segments {
            switch segment {
            case .text(let t): out += t
            case .reference(let r): out += try resolve(r)
            }
        }
        return out
    }
}
