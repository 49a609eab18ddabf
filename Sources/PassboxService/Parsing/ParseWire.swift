import Foundation
import PassboxCore
import PassboxCrypto
import PassboxInterop
import PassboxProtocol

/// A parse job and its answer as they cross between the agent (or the CLI) and the parse child: MessagePack,
/// one value each way (docs/ARCHITECTURE.md "The parse child"). Nothing here is stored; both ends are the same
/// binary, so the form needs no version.
enum ParseWire {
    /// What the child is asked to read.
    enum Job {
        /// The texts of the QR codes in a PNG or JPEG image; `name` words the errors.
        case qrCodes(bytes: [UInt8], name: String)
        /// A thumbnail of a PNG or JPEG image (nil when it makes none).
        case thumbnail(bytes: [UInt8])
        /// An import file read into its plan.
        case importPlan(ImportJob)
        /// Debug builds' test hook: the child tries something its confinement must stop (`open`, `socket`,
        /// `exec`), or fails on purpose (`crash`, `spin`, `allocate`).
        case probe(String)
    }

    struct ImportJob {
        var format: String
        var bytes: [UInt8]
        var password: [UInt8]?
        var keyFile: [UInt8]?
        var mapping: [String: String]
        var groupsAsVaults: Bool
        var now: Date
    }

    /// The child's answer to a job.
    enum Answer {
        case codes([String])
        case thumbnail([UInt8]?)
        case plan(ImportPlan, phases: ImportPhases)
        case probe(String)
        case failure(ProtocolError)
    }

    struct Malformed: Error {}

    // MARK: Jobs

