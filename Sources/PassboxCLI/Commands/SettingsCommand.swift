import Foundation
import PassboxAgent
import PassboxClient
import PassboxProtocol
import PassboxStore

extension Commands {
    /// The settings this command changes, and their values: for help, the usage error and the unknown-name hint.
    static let settingValues = [
        ("auto-lock", "0|1|5|15|30|60"), ("quick-unlock", "on|off"), ("reminder", "14|30|never"), ("clipboard", "10-600"), ("erase-after-failures", "on|off"),
        ("breach-catalogue", "on|off|URL"),
    ]
    static let settingsUsage = "passbox settings [" + settingValues.map { "\($0.0) \($0.1)" }.joined(separator: " | ") + "]"

    /// `passbox settings [auto-lock MINUTES | quick-unlock on|off | reminder 14|30|never]`
    static func settings(_ context: Context, _ args: Arguments) throws {
        if args.positionals.isEmpty {
            let settings = try context.send(.settings).settings()
            Console.out("auto-lock: \(settings.autoLockMinutes) minutes (0 = after every command)")
            Console.out("breach check: \(settings.breachCheck ? "on" : "off")")
            let pam = SystemAuthentication.unavailability(service: SystemAuthentication.defaultService)
            let quick = settings.quickUnlock.map { $0 ? "on" : "off" } ?? (pam.map { "off (default: \($0))" } ?? "on (default where PAM is available)")
            Console.out("quick unlock: \(quick)")
            Console.out("master password reminder: \(settings.reminderDays == 0 ? "never" : "every \(settings.reminderDays) days")")
            Console.out("clipboard: cleared after \(settings.clipboardSeconds ?? Settings.defaultClipboardSeconds) seconds")
            if let erase = settings.eraseAfterFailures { Console.out("erase after 10 wrong passwords in a row: \(erase ? "on" : "off")") }
            Console.out("breach catalogue: \(settings.breachCatalogueURL.map { "refreshed from \($0) every 6 hours (without an account)" } ?? "not refreshed on its own (an account's comes from its server)")")
            return
        }
        try args.expectPositionals(2...2, usage: settingsUsage)
        let value = args.positionals[1]
        switch args.positionals[0] {
        case "auto-lock":
            guard let minutes = Int(value), [0, 1, 5, 15, 30, 60].contains(minutes) else {
                throw CLIError.usage("auto-lock takes 0 (immediately), 1, 5, 15, 30 or 60 minutes")
            }
            try context.send(.changeSetting(SettingRequest(name: "auto-lock", value: value)))
            Console.out(minutes == 0 ? "The agent now locks after every command." : "The agent now locks after \(minutes) minute\(minutes == 1 ? "" : "s") without use.")
        case "quick-unlock":
            guard ["on", "off"].contains(value) else { throw CLIError.usage("quick-unlock takes on or off") }
            if value == "on", let why = SystemAuthentication.unavailability(service: SystemAuthentication.defaultService) {
                throw CLIError.failure("quick unlock cannot be turned on: \(why)", hint: "run \"make run\" as root (or with sudo) to install the PAM service file")
            }
            try context.send(.changeSetting(SettingRequest(name: "quick-unlock", value: value)))
            Console.out(
                value == "on"
                    ? "Quick unlock is on from the next time you type the master password: after the agent locks, your login password unlocks it."
                    : "Quick unlock is off from the next time you type the master password.")
        case "reminder":
            let days: Int? = value == "never" ? 0 : Int(value)
            guard let days, [0, 14, 30].contains(days) else { throw CLIError.usage("reminder takes 14, 30 or never (days)") }
            try context.send(.changeSetting(SettingRequest(name: "reminder", value: value)))
            Console.out(
                days == 0
                    ? "Quick unlock no longer asks for the master password on a schedule (still after every restart)." : "The master password is asked for at least every \(days) days.")
        case "clipboard":
            guard let seconds = Int(value), Settings.clipboardRange.contains(seconds) else { throw CLIError.usage("clipboard takes 10 to 600 seconds") }
            try context.send(.changeSetting(SettingRequest(name: "clipboard", value: value)))
            Console.out("Copied values are cleared from the clipboard after \(seconds) seconds.")
        case "erase-after-failures":
            guard ["on", "off"].contains(value) else { throw CLIError.usage("erase-after-failures takes on or off") }
            try eraseSetting(context, on: value == "on")
        case "breach-catalogue":
            guard ["on", "off"].contains(value) || PwnedPasswordsClient.isAllowed(value) else {
                throw CLIError.usage("breach-catalogue takes on (Have I Been Pwned's list), off, or an https:// address of a list in its format")
            }
            let view = try context.send(.changeSetting(SettingRequest(name: "breach-catalogue", value: value))).settings()
            if let url = view.breachCatalogueURL {
                Console.out("Without an account, the agent refreshes the breach catalogue from \(url) when it starts and every 6 hours (a download of the whole list; nothing about your vault is sent).")
            } else {
                Console.out("The breach catalogue is no longer refreshed on its own (passbox check update-data still replaces it).")
            }
        default:
            throw CLIError.usage(
                "unknown setting \"\(Console.visible(args.positionals[0]))\"", hint: "settings: " + settingValues.map(\.0).joined(separator: ", "))
        }
    }
}
