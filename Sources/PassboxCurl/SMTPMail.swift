import Foundation
internal import CCurlSupport

/// One plain-text mail over SMTP through libcurl (issue 32: `passbox server --smtp` mails invitation links).
/// To a host other than this machine, smtp:// must upgrade with STARTTLS or the mail is not sent.
public struct SMTPMail: Sendable {
    public let url: String
    public let from: String
    public let user: String?
    public let password: String?

    public struct Failure: Error, Sendable {
        public let description: String
    }

    /// `url` is `smtp://HOST[:PORT]` or `smtps://HOST[:PORT]`, without credentials (they come from a file).
    public init(url: String, from: String, user: String? = nil, password: String? = nil) throws {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), ["smtp", "smtps"].contains(scheme), let host = parts.host, !host.isEmpty,
            parts.user == nil, parts.password == nil
        else { throw Failure(description: "the mail server must be smtp://HOST[:PORT] or smtps://HOST[:PORT], without a name or password in it") }
        guard Self.isAddress(from) else { throw Failure(description: "the sender must be one address, like passbox@example.org") }
        self.url = url
        self.from = from
        self.user = user
        self.password = password
    }

    var isLoopback: Bool {
        let host = URLComponents(string: url)?.host?.lowercased() ?? ""
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// An address as a header and the envelope take it: no spaces, brackets, line breaks or commas.
    public static func isAddress(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1, bytes.count <= 254 else { return false }
        return !bytes.contains { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") }
    }

    /// Sends `body` (UTF-8 text) to `to` with `subject`. The header lines are built here from checked values
    /// only: a subject or address cannot add a header.
    public func send(to: String, subject: String, body: String, timeoutSeconds: Int = 30) throws {
        guard Self.isAddress(to) else { throw Failure(description: "not a mail address") }
        let cleanSubject = String(subject.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(200).map(Character.init))
        let encodedSubject = "=?UTF-8?B?" + Data(cleanSubject.utf8).base64EncodedString() + "?="
        let date = Self.dateFormatter.string(from: Date())
        var text = "From: <\(from)>\r\nTo: <\(to)>\r\nSubject: \(encodedSubject)\r\nDate: \(date)\r\nMIME-Version: 1.0\r\n"
        text += "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        // A line of a single "." would end the message early on a server that does not escape it; curl does.
        text += body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n") + "\r\n"
        let message = Array(text.utf8)
        var error = [CChar](repeating: 0, count: Int(CCurl_errorSize()))
        let rcpt = strdup("<\(to)>")
        defer { free(rcpt) }
        let code: Int32 = [UnsafePointer(rcpt)].withUnsafeBufferPointer { list in
            message.withUnsafeBytes { bytes in
                CCurl_sendMail(url, "<\(from)>", list.baseAddress, 1, user, password, bytes.baseAddress, bytes.count, timeoutSeconds, isLoopback ? 0 : 1, &error)
            }
        }
        guard code == 0 else { throw Failure(description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
    }

    static let dateFormatter: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return f
    }()
}
