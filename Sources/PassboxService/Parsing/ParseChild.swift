import Foundation
import PassboxCore
import PassboxCrypto
import PassboxImaging
import PassboxInterop
import PassboxProcess
import PassboxProtocol

/// Untrusted bytes are parsed where no key lives (promise 33b, issue 28): images (QR codes, thumbnails) and
/// import files are read by a short-lived child, `passbox parse-child`, started fresh for each job. It gets
/// the job over a socket pair on its standard input, loads the libraries it needs, bounds its memory and CPU
/// time, confines itself with a seccomp filter (no file opening, no socket, no new process or program), then
/// parses and answers on its standard output (`ParseWire`). It holds no vault key and no open vault file (every
/// other descriptor is closed at spawn). A crash, a limit reached or a hung child is a clear `parseFailed`
/// error here, and the caller carries on.
public enum ParseChild {
    /// What one job may use.
    struct Limits {
        var addressSpace: UInt64
        var cpuSeconds: UInt32
        var wallSeconds: Double
    }

    static func limits(_ job: ParseWire.Job) -> Limits {
        switch job {
        // An import may derive a key with up to 2 GiB (ImportKDFLimits) beside the 128 MiB it may inflate.
        case .importPlan: Limits(addressSpace: 4 << 30, cpuSeconds: 600, wallSeconds: 900)
        case .qrCodes, .thumbnail: Limits(addressSpace: 1536 << 20, cpuSeconds: 20, wallSeconds: 60)
        case .probe: Limits(addressSpace: 1536 << 20, cpuSeconds: 1, wallSeconds: 30)
        }
    }

    /// The largest answer read back (an import's plan carries its attachments: the 128 MiB an import may
    /// inflate, and room for the items).
    static let answerLimit = 192 << 20

    /// The `passbox` binary that runs the child: this process when it is `passbox`, else (a test runner) the
    /// `passbox` built beside it.
    static let executable: String? = {
        guard let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let url = URL(fileURLWithPath: own)
        if url.lastPathComponent == "passbox" { return own }
        let beside = url.deletingLastPathComponent().appendingPathComponent("passbox").path
        return FileManager.default.isExecutableFile(atPath: beside) ? beside : nil
    }()

    /// The child's whole environment: nothing of this process's, and no backtracer (which would try to start
    /// a program, refused, on a crash).
    static var environment: [String] {
        var variables = ["SWIFT_BACKTRACE=enable=no"]
        #if DEBUG
            if let test = ProcessInfo.processInfo.environment["PASSBOX_TEST_PARSE_CHILD"] { variables.append("PASSBOX_TEST_PARSE_CHILD=" + test) }
        #endif
        return variables
    }

    static func failed(_ reason: String, _ more: [String: String] = [:]) -> ProtocolError {
        ProtocolError(.parseFailed, ["reason": reason].merging(more) { a, _ in a })
    }

