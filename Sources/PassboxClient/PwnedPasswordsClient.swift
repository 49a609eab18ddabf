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

    /// Why the breach check could not run, as a reason and facts (worded by the surfaces: `breach.REASON`).
    public struct CheckError: Error, Equatable, Sendable {
        public let reason: String
        public let facts: [String: String]
        public init(_ reason: String, _ facts: [String: String] = [:]) {
            self.reason = reason
            self.facts = facts
        }
    }

    /// SHA-1 of a password as 40 upper-case hex characters.
    public static func sha1Hex(_ password: String) -> String { BreachRanges.sha1Hex(password) }

    /// How often each password appears in the breach corpus (0 when not found): the prefixes, padded, are
    /// fetched here and the suffixes compared here.
    public func occurrences(of passwords: [String]) throws -> [String: Int] {
        BreachRanges.occurrences(of: passwords, bodies: try ranges(for: Set(BreachRanges.prefixes(of: passwords))))
    }

    /// How many range requests one check sends: the real prefixes plus random ones, so that the number of
    /// requests says nothing about how many distinct passwords were checked (up to 100; above, only which
    /// hundred). Security design §9.
    public static let requestBlock = 100

    /// The prefixes to request for `real`: every one of them and random others, `requestBlock` at least and a
    /// multiple of it, in random order.
    public static func padded(_ real: Set<String>) -> [String] {
        let total = max(requestBlock, (real.count + requestBlock - 1) / requestBlock * requestBlock)
        var all = real
        while all.count < total {
            all.insert(SecureRandom.bytes(count: 3).map { String(format: "%02X", $0) }.joined().prefix(5).description)
        }
        var list = Array(all)
        for i in stride(from: list.count - 1, to: 0, by: -1) { list.swapAt(i, Int(SecureRandom.uniform(UInt32(i + 1)))) }
        return list
    }

    /// Whether the range service may be asked at `address`: https, or http to this machine only (tests and a
    /// local mirror). Anything else would send the prefixes in the clear.
    public static func isAllowed(_ address: String) -> Bool {
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return false }
        if scheme == "https" { return true }
        return scheme == "http" && Loopback.isLoopbackHost(host)
    }

    /// Fetches the range answer of every real prefix, padded with random ones (`padded`), and returns the
    /// answers to the real ones only. Runs where the network is (the command line; for the web page, the agent
    /// off its vault queue, `fetch`).
    public func ranges(for real: Set<String>) throws -> [String: String] {
        try fetch(real.isEmpty ? [] : Self.padded(real), keeping: real)
    }

    /// Whether `prefix` is five upper-case or lower-case hex characters (what a range request may name).
    public static func isPrefix(_ prefix: String) -> Bool {
        prefix.utf8.count == 5 && prefix.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The answers for exactly `prefixes` (the caller padded them), those in `keeping` returned (all when nil).
    public func fetch(_ prefixes: [String], keeping: Set<String>? = nil) throws -> [String: String] {
        guard Self.isAllowed(rangeURL) else {
            throw CheckError("notHTTPS", ["address": rangeURL])
        }
        guard let host = URL(string: rangeURL)?.host else {
            throw CheckError("notAnAddress", ["address": rangeURL])
        }
        guard !prefixes.isEmpty else { return [:] }
        let results = RangeResults()
        let group = DispatchGroup()
        let slots = DispatchSemaphore(value: maximumConcurrentRequests)
        let queue = DispatchQueue(label: "passbox.range", attributes: .concurrent)
        for prefix in prefixes {
            let url = rangeURL + prefix.uppercased()
            let keep = keeping?.contains(prefix) ?? true
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
                        results.fail(CheckError("status", ["status": String(answer.status)]))
                        return
                    }
                    if keep { results.add(prefix: prefix, body: String(decoding: answer.body, as: UTF8.self)) }
                } catch let error as HTTPGet.Failure {
                    results.fail(CheckError("unreachableBecause", ["host": host, "detail": error.description]))
                } catch {
                    results.fail(CheckError("unreachable", ["host": host]))
                }
            }
        }
        group.wait()
        if let error = results.error { throw error }
        return results.bodies
    }
}

/// Collects range responses from concurrent requests.
final class RangeResults: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var storage = [String: String]()
    private var firstError: PwnedPasswordsClient.CheckError?

    var bodies: [String: String] { lock.withLock { storage } }
    var error: PwnedPasswordsClient.CheckError? { lock.withLock { firstError } }

    func fail(_ error: PwnedPasswordsClient.CheckError) { lock.withLock { if firstError == nil { firstError = error } } }
    func add(prefix: String, body: String) { lock.withLock { storage[prefix] = body } }
}
