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
        // A save that grows the slot size (a new file renamed over the old one):
        /// The temporary file is half written when the process dies.
        case partialWrite
        /// The temporary file is written and synced, the rename never happens.
        case beforeRename
        /// The rename happened (or, in a journaled save, the journal was removed); the directory sync fails.
        case directorySync
        // A journaled save in place:
        /// The journal is half written (its checksum missing) when the process dies.
        case journalPartialWrite
        /// The journal is written and synced; the directory sync after it fails.
        case journalDirectorySync
        /// Half of the new slot is written over the old one when the process dies.
        case slotPartialWrite
        /// The whole slot is written in place; the process dies before the journal is removed.
        case beforeJournalRemoval

        /// Whether the step belongs to the growing save (else to the journaled one).
        public var isGrowth: Bool { [.partialWrite, .beforeRename, .directorySync].contains(self) }
    }

    private let real = POSIXFileSystem()
    private let step: Step
    public struct Crash: Error {}

    public init(crashAt step: Step) { self.step = step }

    private static func isTemporary(_ path: String) -> Bool { path.contains("vault.pbx.tmp-") }
    private static func isJournal(_ path: String) -> Bool { path.hasSuffix(".journal") }

    public func writeNewFile(at path: String, contents: UnsafeRawBufferPointer) throws {
        guard Self.isTemporary(path) else { return try real.writeNewFile(at: path, contents: contents) }
        if step == .partialWrite {
            try real.writeNewFile(at: path, contents: UnsafeRawBufferPointer(rebasing: contents[0..<(contents.count / 2)]))
            throw Crash()
        }
        try real.writeNewFile(at: path, contents: contents)
    }

    public func writeNewFile(at path: String, producing produce: (_ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let tears = (step == .partialWrite && Self.isTemporary(path)) || (step == .journalPartialWrite && Self.isJournal(path))
        guard tears else { return try real.writeNewFile(at: path, producing: produce) }
        // The first piece whole, half of the second, then the process dies: no sync, nothing removed.
        var pieces = [[UInt8]]()
        try? produce { piece in
            pieces.append(Array(pieces.isEmpty ? piece : UnsafeRawBufferPointer(rebasing: piece[0..<(piece.count / 2)])))
            if pieces.count == 2 { throw Crash() }
        }
        try? real.writeNewFile(at: path) { append in
            for piece in pieces { try piece.withUnsafeBytes { try append($0) } }
        }
        throw Crash()
    }

    public func overwrite(at path: String, offset: Int, contents: UnsafeRawBufferPointer) throws {
        if step == .slotPartialWrite {
            try real.overwrite(at: path, offset: offset, contents: UnsafeRawBufferPointer(rebasing: contents[0..<(contents.count / 2)]))
            throw Crash()
        }
        try real.overwrite(at: path, offset: offset, contents: contents)
    }

    public func syncFile(at path: String) throws { try real.syncFile(at: path) }

    public func rename(_ from: String, to: String) throws {
        if step == .beforeRename && Self.isTemporary(from) { throw Crash() }
        try real.rename(from, to: to)
    }

    public func syncDirectory(_ path: String) throws {
        let journalPresent = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).contains { Self.isJournal($0) }
        if step == .directorySync && !journalPresent { throw Crash() }
        if step == .journalDirectorySync && journalPresent { throw Crash() }
        try real.syncDirectory(path)
    }

    /// A crashed process removes nothing: the temporary file or journal stays behind, as after a real crash.
    public func remove(_ path: String) throws {
        if Self.isTemporary(path) || (Self.isJournal(path) && step != .directorySync) { throw Crash() }
        try real.remove(path)
    }
}
