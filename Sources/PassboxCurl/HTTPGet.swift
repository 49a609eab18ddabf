import Foundation
internal import CCurlSupport

/// Plain HTTP(S) GET on libcurl, which is loaded only when the first request is made (see CCurlSupport).
public enum HTTPGet {
    public struct Failure: Error, Sendable {
        /// What went wrong, in curl's words or ours ("Could not resolve host: …", "the answer is over 64 MiB").
        public let description: String
    }

    /// The body collected so far; refuses to grow past `limit`.
    final class Body {
        var bytes = [UInt8]()
        let limit: Int
        var overflowed = false
        init(limit: Int) { self.limit = limit }
    }

    /// Fetches `url` with the given "Name: value" headers. Returns the status and body of any completed
    /// exchange; throws when there was none (no route, TLS failure, timeout) or the body exceeds `limit`.
    public static func get(_ url: String, headers: [String] = [], timeoutSeconds: Int = 30, limit: Int = 64 << 20) throws -> (status: Int, body: [UInt8]) {
        try exchange("GET", url, headers: headers, timeoutSeconds: timeoutSeconds, limit: limit)
    }

    /// Any method, with an optional request body (POST with a body, DELETE without one).
    public static func exchange(
        _ method: String, _ url: String, headers: [String] = [], body requestBody: [UInt8]? = nil, timeoutSeconds: Int = 30, limit: Int = 64 << 20
    ) throws -> (status: Int, body: [UInt8]) {
        let body = Body(limit: limit)
        let context = Unmanaged.passRetained(body)
        defer { context.release() }
        var status = 0
        var error = [CChar](repeating: 0, count: Int(CCurl_errorSize()))
        let cHeaders = headers.map { strdup($0) }
        defer { cHeaders.forEach { free($0) } }
        let code = cHeaders.map { UnsafePointer($0) }.withUnsafeBufferPointer { list in
            (requestBody ?? []).withUnsafeBytes { sent in
            CCurl_request(method, url, list.baseAddress, Int32(list.count), requestBody == nil ? nil : (sent.baseAddress ?? UnsafeRawPointer(bitPattern: 1)), sent.count, timeoutSeconds, { data, size, count, context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeUnretainedValue()
                let n = size * count
                guard body.bytes.count + n <= body.limit else {
                    body.overflowed = true
                    return 0
                }
                if let data { body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n)) }
                return n
            }, context.toOpaque(), &status, &error)
            }
        }
        if body.overflowed {
            throw Failure(description: "the answer is larger than \(limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes"), the most accepted")
        }
        guard code == 0 else { throw Failure(description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        return (status, body.bytes)
    }
}
