import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxWording

/// The `passbox` command line: parses the global options, runs one command from the command table, maps
/// errors to exit codes (0 ok, 1 failure, 2 usage, 3 wrong password or locked).
public enum CommandLineTool {
    public static let version = ProtocolVersion.product

    public static func main(_ arguments: [String]) -> Int32 {
        // The parse child (ParseChild): started by the agent or the CLI itself for one job, never by people.
        if arguments.count == 2, arguments[1] == "parse-child" { return ParseChild.serve() }
        // Nothing secret is in memory yet, but every path below may unlock a vault.
        ProcessHardening.disableCoreDumps()
        var words = Array(arguments.dropFirst())
        let language = Language.fromEnvironment()
        do {
            var dataOption: String?
            while let first = words.first, first.hasPrefix("-") {
                if first == "--data" {
                    guard words.count >= 2 else { throw CLIError.usage("--data needs a directory") }
                    dataOption = words[1]
                    words.removeFirst(2)
                } else if first.hasPrefix("--data=") {
                    dataOption = String(first.dropFirst(7))
                    words.removeFirst()
                } else if first == "--version" {
                    Console.out("passbox \(version)")
                    return 0
                } else if first == "--help" || first == "-h" {
                    words = ["help"] + words.dropFirst()
                } else {
                    break
                }
            }
            let context = Context(dataDirectory: canonicalDataDirectory(dataOption ?? defaultDataDirectory()), language: language)
            // A settings file that cannot be read means the strictest settings: say so on every command.
            if let damaged = Settings.loadChecked(context.dataDirectory).damagedPath {
                Console.err("passbox: warning: " + Console.visible(context.tr("warning.settingsDamaged", ["path": damaged])))
            }
            Commands.remindOfTheKit(context, command: words.first)
            try CommandTable.dispatch(words, context)
            return 0
        } catch let exit as ExitCode {
            return exit.code
        } catch let error as StoreError {
            return report(ProtocolError.from(error), language)
        } catch let error as VaultError {
            return report(ProtocolError.from(error), language)
        } catch let e as ProtocolError {
            return report(e, language)
        } catch let e as ValidationError {
            return report(ProtocolError.from(e), language, exitCode: 1)
        } catch {
            let e = CLIError.from(error)
            Console.err("passbox: error: \(Console.visible(e.message))")
            if let hint = e.hint { Console.err("passbox: hint: \(Console.visible(hint))") }
            return e.code.rawValue
        }
    }

    /// Prints a protocol error in the user's language.
    static func report(_ e: ProtocolError, _ language: Language, exitCode: Int32? = nil) -> Int32 {
        let (message, hint) = Wording.error(e, language)
        Console.err("passbox: error: \(Console.visible(message))")
        if let hint { Console.err("passbox: hint: \(Console.visible(hint))") }
        return exitCode ?? e.exitCode
    }

    /// The data directory as one canonical path: the agent's socket is named after it, so `--data vault`,
    /// `--data /home/me/vault/`, `--data ./x/../vault` and a spelling through a symbolic link must reach the
    /// same agent. Symbolic links are resolved where the directory exists; one that does not yet (`init`
    /// makes it, and starts no agent) is only made absolute and standardised.
    static func canonicalDataDirectory(_ directory: String) -> String {
        URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// `PASSBOX_DATA_DIR`, else `$XDG_DATA_HOME/passbox`, else `~/.local/share/passbox`.
    static func defaultDataDirectory() -> String {
        func env(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        if let dir = env("PASSBOX_DATA_DIR"), !dir.isEmpty { return dir }
        if let xdg = env("XDG_DATA_HOME"), xdg.hasPrefix("/") { return xdg + "/passbox" }
        if let home = env("HOME"), home.hasPrefix("/") { return home + "/.local/share/passbox" }
        return NSHomeDirectory() + "/.local/share/passbox"
    }
}

/// What every command shares: where the data is, the input, the language, and where requests go.
final class Context {
    let dataDirectory: String
    let input: InputSource
    /// English or German (PASSBOX_LANG, LC_ALL, LC_MESSAGES, LANG).
    let language: Language
    lazy var store = VaultStore.serving(dataDirectory)
    lazy var endpoint = Endpoint(self)

    init(dataDirectory: String, input: InputSource = SecretInput(), language: Language = Language.fromEnvironment()) {
        self.dataDirectory = dataDirectory
        self.input = input
        self.language = language
    }

    /// Sends a request through the agent, or answers it in process.
    @discardableResult
    func send(_ request: Request) throws -> Reply { try endpoint.send(request) }

    func tr(_ key: String, _ arguments: [String: String] = [:]) -> String { Localization.tr(key, language, arguments) }
}
