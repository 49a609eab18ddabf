import Foundation
import PassboxStore
import Synchronization

/// A clock tests control: monotonic time moves only when the code under test sleeps or the test advances it.
public final class FakeClock: UnlockClock, @unchecked Sendable {
    // @unchecked: all state is behind the mutex.
    private let state = Mutex((monotonic: 1000.0, wall: Date(timeIntervalSince1970: 1_800_000_000), sleeps: [Double]()))

    public init() {}

    public func now() -> Date { state.withLock { $0.wall } }
    public func monotonic() -> Double { state.withLock { $0.monotonic } }
    public func sleep(until deadline: Double) {
        state.withLock {
            $0.sleeps.append(deadline)
            $0.monotonic = max($0.monotonic, deadline)
        }
    }

    /// Moves both clocks forward.
    public func advance(_ seconds: Double) {
        state.withLock {
            $0.monotonic += seconds
            $0.wall += seconds
        }
    }

    /// Every deadline slept to, in order.
    public var sleeps: [Double] { state.withLock { $0.sleeps } }
}

/// The real file system with a crash injected at one step of a save.
public final class FaultyFileSystem: FileSystem, @unchecked Sendable {
    public enum Step: String, CaseIterable, Sendable {
        /// The temporary file is half written when the process dies.
        case partialWrite
        /// The temporary file is written and synced, the rename never happens.
        case beforeRename
        /// The rename happened; the directory sync fails.
        case directorySync
    }

    private let real = POSIXFileSystem()
    private let step: Step
    public struct Crash: Error {}

    public init(crashAt step: Step) { self.step = step }

    public func writeNewFile(at path: String, contents: UnsafeRawBufferPointer) throws {
        guard path.contains("vault.pbx.tmp-") else { return try real.writeNewFile(at: path, contents: contents) }
        if step == .partialWrite {
            try real.writeNewFile(at: path, contents: UnsafeRawBufferPointer(rebasing: contents[0..<(contents.count / 2)]))
            throw Crash()
        }
        try real.writeNewFile(at: path, contents: contents)
    }

    public func syncFile(at path: String) throws { try real.syncFile(at: path) }

    public func rename(_ from: String, to: String) throws {
        if step == .beforeRename && from.contains("vault.pbx.tmp-") { throw Crash() }
        try real.rename(from, to: to)
    }

    public func syncDirectory(_ path: String) throws {
        if step == .directorySync { throw Crash() }
        try real.syncDirectory(path)
    }

    /// A crashed process removes nothing: the temporary file stays behind, as after a real crash.
    public func remove(_ path: String) throws {
        if path.contains("vault.pbx.tmp-") { return }
        try real.remove(path)
    }
}
