internal import CMicroHTTPDSupport
import Foundation
import Glibc

/// One HTTP request as the server read it (the body complete and within the limit).
public struct HTTPRequest: Sendable {
    public let method: String
    /// The path, percent-decoded, without the query string.
    public let path: String
    /// Headers as sent, names in lower case.
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]
    /// The client's numeric address ("127.0.0.1", "::1").
    public let clientAddress: String

    public init(method: String, path: String, headers: [(name: String, value: String)], body: [UInt8], clientAddress: String) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
    }

    /// The same request counted under another client address (the one a trusted proxy forwarded).
    public func with(clientAddress: String) -> HTTPRequest {
        HTTPRequest(method: method, path: path, headers: headers, body: body, clientAddress: clientAddress)
    }

    /// The first header named `name` (any case).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name == lower }?.value
    }
}

/// The answer to one request.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The request proved who sent it (a session's cookie, say): with an untrusted pool (`Limits.untrustedConnections`)
    /// its connection leaves the pool and gets the full idle timeout.
    public var trustsConnection = false

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// Sends an answer: given once, from any thread.
    public typealias Responder = @Sendable (HTTPResponse) -> Void

    /// An answer given later (a long poll): `start` is called with the responder once the handler returns,
    /// and the handler thread is free meanwhile. Whoever holds the responder must call it exactly once, at
    /// the latest when the server stops (the server waits for it).
    public var deferred: (@Sendable (@escaping Responder) -> Void)?

    public static func later(_ start: @escaping @Sendable (@escaping Responder) -> Void) -> HTTPResponse {
        var response = HTTPResponse(status: 0)
        response.deferred = start
        return response
    }
}

/// Why the server could not start.
public struct HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

/// An HTTP (or, with a certificate, HTTPS-only) server on libmicrohttpd with a pool of worker threads and
/// limits on connections, time, header memory and body size: a body over the limit is answered 413 before it
/// is read on, a connection that stays idle or slow past the timeout is closed, headers beyond the
/// connection's memory are refused by libmicrohttpd. The handler runs on a worker thread, one request at a
/// time per thread.
public final class HTTPServer: @unchecked Sendable {
    // @unchecked: `daemon` is written in init and stop only; the handler is immutable.
    public struct Limits: Sendable {
        public var threads: UInt32 = 8
        /// Requests answered at once: a request waiting for its storage (a group commit, PostgreSQL) holds a
        /// handler thread, never a libmicrohttpd thread, so the others' connections go on being served.
        public var handlers: UInt32 = 64
        public var connections: UInt32 = 512
        public var connectionsPerAddress: UInt32 = 64
        public var timeoutSeconds: UInt32 = 15
        public var maximumBody = 1 << 20
        /// Per connection; bounds the request line and headers.
        public var connectionMemory = 32 * 1024
        /// A request whose body is still arriving this long after its headers is answered 408 (or, while bytes
        /// still trickle in, its connection is closed): the idle timeout alone never ends a slow sender.
        public var requestSeconds: UInt32 = 30
        /// 0: every connection alike. Otherwise a connection starts untrusted, and at most this many untrusted
        /// ones stay open (a new one closes the oldest of them) with an idle timeout of `untrustedTimeoutSeconds`;
        /// an answer that `trustsConnection` takes its connection out of that pool. So whoever cannot prove who
        /// they are can never hold the slots of whoever can.
        public var untrustedConnections: UInt32 = 0
        public var untrustedTimeoutSeconds: UInt32 = 5

        public init() {}
    }

    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The port the server listens on (the one it was given, or the free one it was given when asked for 0).
    public let port: UInt16
    public let address: String
    private var daemon: UnsafeMutableRawPointer?
    private var boxContext: UnsafeMutableRawPointer?

