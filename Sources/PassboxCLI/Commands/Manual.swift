import Foundation

/// The manual pages, written from the command table as `help` and the completions are. passbox(1) lists every
/// command with its usage and options; each command with subcommands has a page of its own, passbox-NAME(1);
/// the server's is passbox-server(8). `passbox package-files` writes them for `make deb`.
enum Manual {
    /// File name → roff source.
    static func pages() -> [(String, String)] {
        let listed = CommandTable.commands.filter(\.isListed)
        var pages = [("passbox.1", overview(listed))]
        for spec in listed {
            if let section = ownPage(spec) { pages.append(("passbox-\(spec.name).\(section)", commandPage(spec, section: section))) }
        }
        return pages
    }

    /// The section of the page of its own a command has: the server's is 8, one with subcommands 1; nil for the
    /// others (passbox(1) holds them).
    static func ownPage(_ spec: CommandSpec) -> Int? {
        spec.name == "server" ? 8 : spec.subcommands.isEmpty ? nil : 1
    }

    static let exitStatus = [".SH EXIT STATUS", escape(Help.exitCodes)]

    /// The date on every page: SOURCE_DATE_EPOCH's (a reproducible package), else today's.
    static var date: String {
        let seconds = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap(Double.init) ?? Date().timeIntervalSince1970
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    static func header(_ name: String, section: Int, what: String) -> [String] {
        [
            ".\\\" Written by passbox package-files from the command table; do not edit.",
            ".TH \(name.uppercased()) \(section) \"\(date)\" \"passbox \(CommandLineTool.version)\" \"Passbox\"",
            ".SH NAME", "\(escape(name)) \\- \(escape(what))",
        ]
    }

    static func overview(_ listed: [CommandSpec]) -> String {
        var lines = header("passbox", section: 1, what: "an end-to-end encrypted password manager")
        lines += [
            ".SH SYNOPSIS", ".B passbox", "[\\fB\\-\\-data\\fR \\fIDIR\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
            ".SH DESCRIPTION",
            "Passbox keeps logins, notes, cards, identities, one\\-time password codes, passkeys, keys and documents in a vault",
            "encrypted on this device: a local vault file, or an account on a \\fBpassbox server\\fR that syncs it.",
            "With an agent running (\\fBpassbox unlock\\fR), the commands that need the vault ask it instead of asking for the",
            "vault password.",
            ".PP", escape(Help.itemNote),
            ".SH COMMANDS",
        ]
        for spec in listed {
            lines.append(".TP")
            lines.append(".B " + escape(([spec.name] + spec.aliases).joined(separator: ", ")))
            lines += body(spec)
            if let section = ownPage(spec) { lines.append("See \\fBpassbox\\-\(escape(spec.name))\\fR(\(section)).") }
        }
        lines += [
            ".SH OPTIONS", ".TP", ".BI \\-\\-data \" DIR\"", "The data directory (default: \\fB$PASSBOX_DATA_DIR\\fR, else \\fI$XDG_DATA_HOME/passbox\\fR, else \\fI~/.local/share/passbox\\fR).",
            ".TP", ".B \\-\\-version", "The version.", ".TP", ".B \\-\\-help", "The commands, or with a command its options.",
        ]
        lines += exitStatus
        lines += [
            ".SH ENVIRONMENT", ".TP", ".B PASSBOX_DATA_DIR", "The data directory, when \\fB\\-\\-data\\fR names none.", ".TP", ".B PASSBOX_LANG", "The language of messages: en or de (else the locale's).",
            ".TP", ".B PASSBOX_RESOURCES", "A directory holding the web UI's and the Security Check's files, looked in before those beside the",
            "executable and \\fI/usr/share/passbox\\fR.",
            ".SH SEE ALSO",
            listed.compactMap { spec in ownPage(spec).map { "\\fBpassbox\\-\(escape(spec.name))\\fR(\($0))" } }.joined(separator: ",\n"),
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    static func commandPage(_ spec: CommandSpec, section: Int) -> String {
        var lines = header("passbox-\(spec.name)", section: section, what: spec.summary)
        lines += [".SH SYNOPSIS"] + synopsis(spec.usage)
        lines += [".SH DESCRIPTION"] + body(spec, withUsage: false)
        if !spec.subcommands.isEmpty {
            lines.append(".SH COMMANDS")
            for sub in spec.subcommands {
                lines += [".TP", ".B " + escape("passbox \(spec.name) \(sub.name)")] + body(sub)
            }
        }
        lines += exitStatus + [".SH SEE ALSO", "\\fBpassbox\\fR(1)"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A command's summary, usage lines and options.
    static func body(_ spec: CommandSpec, withUsage: Bool = true) -> [String] {
        var lines = [escape(spec.summary.prefix(1).uppercased() + spec.summary.dropFirst() + ".")]
        if withUsage { lines += [".br"] + synopsis(spec.usage) }
        let options = Completion.options(spec).filter { $0 != "--help" }
        if !options.isEmpty { lines += [".br", "Options: " + options.map { "\\fB" + escape($0) + "\\fR" }.joined(separator: ", ") + "."] }
        if spec.usesAgent { lines += [".br", escape(Help.agentNote)] }
        return lines
    }

    static func synopsis(_ usage: String) -> [String] {
        usage.split(separator: "\n").flatMap { [".nf", "\\fB" + escape(String($0).trimmingCharacters(in: .whitespaces)) + "\\fR", ".fi"] }
    }

    /// Text as roff reads it: backslashes and hyphens escaped, and no line starting with a control character.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case _ where scalar.value > 126: out += String(format: "\\[u%04X]", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
