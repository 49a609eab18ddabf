import Foundation
import PassboxCore
import PassboxCrypto

/// The opt-in breached-password check with k-anonymity: only the first five hex characters of each
/// password's SHA-1 leave the device, with `Add-Padding: true` so response sizes say nothing; suffixes are
/// compared here, and padding lines (count 0) never match.
public struct PwnedPasswordsClient: Sendable {
    /// The public range API; a setting, so a self-hosted mirror or a test server can stand in.
    public static let defaultRangeURL = "https://api.pwnedpasswords.com/range/"

    public let rangeURL: String
    public let timeout: TimeInterval
    public let maximumConcurrentRequests: Int

    public init(rangeURL: String = PwnedPasswordsClient.defaultRangeURL, timeout: TimeInterval = 15, maximumConcurrentRequests: Int = 6) {
        self.rangeURL = rangeURL.hasSuffix("/") ? rangeURL : rangeURL + "/"
        self.timeout = timeout
        self.maximumConcurrentRequests = maximumConcurrentRequests
    }

    public struct CheckError: Error, Equatable, Sendable {
        public let message: String
        public let hint: String
    }

    /// SHA-1 of a password as 40 upper-case hex characters.
    public static func sha1Hex(_ password: String) -> String {
        Hash.sha1(Array(password.utf8)).map { String(format: "%02X", $0) }.joined()
    }

    /// How often each password appears in the breach corpus (0 when not found).
    public func occurrences(of passwords: [String]) throws -> [String: Int] {
        let hashes = Dictionary(passwords.map { (Self.sha1Hex($0), $0) }, uniquingKeysWith: { a, _ in a })
        let prefixes = Set(hashes.keys.map { String($0.prefix(5)) })
        let results = RangeResults()
        let group = DispatchGroup()
        let slots = DispatchSemaphore(value: maximumConcurrentRequests)
        let queue = DispatchQueue(label: "passbox.range", attributes: .concurrent)
        for prefix in prefixes.sorted() {
            let url = rangeURL + prefix
            guard let host = URL(string: url)?.host, ["http", "https"].contains(URL(string: url)?.scheme ?? "") else {
                throw CheckError(message: "the range service address \"\(rangeURL)\" is not an http(s) URL", hint: "set it with \"passbox check settings range-url URL\"")
            }
            slots.wait()
            group.enter()
            queue.async { [timeout] in
                defer {
                    slots.signal()
                    group.leave()
                }
                do {
                    let answer = try HTTPGet.get(url, headers: ["Add-Padding: true", "User-Agent: Passbox"], timeoutSeconds: Int(timeout.rounded(.up)), limit: 4 << 20)
                    guard answer.status == 200 else {
                        results.fail(CheckError(message: "the range service answered \(answer.status) for a query", hint: "try again later; nothing was changed"))
                        return
                    }
                    results.add(prefix: prefix, body: String(decoding: answer.body, as: UTF8.self))
                } catch let error as HTTPGet.Failure {
                    results.fail(CheckError(message: "could not reach the range service at \(host): \(error.description)", hint: "check the network connection (or the address in passbox check settings) and try again; nothing was changed"))
                } catch {
                    results.fail(CheckError(message: "could not reach the range service at \(host)", hint: "try again; nothing was changed"))
                }
            }
        }
        group.wait()
        if let error = results.error { throw error }
        var out = [String: Int]()
        for (hash, password) in hashes { out[password] = results.counts[hash] ?? 0 }
        return out
    }
}

/// Collects range responses from concurrent requests.
final class RangeResults: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var storage = [String: Int]()
    private var firstError: PwnedPasswordsClient.CheckError?

    var counts: [String: Int] { lock.withLock { storage } }
    var error: PwnedPasswordsClient.CheckError? { lock.withLock { firstError } }

    func fail(_ error: PwnedPasswordsClient.CheckError) { lock.withLock { if firstError == nil { firstError = error } } }

    /// Reads "SUFFIX:COUNT" lines; padding lines have a count of 0 and are skipped.
    func add(prefix: String, body: String) {
        var parsed = [String: Int]()
        for line in body.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: ":")
            guard parts.count == 2, let count = Int(parts[1].trimmingCharacters(in: .whitespaces)), count > 0 else { continue }
            parsed[prefix + parts[0].uppercased()] = count
        }
        lock.withLock { storage.merge(parsed) { $1 } }
    }
}