    /// Starts listening. `tls` holds a PEM certificate chain and key; without it the server speaks plain HTTP
    /// (which the account client accepts only on loopback).
    public init(address: String = "127.0.0.1", port: UInt16 = 0, limits: Limits = Limits(), tls: (certificatePEM: String, keyPEM: String)? = nil, handler: @escaping Handler) throws(HTTPServerError) {
        self.address = address
        var bound: UInt16 = 0
        var error = [CChar](repeating: 0, count: 256)
        let cLimits = CMHD_Limits(
            threads: limits.threads, connections: limits.connections, connectionsPerAddress: limits.connectionsPerAddress,
            timeoutSeconds: limits.timeoutSeconds, maximumBody: limits.maximumBody, connectionMemory: limits.connectionMemory,
            requestSeconds: limits.requestSeconds, untrustedConnections: limits.untrustedConnections,
            untrustedTimeoutSeconds: limits.untrustedTimeoutSeconds)
        // The daemon holds the handler box retained; stop() (also run by deinit) ends the daemon, then releases it.
        let context = Unmanaged.passRetained(HandlerBox(handler, handlers: Int(limits.handlers))).toOpaque()
        let started: UnsafeMutableRawPointer? =
            if let tls {
                CMHD_start(address, port, cLimits, tls.certificatePEM, tls.keyPEM, httpServerCallback, context, &bound, &error)
            } else {
                CMHD_start(address, port, cLimits, nil, nil, httpServerCallback, context, &bound, &error)
            }
        guard let started else {
            Unmanaged<HandlerBox>.fromOpaque(context).release()
            throw HTTPServerError(reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        boxContext = context
        daemon = started
        self.port = bound
    }

    /// Stops listening, waits for the requests being answered and closes every connection.
    public func stop() {
        guard let daemon else { return }
        CMHD_stop(daemon)
        self.daemon = nil
        if let boxContext { Unmanaged<HandlerBox>.fromOpaque(boxContext).release() }
        boxContext = nil
    }

    deinit { stop() }
}

/// The handler and the threads it runs on, kept alive for the daemon's callbacks.
private final class HandlerBox: @unchecked Sendable {
    // @unchecked: both are immutable after init; OperationQueue is safe to use from any thread.
    let handler: HTTPServer.Handler
    let queue = OperationQueue()
    init(_ handler: @escaping HTTPServer.Handler, handlers: Int) {
        self.handler = handler
        queue.maxConcurrentOperationCount = handlers
        queue.name = "passbox-http-handlers"
    }
}

private let httpServerCallback: CMHD_Handler = { context, request, token in
    guard let context, let request, let token else { return }
    let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
    var headers: [(name: String, value: String)] = []
    withUnsafeMutablePointer(to: &headers) { list in
        CMHD_forEachHeader(request.pointee.connection, { context, name, value in
            guard let context, let name, let value else { return }
            context.assumingMemoryBound(to: [(name: String, value: String)].self).pointee
                .append((String(cString: name).lowercased(), String(cString: value)))
        }, list)
    }
    let r = request.pointee
    let body = r.bodyLength > 0 && r.body != nil ? Array(UnsafeBufferPointer(start: r.body, count: r.bodyLength)) : []
    let copied = HTTPRequest(
        method: String(cString: r.method), path: String(cString: r.url), headers: headers, body: body, clientAddress: String(cString: r.clientAddress))
    // The request is copied; the connection waits, suspended, while a handler thread answers it, so the
    // libmicrohttpd thread goes on serving its other connections.
    let answerToken = AnswerToken(token)
    box.queue.addOperation {
        let answer = box.handler(copied)
        if let deferred = answer.deferred {
            deferred { later in
                var response = CMHD_Response(status: 500, body: nil, bodyLength: 0, headers: nil, headerCount: 0, trusted: 0)
                fill(&response, with: later)
                CMHD_answer(answerToken.pointer, &response)
            }
            return
        }
        var response = CMHD_Response(status: 500, body: nil, bodyLength: 0, headers: nil, headerCount: 0, trusted: 0)
        fill(&response, with: answer)
        CMHD_answer(answerToken.pointer, &response)
    }
}

/// The C side's request token, carried to the handler thread (used there once, by `CMHD_answer`).
private struct AnswerToken: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}

/// The answer in C's form: the body and the headers (one block of NUL-ended names and values) malloc'ed,
/// freed by C after queueing.
private func fill(_ response: inout CMHD_Response, with answer: HTTPResponse) {
    response.status = Int32(answer.status)
    response.trusted = answer.trustsConnection ? 1 : 0
    if !answer.body.isEmpty, let copy = malloc(answer.body.count) {
        answer.body.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: answer.body.count) }
        response.body = copy.assumingMemoryBound(to: UInt8.self)
        response.bodyLength = answer.body.count
    }
    var block: [UInt8] = []
    var count: Int32 = 0
    for (name, value) in answer.headers where !name.utf8.contains(0) && !value.utf8.contains(0) {
        block += Array(name.utf8) + [0] + Array(value.utf8) + [0]
        count += 1
    }
    if count > 0, let copy = malloc(block.count) {
        block.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: block.count) }
        response.headers = copy.assumingMemoryBound(to: CChar.self)
        response.headerCount = count
    }
}
