import Foundation
import PassboxKit
import PassboxProtocol
import PassboxService
import PassboxStore

/// `passbox link show` and `passbox link accept`: signing in on another device with a one-time code or QR
/// code (issue 33). The code carries the secret that authenticates both devices' keys; the server relays.
extension Commands {
    static let linkUsage = """
        passbox link show [--wait SECONDS]      (on a signed-in device: a code and QR code for a new one)
               link install                     (opens passbox-link: addresses in a terminal with passbox link)
               link accept --server URL [--name NAME]   (on the new device: the code on standard input)
               link accept --uri passbox-link:v1?…      (or: passbox link passbox-link:v1?…)
        """

    static func link(_ c: Context, _ a: Arguments) throws {
        let first = a.positionals.first ?? ""
        switch first {
        case "show":
            try a.expectPositionals(1...1, usage: linkUsage)
            try linkShow(c, a)
        case "accept":
            try a.expectPositionals(1...1, usage: linkUsage)
            try linkAccept(c, a, uri: a.value("uri"))
        case "install":
            try a.expectPositionals(1...1, usage: linkUsage)
            try linkInstall(c)
        case _ where first.hasPrefix("passbox-link:"):
            // The desktop entry for x-scheme-handler/passbox-link calls `passbox link URI`.
            try a.expectPositionals(1...1, usage: linkUsage)
            try linkAccept(c, a, uri: first)
        default:
            throw CLIError.usage("usage: \(linkUsage)")
        }
    }

