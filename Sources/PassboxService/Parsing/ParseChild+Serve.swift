import Foundation
import PassboxCore
import PassboxCrypto
import PassboxImaging
import PassboxInterop
import PassboxKit
import PassboxProcess
import PassboxProtocol
internal import CSandboxSupport

/// The child's side: `passbox parse-child` (not in the command table; only `ParseChild.run` starts it).
extension ParseChild {
    /// Reads one job from standard input, loads what parsing needs, limits and confines itself, parses and
    /// writes the answer to standard output. Returns the exit status.
    public static func serve() -> Int32 {
        var request = readAll(STDIN_FILENO)
        defer { ConstantTime.wipe(&request) }
        let job: ParseWire.Job
        do {
            job = try ParseWire.decodeJob(request)
        } catch {
            return answer(.failure(failed("noAnswer", ["detail": "the job does not read"])))
        }
        warmUp(for: job)
        // An import reports its peak memory after the file's key derivation: the status file (read again after
        // parsing: procfs makes it afresh at each read from the start) and clear_refs (where "5" resets the
        // peak mark, written once the key is derived) are opened now, since the filter below forbids opening
        // files.
        var status: Int32 = -1, clearRefs: Int32 = -1
        if case .importPlan = job {
            status = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
            clearRefs = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC)
        }
        defer {
            if status >= 0 { close(status) }
            if clearRefs >= 0 { close(clearRefs) }
        }
        let limits = limits(job)
        var error = [CChar](repeating: 0, count: 256)
        guard CSandbox_limit(limits.addressSpace, limits.cpuSeconds, &error) == 0, CSandbox_confine(&error) == 0 else {
            // Never parsed unconfined.
            return answer(.failure(failed("confinement", ["detail": String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)])))
        }
        #if DEBUG
            // The tests' way to make every job of an agent's children fail as a hostile file would.
            if ProcessInfo.processInfo.environment["PASSBOX_TEST_PARSE_CHILD"] == "crash" { fault() }
        #endif
        var result = parse(job) {
            // Once: the descriptor is closed at once, so the parse of the file's contents runs without it.
            guard clearRefs >= 0 else { return }
            _ = "5".withCString { pwrite(clearRefs, $0, 1, 0) }
            close(clearRefs)
            clearRefs = -1
        }
        if case .plan(let plan, var phases) = result, status >= 0 {
            phases.parsePeakKiB = ProcessMemory.kib("VmHWM", statusDescriptor: status)
            result = .plan(plan, phases: phases)
        }
        return answer(result)
    }


    /// What the first use of each library loads from disk, loaded before the filter forbids opening files.
    static func warmUp(for job: ParseWire.Job) {
        _ = TimeZone.current
        _ = ISO8601DateFormatter().date(from: "2024-01-02T03:04:05Z")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        _ = formatter.date(from: "2024-01-02 03:04:05")
        switch job {
        case .importPlan:
            ImportFormat.warmUp()
        case .qrCodes, .thumbnail, .probe:
            for text in ["passbox warm-up", "Grüße, 東京"] {
                if let code = QRModules.encode(text) { QRCodeReader.warmUp(modules: code.rows) }
            }
        }
    }

    static func parse(_ job: ParseWire.Job, keyDerived: () -> Void = {}) -> ParseWire.Answer {
        do {
            switch job {
            case .qrCodes(let bytes, let name):
                return .codes(try QRCodeReader.decode(bytes: bytes, name: name))
            case .thumbnail(let bytes):
                return .thumbnail(Thumbnail.make(bytes))
            case .importPlan(let j):
                let (plan, phases) = try VaultSession.plan(
                    format: j.format, bytes: j.bytes, password: j.password.map { SecretBytes(copying: $0) }, keyFile: j.keyFile, mapping: j.mapping,
                    groupsAsVaults: j.groupsAsVaults, now: j.now, keyDerived: keyDerived)
                return .plan(plan, phases: phases)
            case .probe(let what):
                return .probe(probe(what))
            }
        } catch let e as QRCodeReader.ReadError {
            return .failure(ProtocolError(.imageUnreadable, e.facts.merging(["reason": e.reason]) { _, reason in reason }))
        } catch {
            return .failure(ProtocolError.from(error))
        }
    }

    /// Debug builds' test hook: what the confinement lets through ("errno N" for a refused call, "allowed"
    /// otherwise), or a failure on purpose. Release builds answer "none".
    static func probe(_ what: String) -> String {
        #if DEBUG
            func result(_ r: Int32) -> String { r >= 0 ? "allowed" : "errno \(errno)" }
            switch what {
            case "open": return result(open("/etc/hostname", O_RDONLY))
            case "socket": return result(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
            case "exec":
                let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
                return result(execv("/bin/true", argv))
            case "fork":
                let pid = fork()
                if pid == 0 { _exit(0) }
                return result(pid)
            case "signal": return result(kill(getppid(), 0))
            case "linger":
                // Closes its end and never exits: its parent must not wait for it.
                close(STDOUT_FILENO)
                close(STDIN_FILENO)
                while true { pause() }
            case "descriptors":
                // Descriptors open besides the three standard ones: none of the parent's may reach the child.
                return String((3..<1024).filter { fcntl($0, F_GETFD) >= 0 }.count)
            case "crash": fault()
            case "spin":
                var x: UInt64 = 1
                while x != 0 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                return String(x)
            case "allocate":
                // Past the address-space limit: the allocation fails and the child dies.
                let big = UnsafeMutableRawPointer.allocate(byteCount: 8 << 30, alignment: 16)
                memset(big, 1, 8 << 30)
                return "allowed"
            default: break
            }
        #endif
        return "none"
    }

    #if DEBUG
        /// A real invalid write, as a decoder's bug makes.
        static func fault() {
            UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = Int(getpid())
        }
    #endif

    private static func answer(_ answer: ParseWire.Answer) -> Int32 {
        var bytes = ParseWire.encode(answer)
        defer { ConstantTime.wipe(&bytes) }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return 1 }
            sent += n
        }
        return 0
    }

    private static func readAll(_ fd: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        ConstantTime.wipe(&buffer)
        return received
    }
}
