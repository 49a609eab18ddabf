import Foundation

/// Who may call an operation: the CLI (and any client) over the agent's socket, the web page through the
/// agent's web API, the browser extension through `passbox browser-host` (which relays on the socket and
/// lets through only this surface's operations).
public struct Surfaces: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The agent's Unix socket: the CLI and every local client of the user's.
    public static let socket = Surfaces(rawValue: 1)
    /// The web page the agent serves (`passbox ui`).
    public static let web = Surfaces(rawValue: 2)
    /// The browser extension, through `passbox browser-host`.
    public static let browser = Surfaces(rawValue: 4)
    /// The default: the socket and the web page (the extension's list is its own).
    public static let all: Surfaces = [.socket, .web]
    /// Every surface.
    public static let every: Surfaces = [.socket, .web, .browser]

    public var names: [String] {
        var names = [String]()
        if contains(.socket) { names.append("socket") }
        if contains(.web) { names.append("web") }
        if contains(.browser) { names.append("browser") }
        return names
    }
}

/// A request's body: the parameters of one operation.
public protocol RequestBody: Codable, Sendable {
    /// Whether it holds `SecretText` values (sent after the frame's JSON).
    var carriesSecrets: Bool { get }
    /// Why the web page may not send it as it is (it names a file of the agent's), or nil.
    var webRefusal: String? { get }
    /// The open vault's password it carries, checked as a counted unlock attempt (duress, erase, backup).
    var currentPassword: SecretText? { get }
}

extension RequestBody {
    public var carriesSecrets: Bool { false }
    public var webRefusal: String? { nil }
    public var currentPassword: SecretText? { nil }
}

/// The body of an operation that takes no parameters (absent on the wire).
public struct NoBody: RequestBody, Equatable {
    public init() {}
}

/// A reply's typed value: what one operation answers.
public protocol ReplyBody: Sendable {
    /// The value as a reply.
    var reply: Reply { get }
    /// The value inside `reply`, or nil when it is another kind.
    static func from(_ reply: Reply) -> Self?
    /// The reply kinds it may be, for the generated docs.
    static var kinds: [Reply.Kind] { get }
}

/// The answer of an operation that says only that it was done.
public struct Done: ReplyBody, Equatable {
    public init() {}
    public var reply: Reply { .done }
    public static func from(_ reply: Reply) -> Done? { if case .done = reply { Done() } else { nil } }
    public static var kinds: [Reply.Kind] { [.done] }
}

/// An operation answered with one of several kinds (`fill`: candidates, or the value picked).
extension Reply: ReplyBody {
    public var reply: Reply { self }
    public static func from(_ reply: Reply) -> Reply? { reply }
    public static var kinds: [Reply.Kind] { [] }
}

/// One operation: its wire name, its request body and its answer, which surfaces may call it, the protocol
/// generation that first has it and whether it needs the unlocked vault. The compiler checks a handler's
/// answer and a client's reading of it against `Answer`.
public struct Operation<Body: RequestBody, Answer: ReplyBody>: Sendable {
    public let spec: OperationSpec
    public var name: OperationName { spec.name }

    public init(
        _ name: OperationName, surfaces: Surfaces = .all, since: Int = ProtocolVersion.firstNegotiated, vault: Bool, request: String, reply: String,
        answers: [Reply.Kind]? = nil
    ) {
        spec = OperationSpec(
            name: name, surfaces: surfaces, since: since, needsVault: vault, bodyType: Body.self, answerKinds: answers ?? Answer.kinds, request: request, reply: reply)
    }
}

/// An operation without its types: what the registry, the dispatcher and the generated docs read.
public struct OperationSpec: Sendable {
    public let name: OperationName
    public let surfaces: Surfaces
    /// The protocol generation that first has the operation (an agent of an older one answers `unsupported`).
    public let since: Int
    public let needsVault: Bool
    public let bodyType: any RequestBody.Type
    public let answerKinds: [Reply.Kind]
    /// The request's fields and the reply, for docs/PROTOCOL.md (generated from these).
    public let request: String
    public let reply: String
}

/// The operations one side knows, by name: decoding a request looks its operation up here (one lookup); a
/// name it lacks is `unsupported`. Tests build registries with operations taken out.
public struct OperationRegistry: Sendable {
    public let version: Int
    public let specs: [OperationSpec]
    private let byName: [String: OperationSpec]

    public init(version: Int = ProtocolVersion.current, _ specs: [OperationSpec]) {
        self.version = version
        self.specs = specs
        var byName = [String: OperationSpec](minimumCapacity: specs.count)
        for spec in specs {
            precondition(byName[spec.name.rawValue] == nil, "\(spec.name.rawValue) is registered twice")
            byName[spec.name.rawValue] = spec
        }
        self.byName = byName
    }

    /// Every operation this build has.
    public static let current = OperationRegistry(Operations.all)

    public func spec(_ name: String) -> OperationSpec? { byName[name] }
    public func spec(_ name: OperationName) -> OperationSpec? { byName[name.rawValue] }
    public func knows(_ name: OperationName) -> Bool { byName[name.rawValue] != nil }

