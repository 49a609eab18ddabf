// Fuzz target: the agent's request and reply frames (PassboxAgent).
import PassboxAgent

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = Framing.decodeRequest(bytes)
    _ = try? AgentClient.decodeReply(bytes)
    return 0
}