    static func encode(_ job: Job) -> [UInt8] {
        // Sized for the whole job at once, so the buffer never grows and leaves a copy of a password behind.
        var size = 256
        if case .qrCodes(let bytes, let name) = job { size += bytes.count + name.utf8.count }
        if case .thumbnail(let bytes) = job { size += bytes.count }
        if case .importPlan(let j) = job {
            size += j.bytes.count + (j.password?.count ?? 0) + (j.keyFile?.count ?? 0) + j.format.utf8.count
            size += j.mapping.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 10 }
        }
        var w = MessagePackWriter(capacity: size)
        switch job {
        case .qrCodes(let bytes, let name):
            w.writeArrayHeader(3)
            w.write("qr")
            w.write(binary: bytes)
            w.write(name)
        case .thumbnail(let bytes):
            w.writeArrayHeader(2)
            w.write("thumbnail")
            w.write(binary: bytes)
        case .importPlan(let j):
            w.writeArrayHeader(9)
            w.write("import")
            w.write(j.format)
            w.write(binary: j.bytes)
            if let p = j.password { w.write(binary: p) } else { w.writeNil() }
            if let k = j.keyFile { w.write(binary: k) } else { w.writeNil() }
            let keys = j.mapping.keys.sorted()
            w.write(keys)
            w.write(keys.map { j.mapping[$0] ?? "" })
            w.write(j.groupsAsVaults)
            w.write(Int64((j.now.timeIntervalSince1970 * 1000).rounded()))
        case .probe(let what):
            w.writeArrayHeader(2)
            w.write("probe")
            w.write(what)
        }
        return w.bytes
    }

    static func decodeJob(_ bytes: [UInt8]) throws -> Job {
        try bytes.withUnsafeBytes { buffer in
            var r = MessagePackReader(buffer)
            let count = try r.readArrayHeader()
            switch (try r.readString(), count) {
            case ("qr", 3): return .qrCodes(bytes: try r.readBinary(), name: try r.readString())
            case ("thumbnail", 2): return .thumbnail(bytes: try r.readBinary())
            case ("import", 9):
                let format = try r.readString()
                let file = try r.readBinary()
                let password = try r.readNilIfPresent() ? nil : try r.readBinary()
                let keyFile = try r.readNilIfPresent() ? nil : try r.readBinary()
                let keys = try r.readStrings(), values = try r.readStrings()
                guard keys.count == values.count else { throw Malformed() }
                let groups = try r.readBool()
                let now = Date(timeIntervalSince1970: Double(try r.readInt()) / 1000)
                return .importPlan(
                    ImportJob(
                        format: format, bytes: file, password: password, keyFile: keyFile, mapping: Dictionary(zip(keys, values)) { a, _ in a },
                        groupsAsVaults: groups, now: now))
            case ("probe", 2): return .probe(try r.readString())
            default: throw Malformed()
            }
        }
    }

    // MARK: Answers

    static func encode(_ answer: Answer) -> [UInt8] {
        var w = MessagePackWriter(capacity: 256)
        switch answer {
        case .codes(let codes):
            w.writeArrayHeader(2)
            w.write("codes")
            w.write(codes)
        case .thumbnail(let bytes):
            w.writeArrayHeader(2)
            w.write("thumbnail")
            if let bytes { w.write(binary: bytes) } else { w.writeNil() }
        case .plan(let plan, let phases):
            w.writeArrayHeader(6)
            w.write("plan")
            w.write(plan.source)
            // The phases the child timed, in microseconds, then the text's bytes and the child's peak in KiB.
            let figures = [phases.kdf, phases.decrypt, phases.parse, phases.map].map { Int64(($0 * 1_000_000).rounded()) }
                + [Int64(phases.textBytes), Int64(phases.parsePeakKiB)]
            w.writeArrayHeader(figures.count)
            for figure in figures { w.write(figure) }
            let reasons = plan.notBrought.keys.sorted()
            w.write(reasons)
            w.writeArrayHeader(reasons.count)
            for reason in reasons { w.write(plan.notBrought[reason] ?? 0) }
            w.writeArrayHeader(plan.entries.count)
            for entry in plan.entries {
                w.writeArrayHeader(4)
                w.write(binary: entry.item.packed())
                if let name = entry.vaultName { w.write(name) } else { w.writeNil() }
                write(entry.files, into: &w)
                let versions = entry.versionFiles.keys.sorted()
                w.writeArrayHeader(versions.count)
                for version in versions {
                    w.write(version)
                    write(entry.versionFiles[version] ?? [], into: &w)
                }
            }
        case .probe(let result):
            w.writeArrayHeader(2)
            w.write("probe")
            w.write(result)
        case .failure(let error):
            let keys = error.facts.keys.sorted()
            w.writeArrayHeader(4)
            w.write("failure")
            w.write(error.code.rawValue)
            w.write(keys)
            w.write(keys.map { error.facts[$0] ?? "" })
        }
        return w.bytes
    }

    private static func write(_ files: [ImportPlan.File], into w: inout MessagePackWriter) {
        w.writeArrayHeader(files.count)
        for file in files {
            w.writeArrayHeader(3)
            w.write(file.name)
            w.write(binary: file.bytes)
            if let reference = file.reference { w.write(reference) } else { w.writeNil() }
        }
    }

    /// (Appended one by one: a count read from the child's answer reserves nothing.)
    private static func readFiles(_ r: inout MessagePackReader) throws -> [ImportPlan.File] {
        var files: [ImportPlan.File] = []
        for _ in 0..<(try r.readArrayHeader()) {
            guard try r.readArrayHeader() == 3 else { throw Malformed() }
            let name = try r.readString(), bytes = try r.readBinary()
            let reference = try r.readNilIfPresent() ? nil : Int(try r.readInt())
            files.append(ImportPlan.File(name: name, bytes: bytes, reference: reference))
        }
        return files
    }

    static func decodeAnswer(_ bytes: [UInt8]) throws -> Answer {
        try bytes.withUnsafeBytes { buffer in
            var r = MessagePackReader(buffer)
            let count = try r.readArrayHeader()
            switch (try r.readString(), count) {
            case ("codes", 2): return .codes(try r.readStrings())
            case ("thumbnail", 2): return .thumbnail(try r.readNilIfPresent() ? nil : try r.readBinary())
            case ("probe", 2): return .probe(try r.readString())
            case ("failure", 4):
                guard let code = ErrorCode(rawValue: try r.readString()) else { throw Malformed() }
                let keys = try r.readStrings(), values = try r.readStrings()
                guard keys.count == values.count else { throw Malformed() }
                return .failure(ProtocolError(code, Dictionary(zip(keys, values)) { a, _ in a }))
            case ("plan", 6):
                var plan = ImportPlan()
                plan.source = try r.readString()
                guard try r.readArrayHeader() == 6 else { throw Malformed() }
                var figures = [Int64]()
                for _ in 0..<6 { figures.append(try r.readInt()) }
                let seconds = figures.prefix(4).map { Double(max($0, 0)) / 1_000_000 }
                let phases = ImportPhases(
                    kdf: seconds[0], decrypt: seconds[1], parse: seconds[2], map: seconds[3], textBytes: Int(clamping: figures[4]), parsePeakKiB: Int(clamping: figures[5]))
                let reasons = try r.readStrings()
                guard try r.readArrayHeader() == reasons.count else { throw Malformed() }
                for reason in reasons { plan.notBrought[reason] = Int(try r.readInt()) }
                for _ in 0..<(try r.readArrayHeader()) {
                    guard try r.readArrayHeader() == 4 else { throw Malformed() }
                    let packed = try r.readBinary()
                    let item = try packed.withUnsafeBytes { try Item(unpacking: $0) }
                    var entry = ImportPlan.Entry(item: item)
                    entry.vaultName = try r.readNilIfPresent() ? nil : try r.readString()
                    entry.files = try readFiles(&r)
                    for _ in 0..<(try r.readArrayHeader()) {
                        let version = Int(try r.readInt())
                        entry.versionFiles[version] = try readFiles(&r)
                    }
                    plan.entries.append(entry)
                }
                return .plan(plan, phases: phases)
            default: throw Malformed()
            }
        }
    }
}
