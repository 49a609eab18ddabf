import Foundation

/// The operations table of docs/PROTOCOL.md, generated from the registry (a test fails when the file's copy
/// is stale; `make protocol-doc` writes it).
public enum OperationsDocument {
    public static let begin = "<!-- generated from Sources/PassboxProtocol/Operations.swift by `make protocol-doc`: edit there, not here -->"
    public static let end = "<!-- end of the generated operations -->"

    /// The table: one row per operation, in registry order.
    public static func markdown(_ registry: OperationRegistry = .current) -> String {
        var lines = [
            begin, "",
            "Generation \(registry.version) has \(registry.specs.count) operations. The web page may call \(registry.allowed(on: .web).count) of them.", "",
            "| op | since | surfaces | vault | request body | reply |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for spec in registry.specs {
            let cells = [
                "`\(spec.name.rawValue)`", String(spec.since), spec.surfaces.names.joined(separator: ", "), spec.needsVault ? "yes" : "",
                spec.request.isEmpty ? "—" : spec.request, spec.reply,
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines += ["", end]
        return lines.joined(separator: "\n")
    }

    /// `document` with its generated part replaced by `markdown()`; nil when it has no such part.
    public static func updating(_ document: String, registry: OperationRegistry = .current) -> String? {
        guard let from = document.range(of: begin), let to = document.range(of: end, range: from.upperBound..<document.endIndex) else { return nil }
        return document.replacingCharacters(in: from.lowerBound..<to.upperBound, with: markdown(registry))
    }
}
