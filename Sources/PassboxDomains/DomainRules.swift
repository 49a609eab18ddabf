import Foundation
import PassboxCore
internal import CICUSupport
internal import CIDN2
internal import CPSL

/// Host names as Passbox compares them: registrable domains from the full Public Suffix List (libpsl, data
/// from Debian's `publicsuffix`), IDN names converted with libidn2, and confusable skeletons from ICU
/// (Unicode TR39), so `раураl.com` in Cyrillic and `paypal.com` have the same skeleton.
public final class DomainRules: DomainAnalyzing, @unchecked Sendable {
    // @unchecked: the PSL context is read-only after loading; the spoof checker is used under a lock.
    private let psl: OpaquePointer
    private let spoof: UnsafeMutableRawPointer?
    private let lock = NSLock()

    public static let shared = DomainRules()

    /// Loads the newer of libpsl's built-in list and the system's `/usr/share/publicsuffix` file.
    public init() {
        psl = psl_latest(nil) ?? psl_builtin()
        spoof = CICU_openSpoofChecker()
    }

    deinit {
        if let spoof { CICU_closeSpoofChecker(spoof) }
    }

    /// The ASCII (punycode) form of a host, lower-cased, without a trailing dot; nil if it is not a valid name.
    public func asciiHost(_ host: String) -> String? {
        // Fast path for plain ASCII names (almost all): lower-case and trim dots and spaces byte-wise.
        var bytes = Array(host.utf8)
        if bytes.allSatisfy({ $0 < 0x80 }) {
            while let last = bytes.last, last == 46 || last == 32 { bytes.removeLast() }
            var first = 0
            while first < bytes.count, bytes[first] == 46 || bytes[first] == 32 { first += 1 }
            guard first < bytes.count else { return nil }
            return String(decoding: bytes[first...].map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
        }
        let trimmed = host.trimmingCharacters(in: CharacterSet(charactersIn: ". ")).lowercased()
        guard !trimmed.isEmpty else { return nil }
        var output: UnsafeMutablePointer<CChar>?
        let result = idn2_to_ascii_8z(trimmed, &output, Int32(IDN2_NONTRANSITIONAL.rawValue))
        guard result == 0, let output else { return nil }
        defer { idn2_free(output) }
        return String(cString: output)
    }

    /// The Unicode form of a host (punycode labels decoded), for display and confusable checks.
    public func unicodeHost(_ host: String) -> String {
        guard let ascii = asciiHost(host) else { return host }
        guard ascii.contains("xn--") else { return ascii }
        var output: UnsafeMutablePointer<CChar>?
        guard idn2_to_unicode_8z8z(ascii, &output, 0) == 0, let output else { return ascii }
        defer { idn2_free(output) }
        return String(cString: output)
    }

    /// The registrable domain (eTLD+1) of a host, in ASCII; nil for a bare public suffix or an IP address.
    public func registrableDomain(_ host: String) -> String? {
        guard let ascii = asciiHost(host), !ascii.isEmpty else { return nil }
        if ascii.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 }) || ascii.utf8.contains(58) { return nil }
        // libpsl returns a pointer into its argument, so the C string must stay alive while it is read.
        return ascii.withCString { name in
            guard let result = psl_registrable_domain(psl, name) else { return nil }
            return String(cString: result)
        }
    }

    /// The TR39 skeleton: strings that look alike have equal skeletons.
    public func skeleton(_ text: String) -> String {
        guard let spoof else { return text.lowercased() }
        lock.lock()
        defer { lock.unlock() }
        let input = Array(text.utf8).map { CChar(bitPattern: $0) }
        var capacity = max(64, input.count * 4)
        while capacity <= 1 << 16 {
            var out = [CChar](repeating: 0, count: capacity)
            let n = CICU_skeleton(spoof, input, Int32(input.count), &out, Int32(capacity))
            if n >= 0 && Int(n) < capacity { return String(decoding: out.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self) }
            capacity *= 4
        }
        return text.lowercased()
    }
}
