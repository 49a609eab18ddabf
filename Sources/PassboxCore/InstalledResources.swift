import Foundation

/// Where a module's resource folder (`Passbox_MODULE.resources`, as SwiftPM names it) is looked for, in order:
/// under `PASSBOX_RESOURCES` (an absolute directory holding such folders), beside the executable (the build's
/// layout: `/proc/self/exe`, then argv[0]), and under `/usr/share/passbox` (the Debian package's layout).
public enum InstalledResources {
    public static let shareDirectory = "/usr/share/passbox"

    public static func candidates(_ folder: String) -> [String] {
        var roots = [String]()
        if let named = ProcessInfo.processInfo.environment["PASSBOX_RESOURCES"], named.hasPrefix("/") { roots.append(named) }
        roots.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path)
        roots.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path)
        roots.append(shareDirectory)
        var seen = Set<String>()
        return roots.filter { seen.insert($0).inserted }.map { $0 + "/" + folder }
    }
}
