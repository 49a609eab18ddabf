import Foundation
import PassboxCore
import PassboxWording

/// The UI's files, read once from the module's resources into memory, and the JSON made from the product's
/// own tables: every string in English and German (`/strings/en.json`, `/strings/de.json`, the same tables
/// the command line words its output with) and the categories with their fields (`/catalog.json`).
struct WebAssets: Sendable {
    struct File: Sendable {
        let bytes: [UInt8]
        let type: String
    }

    private let files: [String: File]

    func file(_ path: String) -> File? { files[path] }

    /// Every path served, for the test that weighs the page.
    var paths: [String] { files.keys.sorted() }

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "woff2": "font/woff2", "json": "application/json", "txt": "text/plain; charset=utf-8", "png": "image/png",
    ]

    static func load() throws -> WebAssets {
        // Under PASSBOX_RESOURCES, beside the executable as SwiftPM lays resources out, or under /usr/share/passbox
        // (`InstalledResources`; looked up here rather than through `Bundle.module`, which stops the process when
        // the folder is missing: an incomplete install must not take the agent down).
        let candidates = InstalledResources.candidates("Passbox_PassboxWeb.resources").map { $0 + "/UI" }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/index.html") }) else {
            throw WebServerError(reason: "the web UI's files are missing (looked in \(candidates.joined(separator: ", ")))")
        }
        var files = [String: File]()
        let base = URL(fileURLWithPath: found).resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: base) else { throw WebServerError(reason: "the web UI's files are missing at \(base)") }
        while let relative = walker.nextObject() as? String {
            let full = base + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let ext = (relative as NSString).pathExtension
            guard let type = types[ext], let data = FileManager.default.contents(atPath: full) else { continue }
            files["/" + relative] = File(bytes: ext == "js" ? withoutCommentLines(Array(data)) : Array(data), type: type)
        }
        guard files["/index.html"] != nil else { throw WebServerError(reason: "the web UI's index.html is missing at \(base)") }
        // The design tokens become a style sheet; the JSON itself is not served.
        guard let tokens = files.removeValue(forKey: "/tokens.json") else { throw WebServerError(reason: "the web UI's tokens.json is missing at \(base)") }
        files["/app/tokens.css"] = File(bytes: Array(try DesignTokens.parse(Data(tokens.bytes)).css.utf8), type: types["css"]!)
        for language in Language.allCases {
            files["/strings/\(language.rawValue).json"] = File(bytes: try json(strings(language)), type: types["json"]!)
            files["/strings/\(language.rawValue).later.json"] = File(bytes: try json(laterStrings(language)), type: types["json"]!)
        }
        files["/catalog.json"] = File(bytes: try json(catalog()), type: types["json"]!)
        return WebAssets(files: files)
    }

    /// A script as served: its lines that are only a `//` comment left out (the sources keep them; the page
    /// weighs about 11 KiB less). No script has such a line inside a template literal (WebUIFileTests checks).
    static func withoutCommentLines(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var first = true
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let start = line.firstIndex { $0 != 0x20 } ?? line.endIndex
            if line[start...].starts(with: [0x2F, 0x2F]) { continue }
            if !first { out.append(0x0A) }
            out.append(contentsOf: line)
            first = false
        }
        return out
    }

    /// The first parts of the keys the page words anything with: its own (`ui.`), the errors and the facts
    /// the agent sends as keys (strength warnings, quick-unlock reasons, sync notices, activity kinds…). The
    /// command line's help and prompts stay out of the page's weight.
    static let pagePrefixes: Set<Substring> = ["ui", "error", "check", "sync", "twoFactor", "strength", "activity", "secretKey", "invitation", "fill", "quickUnlock", "keyCheck", "import", "export"]

    /// A language's table as the page gets it: the keys under `pagePrefixes`.
    static func strings(_ language: Language) -> [String: String] {
        Localization.table(language).filter {
            (pagePrefixes.contains($0.key.split(separator: ".", maxSplits: 1).first ?? "") || pageKeys.contains($0.key)) && !isLater($0.key)
        }
    }

    /// Keys the page uses under prefixes whose rest it does not (the Emergency Kit's text is the PDF's).
    static let pageKeys: Set<String> = ["kit.confirmed"]

    /// The wording of refused values and unreadable images (`invalid.*`, `qr.*`), of the paired browsers in
    /// Settings (`ui.browsers.*`) and of the extension's own failures, fetched once the page is up: no first
    /// screen needs it to draw.
    static func laterStrings(_ language: Language) -> [String: String] {
        Localization.table(language).filter { isLater($0.key) }
    }

    static func isLater(_ key: String) -> Bool {
        let bare = key.hasPrefix("ui.error.") ? String(key.dropFirst(3)) : key
        return laterPrefixes.contains { key.hasPrefix($0) } || laterErrors.contains(bare.split(separator: ".").prefix(2).joined(separator: "."))
    }

    /// Wording no first screen draws with: refused values and unreadable images, and what only screens reached
    /// from the navigation use (Settings' paired browsers, backups, imports and exports, duress and erasing;
    /// the account page's activity and two-factor sign-in), fetched once the
    /// page is up (those screens wait for it: `ready()` in i18n.js). Family & Team's wording (`ui.org.`) and the
    /// command line's words it reuses (roles, kinds, access, trust, warnings and their reasons) too.
    static let laterPrefixes = [
        "invalid.", "qr.", "ui.browsers.", "ui.backup.", "ui.import.", "ui.export.", "import.", "export.", "ui.duress.", "ui.erase.", "ui.wipe.", "activity.",
        "twoFactor.", "ui.org.", "ui.link.", "device.via.", "org.role.", "org.kind.", "org.access.", "org.trust.", "org.trusted", "org.invited.trusted", "sharing.warning.",
        "sharing.problem.", "sharing.link.", "sharing.serverMatches", "ui.vault.icon.", "ui.vault.colour.",
        // Settings, the editor and the account page's Recovery wait for them too (`ready()`): issue 34's last
        // screens brought the first visit over its 300 KiB.
        "ui.settings.", "ui.edit.", "ui.account.recovery.",
    ]

    /// Failures only the browser extension's host meets, and sharing's (met on the Family & Team page, which
    /// waits for these strings): the page words them should one ever reach it.
    static let laterErrors: Set<String> = [
        "error.notPaired", "error.handshakeFailed", "error.agentUnavailable", "error.pairingsWaiting", "error.browsersFileDamaged", "error.contactNotFound", "error.notAMember",
        "error.sharingRefused", "error.contactKeyChanged", "error.organisationNotFound", "error.invitationLinkInvalid", "error.memberNotFound", "error.lastOwner", "error.viewOnly", "error.vaultShared",
    ]

    static func json<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    struct CatalogField: Encodable {
        let key: String
        let label: String
        let kind: String
        let concealed: Bool
    }

    struct CatalogCategory: Encodable {
        let name: String
        let displayName: String
        let fields: [CatalogField]
    }

    /// The categories in menu order, each with the typed fields a new item starts with.
    static func catalog() -> [CatalogCategory] {
        Category.all.map { category in
            CatalogCategory(
                name: category.rawValue, displayName: category.displayName,
                fields: category.fieldTemplates.map { CatalogField(key: $0.key, label: $0.label, kind: $0.kind.rawValue, concealed: $0.kind.isConcealed) })
        }
    }
}
