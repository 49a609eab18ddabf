// Fuzz target: settings.json (PassboxStore), decoded directly and through Settings.loadChecked.
import Foundation
import PassboxStore

let directory: String = {
    let path = NSTemporaryDirectory() + "passbox-fuzz-settings-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    _ = try? JSONDecoder().decode(Settings.self, from: bytes)
    _ = FileManager.default.createFile(atPath: directory + "/" + Settings.fileName, contents: bytes)
    let loaded = Settings.loadChecked(directory)
    _ = (loaded.settings.effectiveAutoLockMinutes, loaded.settings.effectiveReminderDays)
    return 0
}