    static func linkShow(_ c: Context, _ a: Arguments) throws {
        let wait = try a.value("wait").map { try Double($0).orThrow(CLIError.usage("usage: \(linkUsage)")) }
        let offer = try LinkOperations.open(dataDirectory: c.dataDirectory)
        Console.out(c.tr("link.show.code", ["date": Output.date(offer.expires), "server": offer.server]))
        Console.out("    " + offer.code)
        if let qr = TerminalQR.render(offer.uri) { Console.out(qr) }
        Console.out(c.tr("link.show.uri", ["uri": offer.uri]))
        Console.err(c.tr("link.show.waiting"))
        // Whatever goes wrong from here on closes the link: nothing is left open at the server.
        var sent = false
        defer { if !sent { LinkOperations.decline(offer) } }
        let asking = try LinkOperations.awaitDevice(offer, until: wait.map { Date().addingTimeInterval($0) })
        Console.out(c.tr("link.show.asking", ["name": Console.visibleLine(asking.name), "address": Console.visibleLine(asking.address ?? "?"), "email": offer.email]))
        Console.out("    " + asking.code)
        Console.write(c.tr("link.show.confirm"), error: true)
        let answer = (c.input.readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard ["yes", "y", "ja", "j"].contains(answer) else { throw CLIError.failure(c.tr("link.show.declined")) }
        // The new device's record is signed with the account's key: the master password opens it (and no one at
        // an unattended terminal links a device).
        let password = try c.input.secretText(prompt: c.tr("link.show.password"))
        let key = try LinkOperations.signingKey(password: password, dataDirectory: c.dataDirectory)
        try LinkOperations.confirm(offer, asking, signingKey: key, dataDirectory: c.dataDirectory)
        sent = true
        Console.out(c.tr("link.show.sent", ["name": Console.visibleLine(asking.name)]))
    }

    /// The desktop entry for `x-scheme-handler/passbox-link` (LNK-5): a passbox-link: address opened from a
    /// camera app or a browser runs `passbox link URI` in a terminal (it asks for the master password there).
    static func linkInstall(_ c: Context) throws {
        let environment = ProcessInfo.processInfo.environment
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? homeDirectory() + "/.local/share"
        let folder = dataHome + "/applications"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let binary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        // Paths a desktop entry's Exec line cannot carry plainly are refused rather than escaped half-right.
        for path in [binary, c.dataDirectory] where path.contains(where: { "\"`$\\%\n".contains($0) }) {
            throw CLIError.failure(c.tr("link.install.path", ["path": path]))
        }
        let path = folder + "/passbox-link.desktop"
        try writeFile(Array(desktopEntry(binary: binary, dataDirectory: c.dataDirectory).utf8), to: path, mode: 0o644)
        Console.out(c.tr("link.installed", ["path": path]))
        // The handler becomes the default where xdg-utils is installed; otherwise the entry's MimeType line is
        // what desktops read.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/xdg-mime") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/xdg-mime")
            process.arguments = ["default", "passbox-link.desktop", "x-scheme-handler/passbox-link"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try? process.run()
            process.waitUntilExit()
        }
    }

    /// The entry's text: `Exec`'s arguments in double quotes (the paths hold none of the characters the
    /// Desktop Entry Specification would have escaped: `linkInstall` checks).
    static func desktopEntry(binary: String, dataDirectory: String) -> String {
        func quoted(_ s: String) -> String { "\"" + s + "\"" }
        return desktopEntry(exec: "\(quoted(binary)) --data \(quoted(dataDirectory)) link %u")
    }

    /// The Debian package's entry (/usr/share/applications): the installed binary, the user's own data directory.
    static func systemDesktopEntry(binary: String) -> String {
        desktopEntry(exec: "\(binary) link %u")
    }

    static func desktopEntry(exec: String) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=Passbox
        Comment=Sign in on this device with a code from another
        Exec=\(exec)
        Terminal=true
        NoDisplay=true
        MimeType=x-scheme-handler/passbox-link;

        """
    }

    static func linkAccept(_ c: Context, _ a: Arguments, uri: String?) throws {
        if let existing = try AccountRecord.load(c.dataDirectory) {
            throw ProtocolError(.alreadySignedIn, ["email": existing.email, "server": existing.server])
        }
        let server: String
        let secret: LinkSecret
        if let uri {
            (server, secret) = try LinkSecret.parse(uri: uri)
            // An address can come from anywhere (a web page, a mail): it names the server it signs in to, so the
            // user says that is theirs before anything is sent (a stranger's link would ask for the master password
            // on a stranger's server).
            Console.out(c.tr("link.accept.server.check", ["server": server]))
            Console.write(c.tr("link.accept.server.ask"), error: true)
            let answer = (c.input.readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            guard ["yes", "y", "ja", "j"].contains(answer) else { throw CLIError.failure(c.tr("link.show.declined")) }
        } else {
            guard let given = a.value("server") else { throw CLIError.usage(c.tr("link.accept.server"), hint: "passbox link accept --server URL") }
            server = given
            if c.input.isTerminal { Console.write(c.tr("link.accept.prompt"), error: true) }
            let typed = c.input.readLine() ?? ""
            // A pasted address works here too.
            secret = typed.contains("passbox-link:") ? try LinkSecret.parse(uri: typed).secret : try LinkSecret(code: typed)
        }
        let name = a.value("name") ?? ProcessInfo.processInfo.hostName
        let joining = try LinkOperations.Joining(server: server, secret: secret, name: name)
        let until = Date().addingTimeInterval(600)
        let credentials: LinkExchange.Credentials
        do {
            let code = try joining.awaitAnswer(until: until)
            Console.out(c.tr("link.accept.code"))
            Console.out("    " + code)
            credentials = try joining.awaitCredentials(until: until)
        } catch {
            joining.cancel()
            throw error
        }
        Console.out(c.tr("link.accept.received", ["email": credentials.email, "server": credentials.server]))
        // Only the master password is typed: it never travels.
        let password = try c.input.secretText(prompt: c.tr("account.prompt.master"))
        Console.err(c.tr("account.deriving"))
        let request = AccountSignInRequest(server: credentials.server, email: credentials.email, password: password, secretKey: SecretText(credentials.secretKey), deviceName: name)
        let session = try AccountOperations.signIn(request, dataDirectory: c.dataDirectory, deviceID: joining.deviceID, attestation: credentials.attestation) {
            do {
                return try c.input.secret(prompt: c.tr("twoFactor.prompt.code"))
            } catch let error as CLIError where error.code == .usage {
                throw ProtocolError(.twoFactorRequired)
            }
        }
        Console.out(c.tr("account.signedIn", ["email": session.email, "server": credentials.server]))
    }
}

extension Optional {
    fileprivate func orThrow(_ error: @autoclosure () -> Error) throws -> Wrapped {
        guard let self else { throw error() }
        return self
    }
}
