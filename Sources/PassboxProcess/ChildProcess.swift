import Foundation
internal import CLinux

/// Starting helper processes with posix_spawn: standard streams as given (else /dev/null), every other
/// descriptor closed, no signal blocked and every signal at its default action. Foundation's Process cannot
/// serve here: it keeps a socket its child inherits and waits for it, so a detached helper (the agent,
/// xclip's selection owner) would hold its starter for as long as it lives.
public enum ChildProcess {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Spawns `command` (an absolute path and its arguments). `environment` nil passes this process's own.
    public static func spawn(
        _ command: [String], stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil, environment: [String]? = nil, newSession: Bool = false
    ) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in [(STDIN_FILENO, stdin), (STDOUT_FILENO, stdout), (STDERR_FILENO, stderr)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            }
        }
        _ = CLinux_spawnCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        _ = CLinux_spawnCleanSignals(&attributes, newSession ? CLinux_spawnSetsidFlag() : 0)
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup($0) } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = envp.map { posix_spawn(&pid, command[0], &actions, &attributes, argv, $0) } ?? posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        guard result == 0 else { throw Failure(description: "cannot run \(command[0]): \(String(cString: strerror(result)))") }
        return pid
    }

    /// Waits for `pid`; its exit code, or 128 + the signal that ended it.
    @discardableResult
    public static func wait(_ pid: Int32) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return exitCode(status)
    }

    /// A wait status as an exit code, or 128 + the signal that ended the process.
    public static func exitCode(_ status: Int32) -> Int32 { (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }

    /// A pipe whose ends close on exec (a child gets them only through `spawn`'s stream arguments).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard CLinux_pipeCloexec(&fds) == 0 else { throw Failure(description: "cannot create a pipe: \(String(cString: strerror(errno)))") }
        return (fds[0], fds[1])
    }
}
