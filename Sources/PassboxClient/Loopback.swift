import Foundation

/// Whether a URL's host is this machine: exactly `localhost`, or an IP literal in 127.0.0.0/8 or `::1`.
/// A host *name* that merely starts with "127." (`127.0.0.1.example.org`) can resolve anywhere, so names are
/// not trusted by their look.
public enum Loopback {
    public static func isLoopbackHost(_ host: String) -> Bool {
        let bare = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 { return bare == "::1" || bare == "0:0:0:0:0:0:0:1" }
        return false
    }
}
