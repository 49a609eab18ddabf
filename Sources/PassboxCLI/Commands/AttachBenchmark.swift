import Foundation
import PassboxProcess
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxService
import PassboxStore

/// `passbox bench attach [--size-mib 100] [--runs 3]`: a file of random bytes attached to an item of a new
/// vault and saved back out, through the service as `passbox attach` and `passbox save-attachment` do: MiB/s
/// each way, and the process's peak memory during each beside the file's size (issue 16: bounded by the
/// chunk, not the file). scripts/bench-attach.sh sets it beside `keepassxc-cli attachment-import` and
/// `attachment-export` of the same file.
enum AttachBenchmark {
    static func run(_ args: Arguments) throws {
        let mib = max(1, Int(args.value("size-mib") ?? "100") ?? 100)
        let runs = max(1, Int(args.value("runs") ?? "3") ?? 3)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("passbox-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let source = root + "/source.bin"
        try writeRandomFile(source, mib: mib)
        let clock = SystemClock()
        var attachTimes: [Double] = [], saveTimes: [Double] = [], attachPeaks: [Int] = [], savePeaks: [Int] = []
        var baseline = 0
        for n in 0..<runs {
            let service = VaultService(dataDirectory: root + "/\(n)")
            _ = try service.create(password: "benchmark vault password", parameters: Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1))
            let item = try service.perform(.add(AddRequest(category: "document", changes: ItemChanges(title: "Scan")))).saved().id
            baseline = resetPeak()
            var start = clock.monotonic()
            let attached = try service.perform(.attach(AttachRequest(item: item, path: source))).attachments()
            attachTimes.append(clock.monotonic() - start)
            attachPeaks.append(peakKiB())
            guard let id = attached.changed?.id else { throw CLIError.failure("the benchmark's attach named no attachment", hint: "") }
            let out = root + "/out-\(n).bin"
            _ = resetPeak()
            start = clock.monotonic()
            _ = try service.perform(.saveAttachment(SaveAttachmentRequest(item: item, attachment: id, path: out))).attachmentSaved()
            saveTimes.append(clock.monotonic() - start)
            savePeaks.append(peakKiB())
            guard FileManager.default.contentsEqual(atPath: source, andPath: out) else {
                throw CLIError.failure("the file read back differs from the one attached", hint: "this is a bug: report it")
            }
            try? FileManager.default.removeItem(atPath: out)
            service.lock()
        }
        func rate(_ seconds: Double) -> String { String(format: "%.0f MiB/s", Double(mib) / seconds) }
        let attach = attachTimes.sorted()[runs / 2], save = saveTimes.sorted()[runs / 2]
        Console.out("File: \(mib) MiB of random bytes; \(runs) \(runs == 1 ? "run" : "runs"), medians; memory is the process's peak resident size (VmHWM).")
        Console.out("Attach (read, encrypt in 64 KiB chunks, sync, save the item; cover blobs of the local vault included): \(BackupBenchmark.seconds(attach)), \(rate(attach)) (\(attachTimes.map(BackupBenchmark.seconds).joined(separator: ", ")))")
        Console.out("Read back (decrypt, check every chunk, write a new 0600 file): \(BackupBenchmark.seconds(save)), \(rate(save)) (\(saveTimes.map(BackupBenchmark.seconds).joined(separator: ", ")))")
        Console.out("Peak memory: attach \(mibText(attachPeaks.max()!)), read back \(mibText(savePeaks.max()!)), beside \(mibText(baseline)) before and a \(mib) MiB file: the growth is \(mibText(max(0, max(attachPeaks.max()!, savePeaks.max()!) - baseline))), bounded by the chunk, not the file")
    }

    static func writeRandomFile(_ path: String, mib: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw CLIError.failure("cannot write \(path)", hint: "check the temporary folder")
        }
        defer { try? handle.close() }
        for _ in 0..<mib { try handle.write(contentsOf: Data(SecureRandom.bytes(count: 1 << 20))) }
    }

    /// Resets the kernel's peak-RSS mark (clear_refs 5) and returns the resident size now, in KiB.
    static func resetPeak() -> Int {
        ProcessMemory.resetPeak()
        return ProcessMemory.kib("VmRSS")
    }

    static func peakKiB() -> Int { ProcessMemory.kib("VmHWM") }

    static func mibText(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }
}
