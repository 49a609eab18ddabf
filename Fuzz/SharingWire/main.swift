// Fuzz target: what a hostile server sends for sharing (PassboxManifest): member list versions, grants and
// key bundles decoded and checked, a version stepped on from itself, and invitation links read from text.
import PassboxManifest

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let version = try? MemberListVersion(decoding: bytes) {
        _ = try? MemberListChain.checkStep(from: nil, to: version)
        _ = try? MemberListChain.checkStep(from: version, to: version.next(signer: version.signer))
        _ = try? MemberListChain.verify([version], seen: ListHead(version: version.version, hash: version.hash))
        _ = MemberListChain.organisationCode(version)
        _ = version.encoded
    }
    if let grant = try? VaultGrant(decoding: bytes) { _ = grant.encoded }
    _ = try? KeyBundle(bytes, accountID: "ABC123")
    _ = try? InvitationLink(finding: String(decoding: bytes, as: UTF8.self))
    return 0
}
