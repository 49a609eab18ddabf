import Foundation
import PassboxCrypto

/// What Passbox reads of a recovery phrase or a private key: only enough to say what kind it is and whether
/// its checksum and range hold (G104). It never derives a public key or address, signs, decrypts, or sends
/// it anywhere, and there is no elliptic-curve code in the package. A text that does not check is still
/// saved exactly as typed, with a warning.
public enum KeyCheck: Equatable, Sendable {
    /// It checks; `kind` names what it is (a wording key's last part: "bip39", "wif", "xprv", "bech32", "hex", "armored").
    case valid(kind: String)
    /// It looks like `kind` but does not check: `problem` is a wording key's last part.
    case invalid(kind: String, problem: String)
    /// Not a form Passbox knows.
    case unrecognised

    /// The wording key of the warning to show, or nil when it checks.
    public var warningKey: String? {
        switch self {
        case .valid: nil
        case .invalid(let kind, let problem): "keyCheck.\(kind).\(problem)"
        case .unrecognised: "keyCheck.unrecognised"
        }
    }
}

/// BIP-39 mnemonics: 12, 15, 18, 21 or 24 words of the English list, whose last bits are the first bits of
/// the SHA-256 of the rest (BIP-39 "Generating the mnemonic").
public enum RecoveryPhraseCheck {
    static let words: [String: Int] = {
        var index = [String: Int](minimumCapacity: 2048)
        for (i, w) in WordList.bip39Words.split(separator: " ").enumerated() { index[String(w)] = i }
        return index
    }()

    public static func check(_ phrase: String) -> KeyCheck {
        let typed = phrase.lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard !typed.isEmpty else { return .unrecognised }
        guard [12, 15, 18, 21, 24].contains(typed.count) else { return .invalid(kind: "bip39", problem: "length") }
        var indices = [Int]()
        for word in typed {
            guard let i = words[word] else { return .invalid(kind: "bip39", problem: "word") }
            indices.append(i)
        }
        var bits = [Bool]()
        for i in indices { for shift in stride(from: 10, through: 0, by: -1) { bits.append((i >> shift) & 1 == 1) } }
        let checksumBits = bits.count / 33
        let entropyBits = bits.count - checksumBits
        var entropy = [UInt8](repeating: 0, count: entropyBits / 8)
        for b in 0..<entropyBits where bits[b] { entropy[b / 8] |= 0x80 >> UInt8(b % 8) }
        defer { ConstantTime.wipe(&entropy) }
        let hash = Hash.sha256(entropy)
        for b in 0..<checksumBits where bits[entropyBits + b] != ((hash[b / 8] >> (7 - UInt8(b % 8))) & 1 == 1) {
            return .invalid(kind: "bip39", problem: "checksum")
        }
        return .valid(kind: "bip39")
    }
}

