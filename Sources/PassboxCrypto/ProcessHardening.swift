internal import CLinux
#if canImport(Glibc)
    import Glibc
#endif

/// Protections for a process that holds keys (security.md §8a).
public enum ProcessHardening {
    /// Turns core dumps off (`RLIMIT_CORE` 0) and marks the process non-dumpable, which also stops
    /// same-user `ptrace` attach. Safe to call more than once.
    public static func disableCoreDumps() {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        _ = CLinux_setDumpable(0)
    }

    /// Whether the process is currently dumpable (for tests).
    public static var isDumpable: Bool { CLinux_getDumpable() != 0 }
}
