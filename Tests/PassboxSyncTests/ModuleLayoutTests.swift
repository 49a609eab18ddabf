import Foundation
import Testing

/// The server never reaches the vault's code (issue 29): `PassboxServer`'s dependency closure, read from
/// Package.swift, holds no `PassboxCore`; it checks manifests through `PassboxManifest`, which imports only
/// crypto.
struct ModuleLayoutTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Package.swift")

    /// Each target's direct dependencies, as Package.swift names them.
    static func dependencies() throws -> [String: [String]] {
        let text = try String(contentsOf: package, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"name:\s*"([^"]+)",\s*dependencies:\s*\[([^\]]*)\]"#)
        var graph: [String: [String]] = [:]
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let name = Range(match.range(at: 1), in: text), let list = Range(match.range(at: 2), in: text) else { continue }
            graph[String(text[name])] = text[list].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }.filter { !$0.isEmpty }
        }
        return graph
    }

    static func closure(of target: String, in graph: [String: [String]]) -> Set<String> {
        var seen = Set<String>(), stack = [target]
        while let next = stack.popLast() {
            for dependency in graph[next] ?? [] where seen.insert(dependency).inserted { stack.append(dependency) }
        }
        return seen
    }

    @Test func theServerDoesNotDependOnTheVaultsCode() throws {
        let graph = try Self.dependencies()
        let server = Self.closure(of: "PassboxServer", in: graph)
        #expect(server.contains("PassboxManifest") && server.contains("PassboxCrypto"), "the layout was read: \(server.sorted())")
        #expect(!server.contains("PassboxCore"), "PassboxServer reaches PassboxCore through \(server.sorted())")
        #expect(Self.closure(of: "PassboxManifest", in: graph).isSubset(of: Self.closure(of: "PassboxCrypto", in: graph).union(["PassboxCrypto"])))
        // The checker itself: the service does reach Core.
        #expect(Self.closure(of: "PassboxService", in: graph).contains("PassboxCore"))
    }
}
