// Writes the vault seeds of Fuzz/corpus from the format-2 fixture (Tests/PassboxStoreTests/Fixtures): its
// header, its decrypted payload (VaultPayload), and header + slot prefix + body plaintext (SlotFile). Run by
// `scripts/fuzz.sh --seeds`; the output is checked in, so this runs only when the fixture format changes.
import Foundation
import PassboxCore
import PassboxCrypto
@testable import PassboxStore

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fatalError("usage: make-vault-seeds FIXTURE.pbx CORPUS-DIR") }
let fixture = arguments[1], corpus = arguments[2]
let directory = NSTemporaryDirectory() + "passbox-fuzz-seeds-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }
try FileManager.default.copyItem(atPath: fixture, toPath: directory + "/vault.pbx")
let opened = try VaultStore(directory: directory).unlock(password: "fixture password v1")
let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture)))
let header = Array(file[0..<VaultHeader.length])
let payload = opened.vault.packed()
let compressed = try payload.withUnsafeBytes { try Deflate.compress($0) }
var bodyPlain = [UInt8]()
bodyPlain.appendBigEndian(SlotCodec.payloadVersion)
bodyPlain.appendBigEndian(SlotCodec.compressionDeflate)
bodyPlain.appendBigEndian(UInt64(compressed.count))
bodyPlain += compressed
let slotStart = VaultHeader.length + opened.slotIndex * VaultHeader.minimumSlotSize
let prefix = Array(file[slotStart..<(slotStart + SlotCodec.prefixLength)])
func write(_ bytes: [UInt8], _ path: String) throws {
    try FileManager.default.createDirectory(atPath: corpus + "/" + (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: corpus + "/" + path))
}
try write(header, "VaultHeader/fixture-v2-header")
try write(Array(header[0..<8]) + [0, 1] + Array(header[10...]), "VaultHeader/fixture-v1-header")
try write(payload, "VaultPayload/fixture-payload")
try write(header + prefix + bodyPlain, "SlotFile/fixture-slot")
var uncompressed = [UInt8]()
uncompressed.appendBigEndian(SlotCodec.payloadVersion)
uncompressed.appendBigEndian(SlotCodec.compressionNone)
uncompressed.appendBigEndian(UInt64(payload.count))
try write(header + prefix + uncompressed + payload, "SlotFile/fixture-slot-uncompressed")
print("wrote the vault seeds for \(opened.vault.items.count) items")