/// Private keys in the forms G104 names: WIF and extended keys in Base58Check, Bech32 strings (age, Nostr),
/// 64 hexadecimal digits, and armored blocks (PEM, OpenSSH, OpenPGP).
public enum PrivateKeyCheck {
    /// The order n of the secp256k1 group: a 32-byte scalar must be in 1 … n−1 (a plain comparison).
    static let curveOrder: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,
        0xBA, 0xAE, 0xDC, 0xE6, 0xAF, 0x48, 0xA0, 0x3B, 0xBF, 0xD2, 0x5E, 0x8C, 0xD0, 0x36, 0x41, 0x41,
    ]

    public static func check(_ text: String) -> KeyCheck {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return .unrecognised }
        if trimmed.hasPrefix("-----BEGIN ") { return armored(trimmed) }
        if trimmed.count == 64, trimmed.allSatisfy(\.isHexDigit) {
            var scalar = hexBytes(trimmed)
            defer { ConstantTime.wipe(&scalar) }
            return inRange(scalar) ? .valid(kind: "hex") : .invalid(kind: "hex", problem: "range")
        }
        if let separator = trimmed.lastIndex(of: "1"), trimmed.distance(from: trimmed.startIndex, to: separator) >= 1,
            trimmed.lowercased() == trimmed || trimmed.uppercased() == trimmed, trimmed.count >= 8,
            trimmed[trimmed.index(after: separator)...].allSatisfy({ bech32Alphabet.contains($0.lowercased()) })
        {
            return bech32(trimmed.lowercased(), separator: trimmed.distance(from: trimmed.startIndex, to: separator))
        }
        if trimmed.allSatisfy({ base58Alphabet.contains($0) }), (50...112).contains(trimmed.count) {
            return base58Check(trimmed)
        }
        return .unrecognised
    }

    static func armored(_ text: String) -> KeyCheck {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lines.first, let last = lines.last, first.hasSuffix("-----"), last.hasPrefix("-----END "), last.hasSuffix("-----") else {
            return .invalid(kind: "armored", problem: "end")
        }
        let label = first.dropFirst("-----BEGIN ".count).dropLast(5)
        guard label.contains("PRIVATE KEY"), last == "-----END \(label)-----" else { return .invalid(kind: "armored", problem: "end") }
        // The body: optional "Header: value" lines (PEM, OpenPGP), then base64; OpenPGP ends with a "=CRC" line.
        let body = lines.dropFirst().dropLast().filter { !$0.contains(":") && !$0.hasPrefix("=") && !$0.isEmpty }.joined()
        guard !body.isEmpty, Data(base64Encoded: body) != nil else { return .invalid(kind: "armored", problem: "base64") }
        return .valid(kind: "armored")
    }

    static let base58Alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")

    static func base58Decode(_ text: String) -> [UInt8]? {
        var bytes = [UInt8]()
        for c in text {
            guard let digit = base58Alphabet.firstIndex(of: c) else { return nil }
            var carry = digit
            for i in bytes.indices.reversed() {
                carry += Int(bytes[i]) * 58
                bytes[i] = UInt8(carry & 0xff)
                carry >>= 8
            }
            while carry > 0 {
                bytes.insert(UInt8(carry & 0xff), at: 0)
                carry >>= 8
            }
        }
        let zeros = text.prefix { $0 == "1" }.count
        return [UInt8](repeating: 0, count: zeros) + bytes
    }

    static func base58Check(_ text: String) -> KeyCheck {
        guard var raw = base58Decode(text), raw.count > 4 else { return .unrecognised }
        defer { ConstantTime.wipe(&raw) }
        let payload = Array(raw.dropLast(4))
        let kind: String
        switch (payload.first, payload.count) {
        case (0x80, 33), (0x80, 34), (0xEF, 33), (0xEF, 34): kind = "wif"
        case (_, 78): kind = "xprv"
        default: return .unrecognised
        }
        guard Array(Hash.sha256(Hash.sha256(payload)).prefix(4)) == Array(raw.suffix(4)) else { return .invalid(kind: kind, problem: "checksum") }
        if kind == "wif" {
            if payload.count == 34, payload[33] != 0x01 { return .invalid(kind: kind, problem: "format") }
            return inRange(Array(payload[1..<33])) ? .valid(kind: kind) : .invalid(kind: kind, problem: "range")
        }
        // BIP-32 private keys: version xprv 0488ADE4 / tprv 04358394, a zero byte before the 32-byte key.
        guard [[0x04, 0x88, 0xAD, 0xE4], [0x04, 0x35, 0x83, 0x94]].contains(Array(payload[0..<4])), payload[45] == 0 else { return .unrecognised }
        return inRange(Array(payload[46..<78])) ? .valid(kind: kind) : .invalid(kind: kind, problem: "range")
    }

    static let bech32Alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l").map { String($0) }

    /// BIP-173's checksum (constant 1) or BIP-350's Bech32m (0x2bc830a3).
    static func bech32(_ text: String, separator: Int) -> KeyCheck {
        let chars = Array(text)
        let hrp = chars[0..<separator].map { UInt8($0.asciiValue ?? 0) }
        let data = chars[(separator + 1)...].compactMap { c in bech32Alphabet.firstIndex(of: String(c)).map(UInt8.init) }
        guard data.count >= 6 else { return .invalid(kind: "bech32", problem: "checksum") }
        let generators: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var check: UInt32 = 1
        let values = hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 } + data
        for v in values {
            let top = check >> 25
            check = (check & 0x1ff_ffff) << 5 ^ UInt32(v)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { check ^= generators[i] }
        }
        return check == 1 || check == 0x2bc8_30a3 ? .valid(kind: "bech32") : .invalid(kind: "bech32", problem: "checksum")
    }

    static func hexBytes(_ text: String) -> [UInt8] {
        var out = [UInt8]()
        var chars = Array(text.utf8)
        defer { ConstantTime.wipe(&chars) }
        var i = 0
        while i + 1 < chars.count {
            out.append(UInt8(String(decoding: chars[i...(i + 1)], as: UTF8.self), radix: 16) ?? 0)
            i += 2
        }
        return out
    }

    /// 1 ≤ scalar ≤ n − 1, compared as big-endian integers.
    static func inRange(_ scalar: [UInt8]) -> Bool {
        guard scalar.count == 32, scalar.contains(where: { $0 != 0 }) else { return false }
        for (a, b) in zip(scalar, curveOrder) where a != b { return a < b }
        return false
    }
}