    /// This registry without the named operations (tests: a client or agent of an older build).
    public func removing(_ names: Set<OperationName>, version: Int? = nil) -> OperationRegistry {
        OperationRegistry(version: version ?? self.version, specs.filter { !names.contains($0.name) })
    }

    /// The operations `surface` may call, by wire name, sorted.
    public func allowed(on surface: Surfaces) -> [String] {
        specs.filter { !$0.surfaces.isDisjoint(with: surface) }.map(\.name.rawValue).sorted()
    }

    /// The answer to `hello` from a caller on `surface`.
    public func hello(_ request: HelloRequest, surface: Surfaces) -> HelloReply {
        HelloReply(
            version: version, oldest: ProtocolVersion.oldest, operations: allowed(on: surface),
            missing: request.operations.filter { spec($0) == nil }.map { String($0.prefix(80)) }.sorted())
    }

    /// The decoder's userInfo key under which a registry other than `current` is given.
    public static let key = CodingUserInfoKey(rawValue: "passbox.operations")!
}

/// A request: an operation and its body. On the wire `{"op": NAME, "body": {...}}` (no body when it is empty).
public struct Request: Sendable {
    public let operation: OperationName
    public let body: any RequestBody

    public init<Body, Answer>(_ operation: Operation<Body, Answer>, _ body: Body) {
        self.operation = operation.name
        self.body = body
    }

    public init<Answer>(_ operation: Operation<NoBody, Answer>) {
        self.init(operation, NoBody())
    }

    /// The body when this is a request of `operation`.
    public func body<Body, Answer>(_ operation: Operation<Body, Answer>) -> Body? {
        self.operation == operation.name ? body as? Body : nil
    }

    public var carriesSecrets: Bool { body.carriesSecrets }
    public var currentPassword: SecretText? { body.currentPassword }
}

/// Why a request could not be read: its operation is unknown to this side, or its body has the wrong form.
public struct UnknownOperation: Error, Equatable {
    public let name: String
}

extension Request: Codable {
    enum CodingKeys: String, CodingKey { case op, body }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .op)
        let registry = decoder.userInfo[OperationRegistry.key] as? OperationRegistry ?? .current
        guard let spec = registry.spec(name) else { throw UnknownOperation(name: String(name.prefix(80))) }
        operation = spec.name
        body = try Self.decodeBody(spec.bodyType, c)
    }

    private static func decodeBody<Body: RequestBody>(_ type: Body.Type, _ c: KeyedDecodingContainer<CodingKeys>) throws -> any RequestBody {
        if type == NoBody.self { return NoBody() }
        return try c.decode(type, forKey: .body)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(operation, forKey: .op)
        if !(body is NoBody) { try body.encodeBody(into: &c) }
    }
}

extension RequestBody {
    fileprivate func encodeBody(into c: inout KeyedEncodingContainer<Request.CodingKeys>) throws {
        try c.encode(self, forKey: .body)
    }
}

/// The handlers of one layer (the agent, the service, the open vault), keyed by operation: a request is
/// answered by one lookup. Registering a handler names the operation's types, so its answer is checked by
/// the compiler.
public struct OperationTable<Context>: Sendable {
    public typealias Handler = @Sendable (Context, Request) throws -> Reply
    public private(set) var handlers: [OperationName: Handler] = [:]

    public init() {}

    public mutating func on<Body, Answer>(_ operation: Operation<Body, Answer>, _ answer: @escaping @Sendable (Context, Body) throws -> Answer) {
        precondition(handlers[operation.name] == nil, "\(operation.name.rawValue) has two handlers")
        handlers[operation.name] = { context, request in
            guard let body = request.body(operation) else {
                throw ProtocolError(.badRequest, ["reason": "the request does not have the form of its operation"])
            }
            return try answer(context, body).reply
        }
    }

    /// Answers through another layer's table: `reach` finds that layer's context (or throws, `locked`).
    public mutating func include<Inner>(_ inner: OperationTable<Inner>, reach: @escaping @Sendable (Context, (Inner) throws -> Reply) throws -> Reply) {
        for (name, handler) in inner.handlers {
            precondition(handlers[name] == nil, "\(name.rawValue) has two handlers")
            handlers[name] = { context, request in try reach(context) { try handler($0, request) } }
        }
    }

    /// The answer of the handler for `request`, or nil when this table has none.
    public func answer(_ context: Context, _ request: Request) throws -> Reply? {
        guard let handler = handlers[request.operation] else { return nil }
        return try handler(context, request)
    }
}

/// `hello`: the client's protocol generation and the operations it knows.
public struct HelloRequest: RequestBody, Equatable {
    public var version: Int
    public var operations: [String]
    public init(version: Int = ProtocolVersion.current, operations: [String]) {
        self.version = version
        self.operations = operations
    }
}

/// The agent's generation, the oldest it serves, and the operations it serves to the caller's surface.
public struct HelloReply: Codable, Sendable, Equatable {
    public var version: Int
    public var oldest: Int
    public var operations: [String]
    /// The client's operations this agent lacks (each answered `unsupported`).
    public var missing: [String]
    public init(version: Int, oldest: Int, operations: [String], missing: [String]) {
        self.version = version
        self.oldest = oldest
        self.operations = operations
        self.missing = missing
    }
}