    /// Runs one job in a new child and returns its answer; throws `parseFailed` when the child cannot be
    /// started, crashes, passes a limit or answers nothing readable.
    static func run(_ job: ParseWire.Job) throws -> ParseWire.Answer {
        guard let executable else { throw failed("helperMissing") }
        let limits = limits(job)
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw failed("notStarted", ["detail": String(cString: strerror(errno))])
        }
        let (mine, theirs) = (fds[0], fds[1])
        defer { close(mine) }
        let pid: Int32
        do {
            pid = try ChildProcess.spawn([executable, "parse-child"], stdin: theirs, stdout: theirs, environment: environment)
        } catch {
            close(theirs)
            throw failed("notStarted", ["detail": "\(error)"])
        }
        close(theirs)
        var request = ParseWire.encode(job)
        // The request may hold an import's password: wiped once sent.
        defer { ConstantTime.wipe(&request) }
        let deadline = Date().addingTimeInterval(limits.wallSeconds)
        var answer: [UInt8]?
        if send(mine, request, deadline: deadline) {
            shutdown(mine, Int32(SHUT_WR))
            answer = receive(mine, deadline: deadline)
        }
        // The answer holds what the file held (an import's items): wiped once decoded.
        defer { if answer != nil { ConstantTime.wipe(&answer!) } }
        // A child has nothing left to do once it closed its end or ran out of time: it is ended rather than
        // waited for (one that closed and then slept would never exit), and its status read after.
        let reaped = reap(pid, within: answer == nil ? 0 : 2)
        if reaped == nil { kill(pid, SIGKILL) }
        let status = reaped ?? ChildProcess.wait(pid)
        if status > 128, reaped != nil || answer == nil {
            let signal = status - 128
            throw failed(signal == SIGXCPU || signal == SIGKILL ? "tooSlow" : "crashed", ["signal": String(signal)])
        }
        guard let bytes = answer, !bytes.isEmpty else { throw failed(status == 0 ? "noAnswer" : "crashed", ["status": String(status)]) }
        do {
            return try ParseWire.decodeAnswer(bytes)
        } catch {
            throw failed("noAnswer")
        }
    }

    /// The child's exit code (128 + a signal) once it has exited within `seconds`, reaped; nil while it runs.
    private static func reap(_ pid: Int32, within seconds: Double) -> Int32? {
        let until = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return ChildProcess.exitCode(status) }
            if reaped < 0, errno != EINTR { return nil }
            if Date() >= until { return nil }
            usleep(2_000)
        }
    }

    /// Sends all of `bytes` before the deadline; false when the child stopped reading (it ended, or hangs).
    private static func send(_ fd: Int32, _ bytes: [UInt8], deadline: Date) -> Bool {
        var sent = 0
        while sent < bytes.count {
            guard wait(fd, events: Int16(POLLOUT), deadline: deadline) else { return false }
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n < 0, errno == EAGAIN || errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Everything the child writes until it closes, or nil past the deadline or the answer limit.
    private static func receive(_ fd: Int32, deadline: Date) -> [UInt8]? {
        // Read in parts and put together once, each part wiped: a growing array would leave copies behind.
        var parts: [[UInt8]] = []
        var total = 0
        defer { for i in parts.indices { ConstantTime.wipe(&parts[i]) } }
        while true {
            guard wait(fd, events: Int16(POLLIN), deadline: deadline) else { return nil }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n < 0, errno == EAGAIN || errno == EINTR { continue }
            if n <= 0 { break }
            buffer.removeLast(buffer.count - n)
            parts.append(buffer)
            total += n
            guard total <= answerLimit else { return nil }
        }
        var whole = [UInt8]()
        whole.reserveCapacity(total)
        for part in parts { whole += part }
        return whole
    }

    /// Waits for `events` on `fd` until the deadline; false when it passed first.
    private static func wait(_ fd: Int32, events: Int16, deadline: Date) -> Bool {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left, 3600) * 1000) + 1)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }  // the read or write says what went wrong
        }
    }

    // MARK: Jobs

    /// The texts of the QR codes in a PNG or JPEG image, read in a child; an image that holds none, or is no
    /// image, is a `QRCodeReader.ReadError` as when read here.
    public static func qrCodes(bytes: [UInt8], name: String) throws -> [String] {
        switch try run(.qrCodes(bytes: bytes, name: name)) {
        case .codes(let codes): return codes
        case .failure(let error) where error.code == .imageUnreadable:
            throw QRCodeReader.ReadError(error.facts["reason"] ?? "notAnImage", error.facts.filter { $0.key != "reason" })
        case .failure(let error): throw error
        default: throw failed("noAnswer")
        }
    }

    /// `qrCodes(bytes:name:)` for a file this process reads.
    public static func qrCodes(file path: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw QRCodeReader.ReadError("cannotRead", ["path": path])
        }
        return try qrCodes(bytes: [UInt8](data), name: path)
    }

    /// An image's thumbnail, made in a child; nil when it makes none (a thumbnail is never needed).
    public static func thumbnail(_ bytes: [UInt8]) -> [UInt8]? {
        guard case .thumbnail(let small)? = try? run(.thumbnail(bytes: bytes)) else { return nil }
        return small
    }

    /// An import file read into its plan in a child, and where its time went (and the child's peak memory).
    static func importPlan(_ job: ParseWire.ImportJob) throws -> (ImportPlan, ImportPhases) {
        switch try run(.importPlan(job)) {
        case .plan(let plan, let phases): return (plan, phases)
        case .failure(let error): throw error
        default: throw failed("noAnswer")
        }
    }
}
