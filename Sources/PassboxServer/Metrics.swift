import Foundation
import PassboxCrypto
import PassboxHTTP

/// Request counts and latencies of this server process, in Prometheus' text format (`GET /metrics`): by
/// method, route template and status — never an email, id, token or address.
final class Metrics: @unchecked Sendable {
    // @unchecked: every field is touched only under `lock`.
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var buckets: [String: [Int]] = [:]
    private var sums: [String: Double] = [:]
    private var totals: [String: Int] = [:]
    /// Upper bounds of the latency buckets, in seconds.
    static let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    func record(method: String, route: String, status: Int, seconds: Double) {
        let counter = "method=\"\(method)\",route=\"\(route)\",status=\"\(status)\""
        let series = "method=\"\(method)\",route=\"\(route)\""
        lock.lock()
        defer { lock.unlock() }
        counts[counter, default: 0] += 1
        var b = buckets[series] ?? [Int](repeating: 0, count: Self.bounds.count)
        for (i, bound) in Self.bounds.enumerated() where seconds <= bound { b[i] += 1 }
        buckets[series] = b
        sums[series, default: 0] += seconds
        totals[series, default: 0] += 1
    }

    /// The exposition text.
    func text() -> String {
        lock.lock()
        defer { lock.unlock() }
        var out = "# HELP passbox_requests_total Requests answered, by method, route and status.\n# TYPE passbox_requests_total counter\n"
        for key in counts.keys.sorted() { out += "passbox_requests_total{\(key)} \(counts[key]!)\n" }
        out += "# HELP passbox_request_duration_seconds Time to answer a request.\n# TYPE passbox_request_duration_seconds histogram\n"
        for series in buckets.keys.sorted() {
            for (i, bound) in Self.bounds.enumerated() {
                out += "passbox_request_duration_seconds_bucket{\(series),le=\"\(bound)\"} \(buckets[series]![i])\n"
            }
            out += "passbox_request_duration_seconds_bucket{\(series),le=\"+Inf\"} \(totals[series]!)\n"
            out += "passbox_request_duration_seconds_sum{\(series)} \(sums[series]!)\n"
            out += "passbox_request_duration_seconds_count{\(series)} \(totals[series]!)\n"
        }
        return out
    }
}

/// Who may read `/metrics` on the account API's listener: nobody (the default: live sign-up, failed sign-in,
/// recovery and two-factor counts are the operator's alone), or a client sending the operator's token as
/// `Authorization: Bearer TOKEN` (`--metrics-token-file`). `--metrics ADDRESS:PORT` serves them instead on a
/// listener of their own on a loopback address.
public enum MetricsAccess: Sendable {
    case off
    /// The SHA-256 of the token.
    case token([UInt8])

    func allows(_ request: HTTPRequest) -> Bool {
        guard case .token(let hash) = self, let value = request.header("Authorization"), value.hasPrefix("Bearer ") else { return false }
        return ConstantTime.equal(Hash.sha256(Array(value.dropFirst(7).utf8)), hash)
    }
}
