// Fuzz target: the browser extension's messages as `passbox browser-host` reads them (PassboxAgent): turned
// into a socket frame (with and without a session) and decoded as the agent would.
import PassboxAgent

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    for session in [nil, "c2Vzc2lvbg"] as [String?] {
        if let (frame, _) = try? BrowserMessage.socketFrame(bytes, session: session) {
            _ = Framing.decodeRequest(frame)
        }
    }
    return 0
}
