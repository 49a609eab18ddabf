import Foundation
import PassboxCore
internal import CICUSupport
internal import CIDN2Support
internal import CPSLSupport

/// Host names as Passbox compares them: registrable domains from the full Public Suffix List (libpsl, data
/// from Debian's `publicsuffix`), IDN names converted with libidn2, and confusable skeletons from ICU
/// (Unicode TR39), so `раураl.com` in Cyrillic and `paypal.com` have the same skeleton.
///
/// The three libraries are loaded with dlopen on first use (see ARCHITECTURE.md, C modules), so commands that
/// never look at host names do not pay for loading them. If one is missing, the answers fall back to the
/// cautious side (no registrable domain, so only exact hosts match; no ASCII form for a non-ASCII name; a
/// lower-cased string as the skeleton) and `unavailability` says which library is missing.
public final class DomainRules: DomainAnalyzing, @unchecked Sendable {
    // @unchecked: the PSL context is read-only after loading; the spoof checker is opened and used under a lock.
    private let psl: OpaquePointer?
    private var spoof: UnsafeMutableRawPointer?
    private var spoofOpened = false
    private let lock = NSLock()

    public static let shared = DomainRules()

    /// The host-name rules could not be loaded: a library is missing.
    public struct Unavailable: Error, Equatable, Sendable {
        public let libraries: [String]
        public let packages: [String]
    }

    /// Why some host-name rules are unavailable (a library could not be loaded), or nil when all are.
    /// Loads the three libraries if they are not loaded yet.
    public static var unavailability: Unavailable? {
        var missing = [(soname: String, package: String)]()
        if CPSL_available() == 0 { missing.append(("libpsl.so.5", "libpsl5")) }
        if CIDN2_available() == 0 { missing.append(("libidn2.so.0", "libidn2-0")) }
        if CICU_available() == 0 { missing.append(("libicui18n (ICU)", "libicu72")) }
        guard !missing.isEmpty else { return nil }
        return Unavailable(libraries: missing.map(\.soname), packages: missing.map(\.package))
    }

    /// Throws `Unavailable` when a library the rules need cannot be loaded.
    public static func checkAvailability() throws(Unavailable) {
        if let unavailability { throw unavailability }
    }

    /// Loads the newer of libpsl's built-in list and the system's `/usr/share/publicsuffix` file.
    public init() {
        psl = CPSL_latest(nil) ?? CPSL_builtin()
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
        let result = CIDN2_toASCII(trimmed, &output, Int32(IDN2_NONTRANSITIONAL.rawValue))
        guard result == 0, let output else { return nil }
        defer { CIDN2_free(output) }
        return String(cString: output)
    }

    /// The Unicode form of a host (punycode labels decoded), for display and confusable checks.
    public func unicodeHost(_ host: String) -> String {
        guard let ascii = asciiHost(host) else { return host }
        guard ascii.contains("xn--") else { return ascii }
        var output: UnsafeMutablePointer<CChar>?
        guard CIDN2_toUnicode(ascii, &output, 0) == 0, let output else { return ascii }
        defer { CIDN2_free(output) }
        return String(cString: output)
    }

    /// The registrable domain (eTLD+1) of a host, in ASCII; nil for a bare public suffix or an IP address.
    public func registrableDomain(_ host: String) -> String? {
        guard let ascii = asciiHost(host), !ascii.isEmpty else { return nil }
        if ascii.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 }) || ascii.utf8.contains(58) { return nil }
        // libpsl returns a pointer into its argument, so the C string must stay alive while it is read.
        guard let psl else { return nil }
        return ascii.withCString { name in
            guard let result = CPSL_registrableDomain(psl, name) else { return nil }
            return String(cString: result)
        }
    }

    /// The TR39 skeleton: strings that look alike have equal skeletons.
    public func skeleton(_ text: String) -> String {
        lock.lock()
        defer { lock.unlock() }
        // ICU is loaded by the first skeleton, not by init: fill needs the other rules only.
        if !spoofOpened {
            spoof = CICU_openSpoofChecker()
            spoofOpened = true
        }
        guard let spoof else { return text.lowercased() }
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
