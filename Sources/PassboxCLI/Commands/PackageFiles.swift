import Foundation

/// `passbox package-files ROOT` (not listed; `scripts/make-deb.sh` runs it): every file of the Debian package
/// that this binary derives from its own tables, written under ROOT as the package lays them out: the manual
/// pages (uncompressed), the bash, zsh and fish completions, the browser extension's native messaging host (a
/// script and its manifests for Chromium and Firefox in their system folders) and the passbox-link: handler's
/// desktop entry. The files that are not derived (systemd units, the PAM file, the server's configuration, the
/// licences) are in dist/.
enum PackageFiles {
    static let binary = "/usr/bin/passbox"
    static let hostScript = "/usr/lib/passbox/browser-host"

    static func write(_ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox package-files ROOT")
        let root = args.positionals[0]
        var files: [(path: String, text: String, mode: Int)] = []
        for (name, text) in Manual.pages() {
            files.append(("/usr/share/man/man\(name.suffix(1))/\(name)", text, 0o644))
        }
        files.append(("/usr/share/bash-completion/completions/passbox", Completion.bash() + "\n", 0o644))
        files.append(("/usr/share/zsh/vendor-completions/_passbox", Completion.zsh(), 0o644))
        files.append(("/usr/share/fish/vendor_completions.d/passbox.fish", Completion.fish() + "\n", 0o644))
        // The browsers start the host with arguments of their own; it serves the user's default data directory.
        files.append((hostScript, "#!/bin/sh\n# The Passbox browser extension's native messaging host (passbox browser-host).\nexec \(binary) browser-host\n", 0o755))
        for (folder, firefox) in [("/etc/chromium/native-messaging-hosts", false), ("/usr/lib/mozilla/native-messaging-hosts", true)] {
            let target = Commands.HostTarget(browser: firefox ? "firefox" : "chromium", folder: folder, marker: folder, firefox: firefox)
            files.append(("\(folder)/\(Commands.browserHostName).json", String(decoding: try Commands.hostManifest(target, script: hostScript), as: UTF8.self), 0o644))
        }
        files.append(("/usr/share/applications/passbox-link.desktop", Commands.systemDesktopEntry(binary: binary), 0o644))
        for file in files {
            let path = root + file.path
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: path, contents: Data(file.text.utf8), attributes: [.posixPermissions: file.mode]) else {
                throw CLIError.failure("cannot write \(path)")
            }
            Console.out(file.path)
        }
    }
}
