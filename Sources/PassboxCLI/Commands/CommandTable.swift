import Foundation

/// One command of the command line: its name, what it does, how it is called, its options, and what runs
/// it. Dispatch, help, `--help` on every command and the shell completions all come from `CommandTable`.
struct CommandSpec: Sendable {
    let name: String
    var aliases: [String] = []
    let summary: String
    let usage: String
    var valued: Set<String> = []
    var flags: Set<String> = []
    var subcommands: [CommandSpec] = []
    /// Shown in help and completions (the clipboard helpers and the agent itself are not).
    var isListed = true
    /// Whether it talks to the agent when one runs (the rest run in this process).
    var usesAgent = false
    /// Takes its words as they are (run: everything after `--` is the child's command line).
    var takesRawWords = false
    let run: @Sendable (Context, Arguments, [String]) throws -> Void
}

enum Commands {}

enum CommandTable {
    // Test hooks exist only in debug builds (what `make test` runs); the release binary `make run` builds
    // refuses them as unknown options: a cheap key derivation, an agent auto-lock in seconds, another PAM
    // service.
    #if DEBUG
        static let testValued: Set<String> = ["test-auto-lock-seconds", "pam-service", "test-catalogue-seconds"]
        static let testFlags: Set<String> = ["insecure-test-kdf"]
    #else
        static let testValued: Set<String> = []
        static let testFlags: Set<String> = []
    #endif
    static let item = ItemOptions.valued.union(GeneratorOptions.valued)
    static let itemFlags = ItemOptions.flags.union(GeneratorOptions.flags)

