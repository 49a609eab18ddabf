import Foundation

/// A fresh 0700 directory under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked: `url` is immutable after init.
    public let url: URL

    public init(_ label: String = "passbox-test") throws {
        let base = FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    public var path: String { url.path }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
