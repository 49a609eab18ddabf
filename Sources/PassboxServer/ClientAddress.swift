import Foundation

/// A block of addresses written as CIDR ("127.0.0.1/32", "10.0.0.0/8", "fd00::/8"), for `--trusted-proxy`.
public struct AddressBlock: Sendable, Equatable, CustomStringConvertible {
    let bytes: [UInt8]
    let prefix: Int
    public let description: String

    /// Parses `text`; nil when it is not an address with an optional prefix length that fits it.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let address = parts.first, let parsed = Self.parse(address) else { return nil }
        let bits = parsed.count * 8
        let prefix = parts.count == 2 ? Int(parts[1]) : bits
        guard let prefix, (0...bits).contains(prefix) else { return nil }
        bytes = parsed
        self.prefix = prefix
        description = text
    }

    /// Whether `address` (as the TCP peer gives it) lies in the block; an IPv4 address written as
    /// ::ffff:a.b.c.d counts as IPv4.
    public func contains(_ address: String) -> Bool {
        guard let other = Self.parse(address), other.count == bytes.count else { return false }
        for bit in 0..<prefix where (bytes[bit / 8] ^ other[bit / 8]) & UInt8(0x80 >> (bit % 8)) != 0 { return false }
        return true
    }

    static func parse(_ text: String) -> [UInt8]? {
        let plain = text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
        var v4 = in_addr()
        if inet_pton(AF_INET, plain, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET6, plain, &v6) == 1 { return v6 }
        return nil
    }
}

/// The address a request is counted and recorded under: the TCP peer, or, when the peer is a trusted reverse
/// proxy, the nearest address in `X-Forwarded-For` that is not one of the trusted proxies (the proxy appends
/// the address it saw; anything further left was written by the client and is not believed).
struct ClientAddress: Sendable {
    let trustedProxies: [AddressBlock]

    func of(peer: String, forwardedFor: String?) -> String {
        guard !trustedProxies.isEmpty, trustedProxies.contains(where: { $0.contains(peer) }), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            // A hop that is no address was written by a client (a trusted proxy writes the address it saw): it is
            // counted under a key of its own, never as the proxy, whose limits every client behind it shares.
            guard AddressBlock.parse(hop) != nil else { return "unparsed:" + String(hop.prefix(64)) }
            if !trustedProxies.contains(where: { $0.contains(hop) }) { return hop }
        }
        return peer
    }
}