    static let commands: [CommandSpec] = [
        CommandSpec(name: "init", summary: "create the local vault (asks for a new password)", usage: "passbox init", flags: testFlags) { c, a, _ in try Commands.initVault(c, a) },
        CommandSpec(
            name: "passwd", summary: "change the vault password (only this vault's slot is rewritten), or with --account the account's master password",
            usage: "passbox passwd [--account]", flags: ["account"], usesAgent: true
        ) { c, a, _ in try a.flag("account") ? Commands.changeAccountPassword(c, a) : Commands.changePassword(c, a) },
        CommandSpec(
            name: "add", summary: "add an item", usage: Commands.addUsage, valued: item.union(["vault"]), flags: itemFlags, usesAgent: true
        ) { c, a, _ in try Commands.add(c, a) },
        CommandSpec(
            name: "edit", summary: "change an item (the old version stays in its history)",
            usage: "passbox edit ITEM [options of add] [--remove-field NAME] [--remove-passkey CREDENTIAL] [--no-favorite]", valued: item.union(["remove-field", "remove-passkey"]),
            flags: itemFlags.union(["no-favorite"]), usesAgent: true
        ) { c, a, _ in try Commands.edit(c, a) },
        CommandSpec(
            name: "list", aliases: ["ls"], summary: "the items: id, title, category, a safe summary",
            usage: "passbox list [--category C] [--tag T] [--favorites] [--codes] [--sort newest|oldest|az|za|recent] [--vault VAULT] [--json]",
            valued: ["category", "tag", "sort", "vault"], flags: ["favorites", "codes", "json"], usesAgent: true
        ) { c, a, _ in try Commands.list(c, a) },
        CommandSpec(
            name: "show", aliases: ["get"], summary: "one item, concealed values masked", usage: "passbox show ITEM [--reveal] [--field NAME] [--large] [--json]",
            valued: ["field"], flags: ["reveal", "json", "large"], usesAgent: true
        ) { c, a, _ in try Commands.show(c, a) },
        CommandSpec(name: "rm", aliases: ["delete"], summary: "move an item to the trash", usage: "passbox rm ITEM", usesAgent: true) { c, a, _ in try Commands.remove(c, a) },
        CommandSpec(
            name: "trash", summary: "trashed items (deleted for good after 30 days)", usage: "passbox trash [list | restore ITEM | delete ITEM | empty]", flags: ["json"],
            subcommands: [
                CommandSpec(name: "list", summary: "what is in the trash", usage: "passbox trash list [--json]", flags: ["json"], usesAgent: true) { c, a, _ in try Commands.trashList(c, a) },
                CommandSpec(name: "restore", summary: "take an item out of the trash", usage: "passbox trash restore ITEM", usesAgent: true) { c, a, _ in try Commands.trashRestore(c, a) },
                CommandSpec(name: "delete", summary: "delete a trashed item for good", usage: "passbox trash delete ITEM", usesAgent: true) { c, a, _ in try Commands.trashDelete(c, a) },
                CommandSpec(name: "empty", summary: "delete every trashed item for good", usage: "passbox trash empty", usesAgent: true) { c, a, _ in try Commands.trashEmpty(c, a) },
            ], usesAgent: true
        ) { c, a, _ in try Commands.trashList(c, a) },
        CommandSpec(
            name: "history", summary: "an item's earlier versions, newest first; restore one", usage: "passbox history ITEM [restore VERSION] [--reveal] [--json]",
            flags: ["reveal", "json"], usesAgent: true
        ) { c, a, _ in try Commands.history(c, a) },
        CommandSpec(
            name: "search", aliases: ["find"], summary: "ranked, accent- and typo-tolerant search",
            usage: "passbox search QUERY [--scope all|name|username|website|notes] [--limit N] [--json]", valued: ["scope", "limit"], flags: ["json"], usesAgent: true
        ) { c, a, _ in try Commands.search(c, a) },
        CommandSpec(
            name: "totp", aliases: ["otp"], summary: "one-time codes", usage: Commands.totpUsage, flags: ["watch", "json"],
            subcommands: [
                CommandSpec(name: "add", summary: "set an item's one-time password", usage: "passbox totp add ITEM (--qr IMAGE | --uri-stdin)", valued: ["qr"], flags: ["uri-stdin"], usesAgent: true) {
                    c, a, _ in try Commands.totpAdd(c, a)
                },
                CommandSpec(
                    name: "import", summary: "import a Google Authenticator export", usage: "passbox totp import (--qr IMAGE | --uri-stdin) [--all | --select 1,3] [--to-logins]",
                    valued: ["qr", "select"], flags: ["uri-stdin", "all", "to-logins"], usesAgent: true
                ) { c, a, _ in try Commands.totpImport(c, a) },
            ], usesAgent: true
        ) { c, a, _ in try Commands.totpShow(c, a) },
        CommandSpec(
            name: "check", summary: "Security Check: score, what to fix first, every weakness", usage: Commands.checkUsage, valued: ["kind"], flags: ["json", "breaches"],
            subcommands: [
                CommandSpec(name: "dismiss", summary: "stop counting a finding", usage: "passbox check dismiss ITEM KIND", usesAgent: true) { c, a, _ in try Commands.checkDismiss(c, a, dismiss: true) },
                CommandSpec(name: "undismiss", summary: "count a finding again", usage: "passbox check undismiss ITEM KIND", usesAgent: true) { c, a, _ in try Commands.checkDismiss(c, a, dismiss: false) },
                CommandSpec(name: "fix-https", summary: "switch http:// addresses to https://", usage: "passbox check fix-https (ITEM | --all)", flags: ["all"], usesAgent: true) {
                    c, a, _ in try Commands.checkFixHTTPS(c, a)
                },
                CommandSpec(name: "breaches", summary: "turn the opt-in breached-password check on or off", usage: "passbox check breaches on [--yes] | off", flags: ["yes"]) {
                    c, a, _ in try Commands.checkBreachesSetting(c, a)
                },
                CommandSpec(name: "settings", summary: "the breach check's settings", usage: "passbox check settings [range-url URL]") { c, a, _ in try Commands.checkSettings(c, a) },
                CommandSpec(
                    name: "update-data", summary: "refresh the breach catalogue and the 2FA list",
                    usage: "passbox check update-data [--breaches-file F | --breaches-url URL] [--2fa-file F | --2fa-url URL] [--passkeys-file F | --passkeys-url URL]",
                    valued: ["breaches-file", "breaches-url", "2fa-file", "2fa-url", "passkeys-file", "passkeys-url"]
                ) { c, a, _ in try Commands.checkUpdateData(c, a) },
            ], usesAgent: true
        ) { c, a, _ in try Commands.checkReport(c, a) },
        CommandSpec(
            name: "fill", summary: "the logins for a site, then the secret of the one picked",
            usage: "passbox fill URL [--pick ITEM [--field NAME] [--confirm-other-site]] [--json]", valued: ["pick", "field"], flags: ["confirm-other-site", "json"],
            usesAgent: true
        ) { c, a, _ in try Commands.fill(c, a) },
        CommandSpec(
            name: "read", summary: "one value for scripts", usage: "passbox read passbox://VAULT/ITEM/FIELD [--no-newline]", flags: ["no-newline", "mark-used"], usesAgent: true
        ) { c, a, _ in try Commands.read(c, a) },
        CommandSpec(
            name: "run", summary: "run a command with passbox:// references in its environment resolved and masked",
            usage: "passbox run [--env-file FILE] [--no-masking] -- COMMAND [ARGS…]", valued: ["env-file"], flags: ["no-masking"], usesAgent: true, takesRawWords: true
        ) { c, _, words in try Commands.runCommand(c, words) },
        CommandSpec(
            name: "inject", summary: "fill {{ passbox://… }} references in a template; the output file is 0600", usage: "passbox inject -i TEMPLATE [-o FILE]",
            valued: ["i", "o", "in-file", "out-file"], usesAgent: true
        ) { c, a, _ in try Commands.inject(c, a) },
        CommandSpec(
            name: "copy", summary: "copy a value to the clipboard, cleared after 90 s if unchanged", usage: "passbox copy ITEM [FIELD] [--clear-after SECONDS]",
            valued: ["clear-after"], usesAgent: true
        ) { c, a, _ in try Commands.copy(c, a) },
        CommandSpec(name: "clipboard-clear", summary: "(helper of copy and lock)", usage: "passbox clipboard-clear --after SECONDS | --primary", valued: ["after", "tool"], flags: ["primary"], isListed: false) {
            c, a, _ in try Commands.clipboardClear(c, a)
        },
        CommandSpec(name: "clipboard-serve", summary: "(helper of copy)", usage: "passbox clipboard-serve --after SECONDS", valued: ["after"], isListed: false) {
            c, a, _ in try Commands.clipboardServe(c, a)
        },
        CommandSpec(
            name: "generate", summary: "a random password, or a passphrase with --words N",
            usage:
                "passbox generate [--length N] [--no-upper] [--no-lower] [--no-digits] [--no-symbols] [--allow-similar] | --words N [--separator S] [--capitalize] [--digit] [--language en|de] [--json]",
            valued: GeneratorOptions.valued, flags: GeneratorOptions.flags.union(["json"])
        ) { c, a, _ in try Commands.generate(c, a) },
        CommandSpec(name: "strength", summary: "rate a password read from standard input", usage: "passbox strength [--json] < password", flags: ["json"]) {
            c, a, _ in try Commands.strength(c, a)
        },
        CommandSpec(name: "categories", summary: "every category and its typed fields", usage: "passbox categories") { _, _, _ in Commands.categories() },
        CommandSpec(
            name: "settings", summary: "auto-lock, quick unlock, the master password reminder, the clipboard time, erasing after failures, the breach catalogue's refresh",
            usage: Commands.settingsUsage
        ) { c, a, _ in try Commands.settings(c, a) },
        CommandSpec(
            name: "duress", summary: "a duress password: it opens a separate vault of its own", usage: Commands.duressUsage,
            subcommands: [
                CommandSpec(name: "set", summary: "set a new duress password (replaces this vault's earlier duress vault)", usage: "passbox duress set", usesAgent: true) {
                    c, a, _ in try Commands.duressSet(c, a)
                },
                CommandSpec(name: "change", summary: "change the duress password; its vault keeps what it holds", usage: "passbox duress change", usesAgent: true) {
                    c, a, _ in try Commands.duressChange(c, a)
                },
            ]
        ) { _, _, _ in throw CLIError.usage("passbox duress takes set or change", hint: Commands.duressUsage) },
        CommandSpec(
            name: "item", summary: "an item's own password: protect (seal its content) or unprotect", usage: Commands.itemUsage,
            subcommands: [
                CommandSpec(name: "protect", summary: "lock an item's content with a password of its own (asks twice)", usage: "passbox item protect ITEM", usesAgent: true) {
                    c, a, _ in try Commands.itemProtect(c, a)
                },
                CommandSpec(name: "unprotect", summary: "take the item's own password off", usage: "passbox item unprotect ITEM", usesAgent: true) {
                    c, a, _ in try Commands.itemUnprotect(c, a)
                },
            ]
        ) { _, _, _ in throw CLIError.usage("passbox item takes protect or unprotect", hint: Commands.itemUsage) },
        CommandSpec(
            name: "backup", summary: "an encrypted backup of the vault: a file, a PDF of QR codes, or auto-backup", usage: Commands.backupUsage,
            valued: ["file", "pdf", "paper"],
            subcommands: [
                CommandSpec(name: "password", summary: "set or change the backup password (asks for the vault password first)", usage: "passbox backup password [--hint TEXT]",
                    valued: ["hint"], flags: testFlags, usesAgent: true) { c, a, _ in try Commands.backupPassword(c, a) },
                CommandSpec(name: "auto", summary: "a new backup in DIR after each change, kept N days (or off)", usage: "passbox backup auto DIR [--keep-days N] [--yes] | off",
                    valued: ["keep-days"], flags: ["yes"], usesAgent: true) { c, a, _ in try Commands.backupAuto(c, a) },
                CommandSpec(name: "status", summary: "the backup password, auto-backup and the last backup", usage: "passbox backup status [--json]", flags: ["json"], usesAgent: true) {
                    c, a, _ in try Commands.backupStatus(c, a)
                },
            ], usesAgent: true
        ) { c, a, _ in try Commands.backup(c, a) },
        CommandSpec(
            name: "restore", summary: "restore a backup (a file, a PDF, or images of its codes) as new vaults, or --replace this one", usage: Commands.restoreUsage,
            flags: ["replace", "yes"], usesAgent: true
        ) { c, a, _ in try Commands.restore(c, a) },
        CommandSpec(
            name: "import", summary: "bring in another app's file (KeePass, Bitwarden JSON, 1PUX, CXF, CSV …): shows what it makes, then asks", usage: Commands.importUsage,
            valued: ["format", "key-file", "groups", "vault", "map"], flags: ["keep-duplicates", "dry-run", "yes", "json"], usesAgent: true
        ) { c, a, _ in try Commands.importFile(c, a) },
        CommandSpec(
            name: "export", summary: "write the items as a KeePass 4 file under a password of its own, or as Bitwarden JSON or CXF (new file, 0600)", usage: Commands.exportUsage,
            valued: ["format", "vault"], flags: testFlags.union(["with-passkeys"]), usesAgent: true
        ) { c, a, _ in try Commands.exportFile(c, a) },
        CommandSpec(
            name: "attach", summary: "keep a file with an item (photo, scan, PDF, any file), encrypted under its own key", usage: Commands.attachUsage,
            valued: ["name", "type"], flags: ["json"], usesAgent: true
        ) { c, a, _ in try Commands.attach(c, a) },
        CommandSpec(name: "attachments", summary: "an item's files: names, sizes, ids", usage: Commands.attachmentsUsage, flags: ["json"], usesAgent: true) {
            c, a, _ in try Commands.attachments(c, a)
        },
        CommandSpec(
            name: "save-attachment", summary: "decrypt an attachment into a new file (0600; it leaves the vault)", usage: Commands.saveAttachmentUsage,
            valued: ["out"], usesAgent: true
        ) { c, a, _ in try Commands.saveAttachment(c, a) },
        CommandSpec(name: "detach", summary: "remove an attachment from an item (asks first)", usage: Commands.detachUsage, flags: ["yes"], usesAgent: true) {
            c, a, _ in try Commands.detach(c, a)
        },
        CommandSpec(
            name: "delete-all-data", summary: "erase every vault in the vault file (asks for the password, then DELETE)", usage: "passbox delete-all-data", usesAgent: true
        ) { c, a, _ in try Commands.deleteAllData(c, a) },
        CommandSpec(
            name: "unlock", summary: "start the agent and unlock: no password per command until it locks", usage: "passbox unlock [--quick | --master]",
            valued: testValued, flags: ["quick", "master"]
        ) { c, a, _ in try AgentCommands.unlock(c, a) },
        CommandSpec(name: "lock", summary: "lock now (--forget: drop the quick-unlock key; --stop: end the agent)", usage: "passbox lock [--forget] [--stop]", flags: ["stop", "forget"]) {
            c, a, _ in try AgentCommands.lock(c, a)
        },
        CommandSpec(
            name: "sync", summary: "sync the account's vaults with the server now, and say what was merged", usage: "passbox sync [--json]", flags: ["json"], usesAgent: true
        ) { c, a, _ in try Commands.sync(c, a) },
        CommandSpec(
            name: "vault", summary: "the vaults: list, create, rename, restyle, delete",
            usage: "passbox vault [list | create NAME | edit VAULT | delete VAULT] [--name N] [--icon I] [--colour C] [--yes] [--json]",
            flags: ["json"],
            subcommands: [
                CommandSpec(name: "list", summary: "the vaults with their items", usage: "passbox vault list [--json]", flags: ["json"], usesAgent: true) { c, a, _ in try Commands.vaultList(c, a) },
                CommandSpec(
                    name: "create", summary: "make a vault", usage: "passbox vault create NAME [--icon ICON] [--colour COLOUR]", valued: ["icon", "colour"], usesAgent: true
                ) { c, a, _ in try Commands.vaultCreate(c, a) },
                CommandSpec(
                    name: "edit", aliases: ["rename"], summary: "rename a vault or change its icon or colour", usage: "passbox vault edit VAULT [--name NAME] [--icon ICON] [--colour COLOUR]",
                    valued: ["name", "icon", "colour"], usesAgent: true
                ) { c, a, _ in try Commands.vaultEdit(c, a) },
                CommandSpec(
                    name: "delete", summary: "delete a vault: asks first, then its items go to the trash of the first vault left",
                    usage: "passbox vault delete VAULT [--yes]", flags: ["yes"], usesAgent: true
                ) { c, a, _ in try Commands.vaultDelete(c, a) },
            ], usesAgent: true
        ) { c, a, _ in try Commands.vaultList(c, a) },
        CommandSpec(
            name: "move", aliases: ["mv"], summary: "move items to another vault (ids, history and dates kept), or copy them with --copy",
            usage: "passbox move ITEM... --to VAULT [--copy]", valued: ["to"], flags: ["copy"], usesAgent: true
        ) { c, a, _ in try Commands.move(c, a) },
        CommandSpec(name: "status", summary: "locked or unlocked, until when, what else locks it (exit 3 when locked)", usage: "passbox status [--json]", flags: ["json"]) {
            c, a, _ in try AgentCommands.status(c, a)
        },
        CommandSpec(name: "agent", summary: "the agent itself (started by unlock)", usage: "passbox agent", valued: testValued, flags: testFlags, isListed: false) {
            c, a, _ in try AgentCommands.runAgent(c, a)
        },
        CommandSpec(name: "ui", summary: "open the web UI in the browser (served by the agent on 127.0.0.1)", usage: "passbox ui [--no-open] [--print-url]", flags: ["no-open", "print-url"]) {
            c, a, _ in try AgentCommands.openUI(c, a)
        },
        CommandSpec(name: "signup", summary: "make an account on a passbox server (the Secret Key is made here)", usage: Commands.signupUsage, valued: ["server", "email", "device-name"], flags: ["invite"]) {
            c, a, _ in try Commands.signup(c, a)
        },
        CommandSpec(name: "signin", summary: "sign in to an account with the master password and Secret Key", usage: Commands.signinUsage, valued: ["server", "email", "device-name"], flags: ["remember-device", "accept-new-parameters"]) {
            c, a, _ in try Commands.signin(c, a)
        },
        CommandSpec(name: "account", summary: "the account: server, email, id, algorithms, signed-in devices", usage: "passbox account [--json]", flags: ["json"]) {
            c, a, _ in try Commands.account(c, a)
        },
        CommandSpec(
            name: "devices", summary: "the account's signed-in devices; sign one or all others out", usage: "passbox devices [signout DEVICE-ID | signout --others] [--json]",
            flags: ["json"],
            subcommands: [
                CommandSpec(name: "signout", summary: "sign another device out, or every other one", usage: "passbox devices signout DEVICE-ID | --others", flags: ["others"]) {
                    c, a, _ in try Commands.devicesSignout(c, a)
                }
            ]
        ) { c, a, _ in try Commands.devices(c, a) },
        CommandSpec(name: "activity", summary: "the account's last 50 events: sign-ups, sign-ins, sign-in attempts, sign-outs", usage: "passbox activity [--json]", flags: ["json"]) {
            c, a, _ in try Commands.activity(c, a)
        },
        CommandSpec(
            name: "2fa", summary: "two-factor sign-in with an authenticator app: status, enable, disable", usage: "passbox 2fa [enable | disable] [--json]", flags: ["json"],
            subcommands: [
                CommandSpec(name: "enable", summary: "turn it on: scan the QR code, type a code, keep the recovery codes", usage: "passbox 2fa enable") {
                    c, a, _ in try Commands.twoFactorEnable(c, a)
                },
                CommandSpec(name: "disable", summary: "turn it off (asks for the master password)", usage: "passbox 2fa disable") {
                    c, a, _ in try Commands.twoFactorDisable(c, a)
                },
            ]
        ) { c, a, _ in try Commands.twoFactorStatus(c, a) },
        CommandSpec(
            name: "recovery", summary: "the account's recovery code: status, or set up a new one", usage: "passbox recovery [setup] [--json]", flags: ["json"],
            subcommands: [
                CommandSpec(name: "setup", summary: "make a recovery code (asks for the master password; replaces an earlier one)", usage: "passbox recovery setup") {
                    c, a, _ in try Commands.recoverySetup(c, a)
                }
            ]
        ) { c, a, _ in try Commands.recoveryStatus(c, a) },
        CommandSpec(
            name: "recover", summary: "recover an account with its recovery code: a new master password and Secret Key", usage: Commands.recoverUsage,
            valued: ["server", "email", "device-name"], flags: ["family"]
        ) { c, a, _ in try Commands.recover(c, a) },
        CommandSpec(name: "kit", summary: "the Emergency Kit: a PDF with the Secret Key to print; then confirm you keep it", usage: Commands.kitUsage, valued: ["pdf"], flags: ["confirm"]) {
            c, a, _ in try Commands.kit(c, a)
        },
        CommandSpec(name: "signout", summary: "sign this device out and remove the Secret Key from it", usage: "passbox signout --forget-secret-key", flags: ["forget-secret-key"]) {
            c, a, _ in try Commands.signout(c, a)
        },
        CommandSpec(
            name: "server", summary: "run the account server here (accounts, sign-in, devices, two-factor; SQLite or PostgreSQL)", usage: Commands.serverUsage,
            valued: Commands.serverValued.union(["config"]),
            subcommands: [
                CommandSpec(
                    name: "invite", summary: "a single-use invitation for an email (for --signup invite)", usage: Commands.inviteUsage,
                    valued: ["days", "server-data", "database"]
                ) { c, a, _ in try Commands.serverInvite(c, a) },
                CommandSpec(
                    name: "backup", summary: "an online, consistent copy of the server's SQLite database into a new file (PostgreSQL: pg_dump)", usage: Commands.serverBackupUsage,
                    valued: ["to", "server-data", "database"]
                ) { c, a, _ in try Commands.serverBackup(c, a) },
                CommandSpec(
                    name: "restore", summary: "bring a backup back into a data directory that has no database", usage: Commands.serverRestoreUsage,
                    valued: ["from", "server-data"]
                ) { c, a, _ in try Commands.serverRestore(c, a) },
            ]
        ) { c, a, _ in try Commands.server(c, a) },
        CommandSpec(
            name: "browser", summary: "the browser extension: install its native messaging host, pair a browser, list and remove pairings",
            usage: Commands.browserUsage, valued: ["browser", "code", "wait"], flags: ["json"]
        ) { c, a, _ in try Commands.browser(c, a) },
        CommandSpec(
            name: "security-code", summary: "your security code, or a contact's (pinned at first sight; a change is shown and must be accepted)",
            usage: Commands.securityCodeUsage, flags: ["check", "accept-new", "json"]
        ) { c, a, _ in try Commands.securityCode(c, a) },
        CommandSpec(
            name: "org", summary: "families and teams: invite, confirm members by their security code, roles, groups, shared vaults and their keys",
            usage: Commands.orgUsage, valued: ["role", "vault"], flags: ["json", "preview", "codes-match", "without-comparing", "mail"]
        ) { c, a, _ in try Commands.org(c, a) },
        CommandSpec(
            name: "link", summary: "sign in on another device with a one-time code or QR code (the server cannot read or change what passes)",
            usage: Commands.linkUsage, valued: ["wait", "server", "uri", "name"]
        ) { c, a, _ in try Commands.link(c, a) },
        CommandSpec(name: "sharing", summary: "sharing's security warnings: changed keys, member lists that did not verify", usage: "passbox sharing warnings [--json]", flags: ["json"]) {
            c, a, _ in try Commands.sharing(c, a)
        },
        CommandSpec(name: "browser-host", summary: "the browser extension's native messaging host (started by the browser)", usage: "passbox browser-host", isListed: false) {
            c, a, _ in try Commands.browserHost(c, a)
        },
        CommandSpec(name: "welcome", summary: "where your data lives, and a short tour", usage: "passbox welcome") { c, a, _ in try Commands.welcome(c, a) },
        CommandSpec(
            name: "bench", summary: "the speed figures beside their targets", usage: "passbox bench vault|search|check|agent|list|save|browser|sharing|link|server|sync|ui|duress|backup|import|attach [--items N] [--runs N] [--queries N] [--seconds N] [--database URI] [--servers N,N] [--file F] [--merge-seconds S] [--members N] [--versions N] [--rotate-items N] [--serve]",
            valued: ["items", "runs", "queries", "seconds", "database", "servers", "file", "size-mib", "merge-seconds", "members", "versions", "rotate-items"], flags: ["json", "full-kdf", "no-pdf", "serve"]
        ) { c, a, _ in try Commands.bench(c, a) },
        CommandSpec(name: "completion", summary: "a shell completion script", usage: "passbox completion bash|zsh|fish") { _, a, _ in try Completion.print(a) },
        CommandSpec(name: "package-files", summary: "write the Debian package's generated files under a root (make deb)", usage: "passbox package-files ROOT", isListed: false) {
            _, a, _ in try PackageFiles.write(a)
        },
        CommandSpec(name: "help", summary: "the commands, or one command's options", usage: "passbox help [COMMAND [SUBCOMMAND]]") { _, a, _ in try Help.print(a.positionals) },
        CommandSpec(name: "version", summary: "the version", usage: "passbox version") { _, _, _ in Console.out("passbox \(CommandLineTool.version)") },
    ]

    static func find(_ name: String, in list: [CommandSpec] = commands) -> CommandSpec? {
        list.first { $0.name == name || $0.aliases.contains(name) }
    }

    /// Runs the command `words` names (the welcome without one).
    static func dispatch(_ words: [String], _ context: Context) throws {
        guard let name = words.first else {
            try Commands.welcome(context, Arguments([], valued: [], flags: []))
            return
        }
        guard var spec = find(name) else { throw CLIError.usage("unknown command \"\(name)\"") }
        var rest = Array(words.dropFirst())
        var path = [spec.name]
        if let first = rest.first, let sub = find(first, in: spec.subcommands) {
            spec = sub
            path.append(sub.name)
            rest.removeFirst()
        }
        let own = spec.takesRawWords ? Array(rest.prefix { $0 != "--" }) : Array(rest.prefix { $0 != "--" })
        if own.contains("--help") || own.contains("-h") {
            Help.printCommand(path)
            return
        }
        let args = spec.takesRawWords ? try Arguments([], valued: [], flags: []) : try Arguments(rest, valued: spec.valued, flags: spec.flags)
        try spec.run(context, args, rest)
    }
}
