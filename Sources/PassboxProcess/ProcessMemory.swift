import Foundation

/// A process's memory as the kernel counts it in `/proc/PID/status` (`VmRSS`, the resident size; `VmHWM`, its
/// peak), in KiB, and the reset of the peak mark (`clear_refs` 5). The one reader of these for the
/// benchmarks and the parse child, which reports the peak of an import.
public enum ProcessMemory {
    /// The value of `key` ("VmRSS", "VmHWM") in the text of a status file, in KiB; 0 when it is not there.
    public static func kib(_ key: String, inStatus text: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// `key` of process `pid` (this process when nil); 0 when its status cannot be read.
    public static func kib(_ key: String, of pid: pid_t? = nil) -> Int {
        guard let text = try? String(contentsOfFile: statusPath(pid), encoding: .utf8) else { return 0 }
        return kib(key, inStatus: text)
    }

    /// `key` from a status file opened earlier (a sandboxed process may no longer open files): procfs makes
    /// the text afresh at each read from the start.
    public static func kib(_ key: String, statusDescriptor fd: Int32) -> Int {
        var buffer = [UInt8](repeating: 0, count: 8192)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return 0 }
        return kib(key, inStatus: String(decoding: buffer.prefix(n), as: UTF8.self))
    }

    /// Resets the peak mark of process `pid` (this process when nil) to its resident size now; false when
    /// the kernel refused.
    @discardableResult
    public static func resetPeak(of pid: pid_t? = nil) -> Bool {
        (try? "5".write(toFile: "/proc/\(pid.map(String.init) ?? "self")/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    static func statusPath(_ pid: pid_t?) -> String { "/proc/\(pid.map(String.init) ?? "self")/status" }
}
