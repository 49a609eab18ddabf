import Foundation

/// An invitation to an organisation: `https://SERVER/invite/TOKEN#org=CODE` (security.md §6). The token is
/// the server's; the fragment, which browsers and Passbox never send to a server, names the organisation
/// (`MemberListChain.organisationCode`), so the invitee checks that the list the server shows is the one the
/// inviter meant.
public struct InvitationLink: Sendable, Equatable {
    public let server: String
    public let token: String
    public let organisation: String

    public init(server: String, token: String, organisation: String) {
        self.server = server
        self.token = token
        self.organisation = organisation
    }

    public var text: String { "\(server)/invite/\(token)#org=\(organisation)" }

    public enum Problem: String, Error, Sendable, Equatable {
        /// No `…/invite/…` link in the text.
        case noLink
        /// A link without `#org=`: the organisation cannot be checked.
        case noOrganisation
    }

    /// Finds the first invitation link in `text` (a pasted link, or a whole mail holding one). Also taken (SHR-10):
    /// `passbox://invite?link=<the https link, percent-encoded>` and `passbox://invite/TOKEN#org=CODE`, whose
    /// server is the account's own (`server` is then empty).
    public init(finding text: String) throws {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "<" || $0 == ">" || $0 == "\"" || $0 == "'" })
        if let wrapped = words.first(where: { $0.hasPrefix("passbox://invite?link=") }) {
            guard let inner = String(wrapped.dropFirst("passbox://invite?link=".count)).removingPercentEncoding, inner.hasPrefix("http") else { throw Problem.noLink }
            try self.init(finding: inner)
            return
        }
        if let bare = words.first(where: { $0.hasPrefix("passbox://invite/") }) {
            let parsed = try InvitationLink(finding: "https://placeholder.invalid/invite/" + bare.dropFirst("passbox://invite/".count))
            self.init(server: "", token: parsed.token, organisation: parsed.organisation)
            return
        }
        guard let word = words.first(where: { $0.contains("/invite/") && ($0.hasPrefix("https://") || $0.hasPrefix("http://")) }) else { throw Problem.noLink }
        let link = String(word)
        let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        guard let marker = path.range(of: "/invite/") else { throw Problem.noLink }
        let token = String(path[marker.upperBound...]).trimmingCharacters(in: CharacterSet(charactersIn: "/.,;)"))
        guard !token.isEmpty, token.utf8.count <= 128, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw Problem.noLink
        }
        let fragment = parts.count > 1 ? String(parts[1]) : ""
        let org = fragment.split(separator: "&").first { $0.hasPrefix("org=") }.map { String($0.dropFirst(4)).trimmingCharacters(in: CharacterSet(charactersIn: ".,;)")) }
        guard let org, !org.isEmpty, org.utf8.count <= 64, org.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw Problem.noOrganisation
        }
        self.init(server: String(path[..<marker.lowerBound]), token: token, organisation: org)
    }
}
