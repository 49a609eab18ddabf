import Foundation
import PassboxAgent
import PassboxCore
import PassboxProtocol
import PassboxStore
import PassboxTestKit
import Testing
import PassboxWording

/// A real `passbox agent` process on a fresh data directory holding a test vault (cheap KDF), reached with
/// `AgentClient`, as any client reaches it. The data directory and its process plumbing are the end-to-end
/// tests' `Session`; the agent is started directly (not through `passbox unlock`) so the test holds its pid,
/// and it is stopped and reaped when the value is released.
final class RealAgent: @unchecked Sendable {
    // @unchecked: used from one test function's thread.
    static let password = "correct horse battery"
    let session: AgentEndToEndTests.Session
    let pid: Int32
    /// Every operation a request was sent for, so a test can check it covered all of them.
    private(set) var sent = Set<OperationName>()

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `makeVault: false` leaves the data directory empty (an account is signed up or in through the agent).
    init(password: String = RealAgent.password, makeVault: Bool = true, agentArguments: [String] = [], environment: [String: String] = [:]) throws {
        session = try AgentEndToEndTests.Session()
        if makeVault {
            let created = try session.run(["init", "--insecure-test-kdf"], [password])
            guard created.status == 0 else { throw Failure(description: "passbox init failed: \(created.stderr)") }
        }
        pid = try Transcript.startBackground(session.bin, ["--data", session.data, "agent"] + agentArguments, environment: environment.merging(["XDG_RUNTIME_DIR": ""]) { $1 })
        for _ in 0..<500 {
            if (try? AgentClient.send(.status, socketPath: socketPath)) != nil { return }
            usleep(10_000)
        }
        throw Failure(description: "the agent did not answer on \(socketPath)")
    }

    /// The runtime directory is emptied for the agent, so its socket is in the data directory.
    var socketPath: String { session.data + "/run/agent.sock" }
    var vaultPath: String { session.data + "/vault.pbx" }

    /// Sends a request with `AgentClient.send`; no agent answering is an error.
    @discardableResult
    func send(_ request: Request) throws -> Reply {
        sent.insert(request.operation)
        guard let reply = try AgentClient.send(request, socketPath: socketPath) else { throw Failure(description: "no agent on \(socketPath)") }
        return reply
    }

    /// The error of a request that must fail.
    func failure(_ request: Request) throws -> ProtocolError {
        let reply = try send(request)
        guard case .failure(let error) = reply else { throw Failure(description: "\(request.operation.rawValue) answered \(reply.kind.rawValue), not a failure") }
        return error
    }

    func unlock(_ password: String = RealAgent.password) throws {
        let reply = try send(.unlock(UnlockRequest(password: SecretText(password))))
        guard reply == .done else { throw Failure(description: "unlock answered \(reply)") }
    }

    func add(_ category: String, _ changes: ItemChanges) throws -> SavedReply {
        try send(.add(AddRequest(category: category, changes: changes))).saved()
    }

    /// Set once the agent was reaped here: its pid may then be another process's (pids are reused, quickly on
    /// a machine with pid_max 32768 running browsers beside the tests), so it is never signalled again.
    private var reaped = false

    /// Whether the agent process is still running (not merely a zombie: it is this process's child).
    var isRunning: Bool {
        guard !reaped else { return false }
        var status: Int32 = 0
        let waited = waitpid(pid, &status, WNOHANG)
        if waited == pid || (waited < 0 && errno == ECHILD) { reaped = true }
        return waited == 0
    }

    deinit { if !reaped { Transcript.stop(pid) } }
}

/// One exchange of raw bytes with the agent, for frames `AgentClient` would never send.
enum RawExchange {
    enum Outcome: Equatable {
        /// A reply frame (its bytes as received).
        case reply([UInt8])
        /// The agent closed the connection without a reply.
        case closed
        /// Nothing came within the receive timeout.
        case timedOut
        case oversizedReply(Int)
    }

    /// Connects, sends `bytes` (closing the sending side after them), and reads one reply frame, waiting at
    /// most `timeout` seconds.
    static func send(_ bytes: [UInt8], socketPath: String, timeout: Int = 10) throws -> Outcome {
        guard let fd = UnixSocket.connect(to: socketPath) else { throw RealAgent.Failure(description: "no agent on \(socketPath)") }
        defer { close(fd) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                // The agent answered early (an oversized header) and stopped reading: its reply is still there.
                break
            }
            done += n
        }
        shutdown(fd, Int32(SHUT_WR))
        do {
            return .reply(try Framing.readFrame(fd))
        } catch Framing.FrameError.closed {
            return .closed
        } catch Framing.FrameError.oversized(let n) {
            return .oversizedReply(n)
        } catch Framing.FrameError.io(let code) where code == EAGAIN || code == EWOULDBLOCK {
            return .timedOut
        } catch Framing.FrameError.io(let code) where code == ECONNRESET {
            return .closed
        }
    }

    /// A frame: the 4-byte big-endian length of `body`, then `body`.
    static func frame(_ body: [UInt8]) -> [UInt8] { header(body.count) + body }

    static func header(_ length: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) } }

    static func json(_ text: String) -> [UInt8] { frame(Array(text.utf8)) }

    /// Decodes a reply frame as it travelled (its own version, not mapped to a mismatch).
    static func replyFrame(_ bytes: [UInt8]) -> ReplyFrame? { try? ProtocolCoding.wireDecode(ReplyFrame.self, from: Data(bytes)) }
}

/// The protocol against a real agent process: every operation once with the values that matter checked,
/// then a request that provokes each error code the agent can answer, checked by code and facts.
@Suite(.serialized) struct AgentOperationTests {
    static let githubPassword = "Gh-Secret-Pa55word!"
    /// RFC 4226's test secret ("12345678901234567890") and its first codes.
    static let hotpSetup = "otpauth://hotp/Bank:me?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=0&issuer=Bank"
    static let hotpCodes = ["755224", "287082", "359152", "969429", "338314"]

    func fields(_ detail: ItemDetail, _ key: String) -> FieldView? { detail.fields.first { $0.key == key } }

    @Test func everyOperationAnswersItsTypedReply() throws {
        let agent = try RealAgent()
        let newPassword = "a much longer vault passphrase 2024"

        // Before any unlock: status says locked, and quick unlock is not offered (the master password was never typed).
        #expect(try agent.send(.status).status().unlocked == false)
        let notOffered = try agent.failure(.quickUnlock(QuickUnlockRequest(loginPassword: SecretText("login"))))
        #expect(notOffered.code == .quickUnlockNotOffered)
        #expect(!(notOffered.facts["reason"] ?? "").isEmpty)

        try agent.unlock()
        let status = try agent.send(.status).status()
        #expect(status.unlocked && status.pid == Int(agent.pid) && status.protocolVersion == ProtocolVersion.current)

        // add, list, show (masked and revealed), field, search
        let github = try agent.add(
            "login",
            ItemChanges(
                title: "GitHub", username: "octocat", websites: ["https://github.com"], secretFields: [FieldAssignment(label: "password", value: Self.githubPassword)]))
        #expect(github.title == "GitHub" && github.categoryName == "Login" && github.changed)
        #expect(github.weakPassword == nil)
        let list = try agent.send(.list(ListRequest())).items()
        #expect(list.items.map(\.id) == [github.id] && list.total == 1 && !list.vaultIsEmpty)
        #expect(list.items[0].summary.contains("octocat"))
        let masked = try agent.send(.show(ShowRequest(item: "GitHub", reveal: false))).item()
        let maskedPassword = try #require(fields(masked, "password"))
        #expect(maskedPassword.concealed && maskedPassword.masked && maskedPassword.value == "")
        #expect(fields(masked, "username")?.value == "octocat" && fields(masked, "username")?.masked == false)
        let revealed = try agent.send(.show(ShowRequest(item: github.id, reveal: true))).item()
        #expect(fields(revealed, "password")?.value == Self.githubPassword && fields(revealed, "password")?.masked == false)
        let value = try agent.send(.field(FieldRequest(item: "GitHub", field: "password"))).value()
        #expect(value.value == Self.githubPassword && value.itemID == github.id)
        let found = try agent.send(.search(SearchRequest(query: "git"))).items()
        #expect(found.items.map(\.id).contains(github.id))

        // edit, history (masked unless revealed), restore-version
        let edited = try agent.send(.edit(EditRequest(item: "GitHub", changes: ItemChanges(secretFields: [FieldAssignment(label: "password", value: "N3w-Secret-Pa55word!")]))))
            .saved()
        #expect(edited.changed && edited.id == github.id)
        let unchanged = try agent.send(.edit(EditRequest(item: "GitHub", changes: ItemChanges(secretFields: [FieldAssignment(label: "password", value: "N3w-Secret-Pa55word!")]))))
            .saved()
        #expect(!unchanged.changed)
        let history = try agent.send(.history(ShowRequest(item: "GitHub"))).history()
        #expect(history.versions.count == 1)
        let change = try #require(history.versions.first?.changes.first { $0.what == "field" })
        #expect(change.label == "Password" && change.old == nil && change.new == nil)
        #expect(history.previousPasswords.allSatisfy { $0.masked && $0.value == "" })
        let revealedHistory = try agent.send(.history(ShowRequest(item: "GitHub", reveal: true))).history()
        let revealedChange = try #require(revealedHistory.versions.first?.changes.first { $0.what == "field" })
        #expect(revealedChange.old == Self.githubPassword && revealedChange.new == "N3w-Secret-Pa55word!")
        let version = try #require(history.versions.first).id
        let restored = try agent.send(.restoreVersion(RestoreVersionRequest(item: "GitHub", version: version))).saved()
        #expect(restored.version == version && restored.id == github.id)
        #expect(try agent.send(.field(FieldRequest(item: "GitHub", field: "password"))).value().value == Self.githubPassword)

        // delete, trash-list, trash-restore, trash-delete, trash-empty
        let doomed = try agent.add("note", ItemChanges(title: "Doomed", notes: "bye"))
        #expect(try agent.send(.delete(ItemRequest(item: "Doomed"))).saved().id == doomed.id)
        #expect(try agent.send(.trashList(ListRequest())).items().items.map(\.id) == [doomed.id])
        #expect(try agent.send(.list(ListRequest())).items().items.map(\.id).contains(doomed.id) == false)
        #expect(try agent.send(.trashRestore(ItemRequest(item: "Doomed"))).saved().id == doomed.id)
        #expect(try agent.send(.list(ListRequest())).items().items.map(\.id).contains(doomed.id))
        _ = try agent.send(.delete(ItemRequest(item: doomed.id))).saved()
        #expect(try agent.send(.trashDelete(ItemRequest(item: "Doomed"))).saved().id == doomed.id)
        #expect(try agent.send(.trashList(ListRequest())).items().items.isEmpty)
        for title in ["Old one", "Old two"] {
            _ = try agent.add("note", ItemChanges(title: title, notes: "x"))
            _ = try agent.send(.delete(ItemRequest(item: title))).saved()
        }
        #expect(try agent.send(.trashEmpty).count().count == 2)
        #expect(try agent.send(.trashEmpty).count().count == 0)

        // set-one-time-password and code: TOTP gives the current code, HOTP advances its counter and saves it.
        _ = try agent.add("login", ItemChanges(title: "Mail", username: "me"))
        let totpSet = try agent.send(.setOneTimePassword(SetOneTimePasswordRequest(item: "Mail", setups: ["otpauth://totp/Mail:me?secret=JBSWY3DPEHPK3PXP&issuer=Mail"])))
            .code()
        #expect(totpSet.kind == "totp" && totpSet.period == 30)
        let totp = try agent.send(.code(ItemRequest(item: "Mail"))).code()
        #expect(totp.kind == "totp" && totp.code?.count == 6 && totp.code?.allSatisfy(\.isNumber) == true)
        #expect((1...30).contains(totp.secondsLeft ?? 0) && totp.counter == nil)
        _ = try agent.add("login", ItemChanges(title: "Bank", username: "me"))
        let hotpSet = try agent.send(.setOneTimePassword(SetOneTimePasswordRequest(item: "Bank", setups: [Self.hotpSetup]))).code()
        #expect(hotpSet.kind == "hotp" && hotpSet.counter == 0 && hotpSet.code == nil)
        // LST-5: the items with a code, listed alone and marked in every listing.
        let withCodes = try agent.send(.list(ListRequest(withCode: true))).items()
        let allItems = try agent.send(.list(ListRequest())).items()
        #expect(withCodes.total >= 1 && withCodes.items.allSatisfy { $0.hasCode == true } && withCodes.items.contains { $0.title == "Bank" })
        #expect(Set(allItems.items.filter { $0.hasCode == true }.map(\.id)) == Set(withCodes.items.map(\.id)) && allItems.total > withCodes.total)
        for (counter, expected) in Self.hotpCodes.prefix(2).enumerated() {
            let hotp = try agent.send(.code(ItemRequest(item: "Bank"))).code()
            #expect(hotp.code == expected && hotp.counter == counter + 1 && hotp.secondsLeft == nil)
            #expect(fields(try agent.send(.show(ShowRequest(item: "Bank"))).item(), "otp")?.code?.counter == counter + 1)
        }
        // read/copy resolve a reference: the HOTP counter advances there too.
        let resolved = try agent.send(.resolve(ResolveRequest(references: ["passbox://local/Bank/code", "passbox://local/GitHub/username"]))).resolved()
        #expect(resolved.values == [Self.hotpCodes[2], "octocat"])
        #expect(fields(try agent.send(.show(ShowRequest(item: "Bank"))).item(), "otp")?.code?.counter == 3)

        // import-one-time-passwords: list only, import all, import again (duplicates skipped)
        let setups = ["otpauth://totp/Acme:alice?secret=MFRGGZDFMZTWQ2LK&issuer=Acme", "otpauth://totp/Beta:bob?secret=ONSWG4TFOQYTEMZU&issuer=Beta"]
        let listed = try agent.send(.importOneTimePasswords(ImportRequest(setups: setups, select: nil, all: false))).imported()
        #expect(listed.accounts.map(\.issuer) == ["Acme", "Beta"] && listed.imported.isEmpty && listed.skippedDuplicates == 0)
        #expect(try agent.send(.search(SearchRequest(query: "Acme"))).items().items.isEmpty)
        let imported = try agent.send(.importOneTimePasswords(ImportRequest(setups: setups, all: true))).imported()
        #expect(imported.imported.map(\.title) == ["Acme", "Beta"] && imported.skippedDuplicates == 0)
        #expect(try agent.send(.list(ListRequest(category: "one-time-password"))).items().total == 2)
        let again = try agent.send(.importOneTimePasswords(ImportRequest(setups: setups, all: true))).imported()
        #expect(again.imported.isEmpty && again.skippedDuplicates == 2)

        // generate and strength (keys, not sentences)
        let generated = try agent.send(.generate(GeneratorRequest(length: 24))).generated()
        #expect(generated.password.count == 24 && generated.entropyBits > 100)
        let phrase = try agent.send(.generate(GeneratorRequest(words: 5, separator: "-"))).generated()
        #expect(phrase.password.split(separator: "-").count == 5)
        let weak = try agent.send(.strength(StrengthRequest(password: SecretText("password")))).strength()
        #expect(weak.score == 0)
        #expect(weak.warning == "strength.warning.common")
        #expect(!weak.suggestions.isEmpty && weak.suggestions.allSatisfy { $0.hasPrefix("strength.suggestion.") })

        // check, dismiss, fix-https
        let weakLogin = try agent.add(
            "login", ItemChanges(title: "Forum", username: "me", websites: ["http://forum.example.org"], secretFields: [FieldAssignment(label: "password", value: "password")]))
        #expect(weakLogin.weakPassword?.score == 0)
        let report = try agent.send(.check(CheckRequest())).check()
        #expect((0...100).contains(report.score) && report.logins >= 2 && !report.breachCheckEnabled)
        let forumFindings = Set(report.findings.filter { $0.itemID == weakLogin.id }.map(\.kind))
        #expect(forumFindings.isSuperset(of: ["weak", "unsecured-website"]), "\(forumFindings)")
        #expect(report.findings.allSatisfy { FindingKind(rawValue: $0.kind) != nil })
        #expect(try agent.send(.dismiss(DismissRequest(item: "Forum", kind: "weak", dismissed: true))).saved().id == weakLogin.id)
        let afterDismiss = try agent.send(.check(CheckRequest())).check()
        #expect(afterDismiss.findings.first { $0.itemID == weakLogin.id && $0.kind == "weak" }?.dismissed == true)
        let fixed = try agent.send(.fixHTTPS(FixHTTPSRequest(item: "Forum"))).count()
        #expect(fixed.count == 1 && fixed.items.map(\.id) == [weakLogin.id])
        #expect(try agent.send(.show(ShowRequest(item: "Forum"))).item().summary.websites == ["https://forum.example.org"])

        // breach-prefixes and a check with the range answers the client fetched: only prefixes leave the agent.
        _ = try agent.send(.changeSetting(SettingRequest(name: "breach-check", value: "on"))).settings()
        let prefixes = try agent.send(.breachPrefixes).prefixes().prefixes
        let forumHash = BreachRanges.sha1Hex("password")
        #expect(prefixes.contains(String(forumHash.prefix(5))) && prefixes.allSatisfy { $0.count == 5 })
        var answers = Dictionary(uniqueKeysWithValues: prefixes.map { ($0, "0000000000000000000000000000000000A:0\n") })
        answers[String(forumHash.prefix(5))] = "\(forumHash.dropFirst(5)):9659365\nFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:0\n"
        let incomplete = answers.filter { $0.key != String(forumHash.prefix(5)) }
        #expect(throws: ProtocolError.self) { try agent.send(.check(CheckRequest(runBreachCheck: true, ranges: incomplete))).check() }
        let breached = try agent.send(.check(CheckRequest(runBreachCheck: true, ranges: answers))).check()
        #expect(breached.breachedPasswordsFound == 1 && breached.lastBreachCheck != nil)
        #expect(breached.findings.contains { $0.itemID == weakLogin.id && $0.kind == "breached-password" && $0.details["occurrences"] == "9659365" })
        _ = try agent.send(.changeSetting(SettingRequest(name: "breach-check", value: "off"))).settings()

        // fill: candidates, the login for another site refused without confirmation, filled with it
        let candidates = try agent.send(.fill(FillRequest(address: "https://github.com/login"))).fill()
        #expect(candidates.host == "github.com" && candidates.candidates.map(\.id) == [github.id])
        let other = try agent.failure(.fill(FillRequest(address: "https://evil.example.net/login", pick: "GitHub", confirmOtherSite: false)))
        #expect(other.code == .otherSite && other.facts["saved"] == "github.com" && other.facts["requested"] == "evil.example.net")
        #expect(try agent.send(.fill(FillRequest(address: "https://github.com/login", pick: "GitHub"))).value().value == Self.githubPassword)

        // settings and change-setting
        let settings = try agent.send(.settings).settings()
        #expect(!settings.breachCheck && settings.damagedFile == nil)
        #expect(try agent.send(.changeSetting(SettingRequest(name: "auto-lock", value: "15"))).settings().autoLockMinutes == 15)
        #expect(try agent.send(.settings).settings().autoLockMinutes == 15)
        #expect(try agent.send(.status).status().autoLockMinutes == 15)
        let invalid = try agent.failure(.changeSetting(SettingRequest(name: "auto-lock", value: "7")))
        #expect(invalid == ProtocolError(.invalidSetting, ["name": "auto-lock", "value": "7"]))
        // The clipboard time and the web UI's language, theme and shortcuts, kept by the agent.
        #expect(settings.clipboardSeconds == 90 && settings.webLanguage == nil && settings.webTheme == nil && settings.webShortcuts == true)
        #expect(try agent.send(.changeSetting(SettingRequest(name: "clipboard", value: "30"))).settings().clipboardSeconds == 30)
        #expect(try agent.send(.changeSetting(SettingRequest(name: "web-language", value: "de"))).settings().webLanguage == "de")
        #expect(try agent.send(.changeSetting(SettingRequest(name: "web-theme", value: "light"))).settings().webTheme == "light")
        #expect(try agent.send(.changeSetting(SettingRequest(name: "web-shortcuts", value: "off"))).settings().webShortcuts == false)
        for (name, value) in [("clipboard", "5"), ("clipboard", "601"), ("web-language", "fr"), ("web-theme", "pink"), ("web-shortcuts", "maybe")] {
            #expect(try agent.failure(.changeSetting(SettingRequest(name: name, value: value))).code == .invalidSetting, "\(name)=\(value)")
        }
        _ = try agent.send(.changeSetting(SettingRequest(name: "clipboard", value: "90")))

        // copy: without a display nothing is copied and the item's use is not recorded (the end-to-end test under
        // Xvfb copies for real).
        #expect(try agent.failure(.copy(CopyRequest(reference: "passbox://local/GitHub/password", clearAfter: 5, display: ClipboardDisplay()))) == ProtocolError(.noDisplay))

        // change-password: the agent stays unlocked; the old password no longer opens the vault.
        #expect(try agent.send(.changePassword(ChangePasswordRequest(current: SecretText(RealAgent.password), new: SecretText(newPassword)))) == .done)
        #expect(try agent.send(.status).status().unlocked)
        #expect(try agent.send(.list(ListRequest())).items().total >= 5)
        #expect(throws: StoreError.wrongPassword) { try VaultStore(directory: agent.session.data).unlock(password: RealAgent.password) }
        #expect(try VaultStore(directory: agent.session.data).unlock(password: newPassword).vault.items.contains { $0.title == "GitHub" })

        // lock: vault operations answer locked; unlocking again shows what was saved (the HOTP counter).
        #expect(try agent.send(.lock(LockRequest())) == .done)
        #expect(try agent.send(.status).status().unlocked == false)
        #expect(try agent.failure(.list(ListRequest())) == ProtocolError(.locked))
        try agent.unlock(newPassword)
        #expect(fields(try agent.send(.show(ShowRequest(item: "Bank"))).item(), "otp")?.code?.counter == 3)

        // Pages of a listing (kept between pages) join into the whole listing, in order.
        let whole = try agent.send(.list(ListRequest(sort: "newest"))).items()
        var paged = [ItemSummary]()
        while paged.count < whole.total {
            let next = try agent.send(.list(ListRequest(sort: "newest", offset: paged.count, limit: 2))).items()
            #expect(next.total == whole.total && !next.items.isEmpty)
            if next.items.isEmpty { break }
            paged += next.items
        }
        #expect(whole.total > 2 && paged.map(\.id) == whole.items.map(\.id))
        // The same pages as text rows (what `passbox list` asks for) hold the same items, and no `items`.
        var rows = [ItemRow]()
        var sentWidths = [[Int]?]()
        while rows.count < whole.total {
            let next = try agent.send(.list(ListRequest(sort: "newest", offset: rows.count, limit: 2, rows: true))).items()
            #expect(next.items.isEmpty && next.rows != nil && next.total == whole.total)
            sentWidths.append(next.widths)
            guard let more = next.itemRows(), !more.isEmpty else { break }
            rows += more
        }
        #expect(rows == whole.items.map(ItemRow.init))
        // Every page carries the column widths of the whole listing, not of its own two rows, so `passbox list`
        // can print each page as it comes; the CLI's table, so printed, is the same as one padded in one pass.
        var measured = ItemTableWidths()
        for row in rows { measured.include(row) }
        #expect(sentWidths.count > 1 && sentWidths.allSatisfy { $0 == measured.columns }, "\(sentWidths) for \(measured.columns)")
        let printed = try agent.session.run(["list", "--sort", "newest"])
        let lines = printed.stdout.split(separator: "\n")
        #expect(lines.count == whole.total + 1 && lines.first?.hasPrefix("ID") == true, "\(printed.stdout)")
        let categoryColumn = measured.columns[0] + 2 + measured.columns[1] + 2
        for (line, row) in zip(lines.dropFirst(), rows) {
            #expect(String(line).hasPrefix(String(row.id.prefix(8))), "\(line)")
            #expect(String(line.dropFirst(categoryColumn)).hasPrefix(row.categoryName), "the category column lines up: \(line)")
        }

        // Vaults in the local vault file: a file without vaults lists one; making a second names the first.
        let vaultsListed = try agent.send(.vaultList).vaults()
        #expect(vaultsListed.kind == "local" && vaultsListed.vaults.count == 1 && vaultsListed.vaults[0].isDefault)
        let travel = try agent.send(.vaultCreate(VaultCreateRequest(name: "Travel", icon: "globe", colour: "teal"))).vault()
        #expect(travel.icon == "globe" && travel.colour == "teal" && travel.items == 0)
        let two = try agent.send(.vaultList).vaults()
        #expect(two.vaults.map(\.name) == ["Personal", "Travel"] && two.vaults[0].items >= 5)
        #expect(try agent.send(.vaultEdit(VaultEditRequest(vault: "travel", name: "Trips"))).vault().name == "Trips")
        #expect(try agent.send(.move(MoveRequest(items: ["GitHub"], vault: "Trips"))).count().count == 1)
        #expect(try agent.send(.list(ListRequest(vault: "Trips"))).items().items.map(\.title) == ["GitHub"])
        #expect(try agent.send(.move(MoveRequest(items: ["GitHub"], vault: "Personal", copy: true))).count().count == 1)
        #expect(try agent.send(.list(ListRequest(vault: "Personal"))).items().items.contains { $0.title == "GitHub" })
        // Deleting a vault (LB-2): a preview counts its items and changes nothing; then they go to the trash of the
        // vault left, and the vault is gone.
        let asked = try agent.send(.vaultDelete(VaultDeleteRequest(vault: "Trips", confirm: false))).vaultDeleted()
        #expect(asked.name == "Trips" && asked.items == 1 && asked.trashed == 0 && asked.home == "Personal" && !asked.deleted)
        #expect(try agent.send(.vaultList).vaults().vaults.count == 2, "a preview changes nothing")
        let deleted = try agent.send(.vaultDelete(VaultDeleteRequest(vault: asked.id, confirm: true))).vaultDeleted()
        #expect(deleted.deleted && deleted.items == 1)
        #expect(try agent.send(.vaultList).vaults().vaults.map(\.name) == ["Personal"])
        #expect(try agent.send(.trashList(ListRequest())).items().items.map(\.title) == ["GitHub"], "the vault's item is in the trash")
        #expect(try agent.failure(.vaultDelete(VaultDeleteRequest(vault: "Personal", confirm: false))).code == .lastVault)
        #expect(try agent.failure(.sync(SyncRequest())) == ProtocolError(.localVault))

        // The web UI's operations: a second vault is refused, a one-time address is minted with its 0600 opener
        // file, and the agent reads a QR image (made by qrencode) sent as base64.
        #expect(try agent.failure(.createVault(CreateVaultRequest(password: SecretText("another password here")))).code == .vaultExists)
        let web = try agent.send(.webOpen).web()
        #expect(web.url.hasPrefix(web.origin + "/open/") && web.origin.hasPrefix("http://127.0.0.1:"))
        let opener = try FileManager.default.attributesOfItem(atPath: web.opener)
        #expect((opener[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOfFile: web.opener, encoding: .utf8).contains(web.url))
        let setup = "otpauth://totp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example"
        let image = NSTemporaryDirectory() + "passbox-qr-\(getpid()).png"
        defer { unlink(image) }
        _ = try Transcript.execute("/usr/bin/qrencode", ["-o", image, setup], stdin: [], environment: [:])
        let png = try Data(contentsOf: URL(fileURLWithPath: image))
        #expect(try agent.send(.readQR(ReadQRRequest(image: png.base64EncodedString()))).resolved().values == [setup])

        // hello: the agent's generation and the operations the socket serves; nothing this client knows is missing.
        let hello = try agent.send(.hello(HelloRequest(operations: OperationName.allCases.map(\.rawValue)))).answer(HelloReply.self)
        #expect(hello.version == ProtocolVersion.current && hello.missing.isEmpty && hello.operations == OperationRegistry.current.allowed(on: [.socket, .browser]))

        // The account's operations need a server: AgentAccountTests sends each of them.
        // A list, not a chain of `subtracting`: the chain took the type checker 20 s.
        let sentElsewhere: [Set<OperationName>] = [
            AgentAccountTests.operations, AgentCoercionTests.operations, AgentBackupTests.operations, AgentInteropTests.operations, AgentAttachmentTests.operations,
            BrowserHostTests.operations, BrowserPasskeyTests.operations, AgentSharingTests.operations, DeviceLinkTests.operations, AgentBreachRangesTests.operations,
        ]
        var missed = Set(OperationName.allCases).subtracting(agent.sent)
        for operations in sentElsewhere { missed.subtract(operations) }
        #expect(missed.isEmpty, "operations never sent: \(missed.map(\.rawValue).sorted())")
    }

    /// A refused value as the surfaces word it: from its reason and facts (never a sentence on the wire).
    static func worded(_ e: ProtocolError) -> String {
        Localization.tr("invalid.\(e.facts["reason"] ?? "")", .english, e.facts)
    }

    /// A Google Authenticator export as a link: one HOTP account whose counter is `counter` (protobuf int64).
    static func migrationLink(counter: UInt64) -> String {
        func varint(_ v: UInt64) -> [UInt8] {
            var v = v, out = [UInt8]()
            while v >= 0x80 { out.append(UInt8(v & 0x7f) | 0x80); v >>= 7 }
            return out + [UInt8(v)]
        }
        let secret = Array("12345678901234567890".utf8), name = Array("Bank:me".utf8)
        let account = [0x0a, UInt8(secret.count)] + secret + [0x12, UInt8(name.count)] + name + [0x20, 1, 0x28, 1, 0x30, 1, 0x38] + varint(counter)
        let payload = [0x0a, UInt8(account.count)] + account + [0x10, 1, 0x18, 1, 0x20, 0]
        let data = Data(payload).base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "otpauth-migration://offline?data=\(data)"
    }

    /// HOTP counters past what Passbox counts to (up to 2^64 - 2, which links and exports may carry) arrive as
    /// QR images and are refused with the reason; the agent keeps serving (a counter above 2^63 - 1 once
    /// trapped where codes are computed and took the agent down), and the largest accepted counter works.
    @Test func aHugeHOTPCounterFromAQRImageIsRefusedAndTheAgentKeepsServing() throws {
        let agent = try RealAgent()
        try agent.unlock()
        _ = try agent.add("login", ItemChanges(title: "Bank", username: "me"))
        let image = NSTemporaryDirectory() + "passbox-hotp-\(getpid()).png"
        defer { unlink(image) }
        func qr(_ text: String) throws -> String {
            _ = try Transcript.execute("/usr/bin/qrencode", ["-o", image, text], stdin: [], environment: [:])
            let png = try Data(contentsOf: URL(fileURLWithPath: image))
            let read = try agent.send(.readQR(ReadQRRequest(image: png.base64EncodedString()))).resolved().values
            #expect(read == [text])
            return read.first ?? ""
        }
        for counter in [UInt64.max - 1, UInt64(Int64.max), OTPParameters.maximumCounter + 1] {
            let link = try qr("otpauth://hotp/Bank:me?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=\(counter)&issuer=Bank")
            let refused = try agent.failure(.setOneTimePassword(SetOneTimePasswordRequest(item: "Bank", setups: [link])))
            #expect(refused.code == .invalidValue && Self.worded(refused).contains("larger than"), "\(refused)")
            let export = try qr(Self.migrationLink(counter: counter))
            let imported = try agent.failure(.importOneTimePasswords(ImportRequest(setups: [export], all: true)))
            #expect(imported.code == .invalidValue, "\(imported)")
            #expect(try agent.send(.status).status().unlocked, "the agent still serves")
        }
        // One below the largest: one code, then the largest counter, from which no code is given (it has no next
        // one to store); the item stays readable.
        let almost = try qr("otpauth://hotp/Bank:me?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=\(OTPParameters.maximumCounter - 1)&issuer=Bank")
        _ = try agent.send(.setOneTimePassword(SetOneTimePasswordRequest(item: "Bank", setups: [almost])))
        let code = try agent.send(.code(ItemRequest(item: "Bank"))).code()
        #expect(code.kind == "hotp" && code.code?.count == 6 && code.counter == Int(OTPParameters.maximumCounter))
        #expect(try agent.failure(.code(ItemRequest(item: "Bank"))).code == .invalidValue, "no code past the largest counter, and no trap")
        let shown = try agent.send(.show(ShowRequest(item: "Bank"))).item()
        #expect(shown.summary.title == "Bank")
        #expect(try agent.send(.status).status().unlocked)
    }

    /// A stopgap, said in the closing notes of issue 34: in about one run in three beside AgentCoercionTests (and
    /// twice in fresh CI runs) one of this test's first requests read end of file instead of its reply, with the
    /// agent still running. The cause is not found: nothing in the agent closes a connection without a reply
    /// after reading its request, so a descriptor closed twice in this test process is suspected. The test then
    /// starts over once with a fresh agent; any other failure, or a second one, fails it.
    @Test func eachErrorCodeIsProvokedWithItsFacts() throws {
        do {
            try provokeEachErrorCode()
        } catch Framing.FrameError.closed {
            print("AgentOperationTests: a connection to the agent ended without a reply; starting over once with a fresh agent")
            try provokeEachErrorCode()
        }
    }

    func provokeEachErrorCode() throws {
        let agent = try RealAgent()
        var provoked = Set<ErrorCode>()
        /// Sends a request that must fail with `code`, and whose facts include `facts`.
        @discardableResult
        func expectFailure(_ request: Request, _ code: ErrorCode, _ facts: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> ProtocolError {
            let error = try agent.failure(request)
            provoked.insert(error.code)
            #expect(error.code == code, "\(request.operation.rawValue): \(error)", sourceLocation: sourceLocation)
            for (name, value) in facts {
                #expect(error.facts[name] == value, "\(code.rawValue).\(name) in \(error.facts)", sourceLocation: sourceLocation)
            }
            return error
        }

        // Quick unlock before the master password was ever typed: not offered, with the reason as a wording key.
        let notOffered = try expectFailure(.quickUnlock(QuickUnlockRequest(loginPassword: SecretText("login"))), .quickUnlockNotOffered)
        #expect(notOffered.facts["reason"]?.hasPrefix("quickUnlock.") == true)
        // Locked, then a wrong password (answered at the unlock deadline: UnlockTests pins it with a fake clock).
        try expectFailure(.list(ListRequest()), .locked)
        try expectFailure(.code(ItemRequest(item: "x")), .locked)
        try expectFailure(.unlock(UnlockRequest(password: SecretText("not the password"))), .wrongPassword)
        try agent.unlock()

        let github = try agent.add(
            "login", ItemChanges(title: "GitHub", username: "octocat", websites: ["https://github.com"], secretFields: [FieldAssignment(label: "password", value: "Gh-Secret-Pa55word!")]))
        let note = try agent.add("note", ItemChanges(title: "Plain note", notes: "text"))
        let twins = try ["Twin", "Twin"].map { try agent.add("note", ItemChanges(title: $0, notes: "x")) }
        let trashed = try agent.add("note", ItemChanges(title: "Binned", notes: "x"))
        _ = try agent.send(.delete(ItemRequest(item: "Binned"))).saved()

        // Items
        try expectFailure(.show(ShowRequest(item: "Nope")), .itemNotFound, ["reference": "Nope"])
        let ambiguous = try expectFailure(.show(ShowRequest(item: "Twin")), .ambiguousItem, ["reference": "Twin", "count": "2"])
        #expect(twins.allSatisfy { ambiguous.facts["candidates"]?.contains($0.id) == true })
        try expectFailure(.edit(EditRequest(item: "Binned", changes: ItemChanges(notes: "y"))), .itemInTrash, ["title": "Binned", "id": trashed.id])
        try expectFailure(.trashRestore(ItemRequest(item: "GitHub")), .itemNotInTrash, ["title": "GitHub", "id": github.id])
        try expectFailure(.restoreVersion(RestoreVersionRequest(item: "GitHub", version: "0000000000000")), .versionNotFound, ["version": "0000000000000"])
        try expectFailure(.field(FieldRequest(item: "GitHub", field: "shoe size")), .noField, ["title": "GitHub", "field": "shoe size", "id": github.id])
        try expectFailure(.code(ItemRequest(item: "GitHub")), .noOneTimePassword, ["title": "GitHub", "id": github.id])

        // Names that are not in a closed set
        try expectFailure(.list(ListRequest(category: "spaceship")), .unknownCategory, ["name": "spaceship"])
        try expectFailure(.add(AddRequest(category: "spaceship", changes: ItemChanges(title: "x"))), .unknownCategory, ["name": "spaceship"])
        try expectFailure(.list(ListRequest(sort: "sideways")), .unknownSort, ["name": "sideways"])
        try expectFailure(.search(SearchRequest(query: "git", scope: "everywhere")), .unknownScope, ["name": "everywhere"])
        try expectFailure(.dismiss(DismissRequest(item: "GitHub", kind: "too-blue", dismissed: true)), .unknownFindingKind, ["name": "too-blue"])
        try expectFailure(.changeSetting(SettingRequest(name: "colour", value: "blue")), .unknownSetting, ["name": "colour"])
        try expectFailure(.changeSetting(SettingRequest(name: "reminder", value: "3")), .invalidSetting, ["name": "reminder", "value": "3"])

        // What an item change may hold
        let cli = [FieldAssignment(label: "password", value: "on the command line")]
        try expectFailure(.add(AddRequest(category: "login", changes: ItemChanges(title: "x", fieldsFromCommandLine: cli))), .concealedOnCommandLine, ["label": "password"])
        let both = ItemChanges(title: "x", secretFields: [FieldAssignment(label: "password", value: "typed")], generatePassword: GeneratorRequest())
        try expectFailure(.add(AddRequest(category: "login", changes: both)), .conflictingOptions, ["first": "--password-stdin", "second": "--generate"])
        let twice = [FieldAssignment(label: "Room", value: "1"), FieldAssignment(label: "room", value: "2")]
        try expectFailure(.edit(EditRequest(item: "GitHub", changes: ItemChanges(fieldsFromCommandLine: twice))), .duplicateField, ["label": "room"])
        let many = (0...1_000).map { FieldAssignment(label: "f\($0)", value: "v") }
        try expectFailure(.add(AddRequest(category: "note", changes: ItemChanges(title: "x", fieldsFromCommandLine: many))), .tooManyFields, ["count": "1001", "limit": "1000"])
        let longTitle = String(repeating: "t", count: 4_097)
        try expectFailure(.add(AddRequest(category: "note", changes: ItemChanges(title: longTitle))), .valueTooLong, ["label": "title", "length": "4097", "limit": "4096"])
        let card = ItemChanges(title: "Card", secretFields: [FieldAssignment(label: "number", value: "4111 1111 1111 1112")])
        let invalidValue = try expectFailure(.add(AddRequest(category: "credit-card", changes: card)), .invalidValue)
        #expect(Self.worded(invalidValue).contains("check digit") && invalidValue.facts["reason"] == "card.checkDigit")
        #expect(!Localization.tr("invalid.card.checkDigit.hint", .english).isEmpty && Localization.has("invalid.card.checkDigit.hint"))
        #expect(!(invalidValue.facts.values.contains { $0.contains("4111") }), "the facts must not hold the value")

        // One-time passwords
        try expectFailure(.importOneTimePasswords(ImportRequest(setups: [], all: true)), .nothingToImport)
        try expectFailure(.setOneTimePassword(SetOneTimePasswordRequest(item: "GitHub", setups: [])), .nothingToImport)
        try expectFailure(.importOneTimePasswords(ImportRequest(setups: [Self.hotpSetup], select: [2])), .selectionOutOfRange, ["count": "1"])

        // References, fill, check, generator
        let reference = try expectFailure(.resolve(ResolveRequest(references: ["https://example.com"])), .invalidReference, ["reference": "https://example.com"])
        #expect(!(reference.facts["reason"] ?? "").isEmpty)
        try expectFailure(.fill(FillRequest(address: "https://github.com", pick: "Plain note")), .notALogin, ["title": "Plain note", "id": note.id])
        try expectFailure(.fill(FillRequest(address: "https://github.example.org", pick: "GitHub")), .otherSite, ["saved": "github.com", "requested": "github.example.org"])
        try expectFailure(.fill(FillRequest(address: "://")), .notAnAddress, ["address": "://"])
        try expectFailure(.check(CheckRequest(runBreachCheck: true)), .breachCheckOff)
        try expectFailure(.breachPrefixes, .breachCheckOff)
        try expectFailure(.copy(CopyRequest(reference: "passbox://local/GitHub/password", clearAfter: 5, display: ClipboardDisplay())), .noDisplay)
        // A display that does not exist: the X11 helper and xclip both fail, and nothing is copied.
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/xclip"), "xclip is needed (make test installs it)")
        try expectFailure(.copy(CopyRequest(reference: "passbox://local/GitHub/password", clearAfter: 5, display: ClipboardDisplay(display: ":987"))), .clipboardFailed)
        try expectFailure(.generate(GeneratorRequest(words: 5, language: "tlh")), .invalidGenerator, ["reason": "language", "value": "tlh"])
        // Vaults and sync
        try expectFailure(.vaultEdit(VaultEditRequest(vault: "Nowhere", name: "x")), .vaultNotFound, ["reference": "Nowhere"])
        try expectFailure(.vaultCreate(VaultCreateRequest(name: "  ")), .vaultNameInvalid, ["reason": "it is empty"])
        try expectFailure(.vaultDelete(VaultDeleteRequest(vault: "Personal", confirm: true)), .lastVault, ["name": "Personal"])
        try expectFailure(.sync(SyncRequest()), .localVault)
        // Accounts (AgentAccountTests signs up for real, and provokes what an empty data directory checks).
        let nowhere = "http://127.0.0.1:9"
        try expectFailure(.accountView, .noAccount)
        // Signing up or in through the agent is for an empty data directory: a local vault here stays served.
        try expectFailure(.accountSignUp(AccountSignUpRequest(server: nowhere, email: "me@example.org", password: SecretText("tulip ocean marble violin anchor"))), .vaultExists)
        try expectFailure(.changePassword(ChangePasswordRequest(current: SecretText(RealAgent.password), new: SecretText(RealAgent.password))), .passwordUnchanged)
        #expect(try agent.send(.status).status().unlocked, "a refused password change leaves the agent unlocked")

        // Frames: not a request, an unknown operation, a body of the wrong form, too large, another version.
        func raw(_ bytes: [UInt8], _ code: ErrorCode, _ facts: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let outcome = try RawExchange.send(bytes, socketPath: agent.socketPath)
            guard case .reply(let body) = outcome, let frame = RawExchange.replyFrame(body), case .failure(let error) = frame.reply else {
                Issue.record("no typed failure: \(outcome)", sourceLocation: sourceLocation)
                return
            }
            provoked.insert(error.code)
            #expect(frame.version == ProtocolVersion.current, sourceLocation: sourceLocation)
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            for (name, value) in facts { #expect(error.facts[name] == value, "\(name) in \(error.facts)", sourceLocation: sourceLocation) }
        }
        try raw(RawExchange.json("hello"), .badRequest, ["reason": "not a request frame"])
        try raw(RawExchange.json(#"{"version":\#(ProtocolVersion.current),"request":{"op":"teleport"}}"#), .unsupported, ["operation": "teleport", "agent": String(ProtocolVersion.current)])
        try raw(RawExchange.json(#"{"version":\#(ProtocolVersion.current),"request":{"op":"show","body":{"item":7}}}"#), .badRequest)
        try raw(RawExchange.header(Framing.maximumFrame + 1), .badRequest, ["reason": "the request is too large (\(Framing.maximumFrame + 1) bytes)"])
        let current = String(ProtocolVersion.current), next = ProtocolVersion.current + 1
        try raw(RawExchange.json(#"{"version":1,"request":{"op":"status"}}"#), .versionMismatch, ["client": "1", "agent": current])
        // A newer client's frame is served for the operations this agent knows (negotiation, not equality).
        let newer = try RawExchange.send(RawExchange.json(#"{"version":\#(next),"request":{"op":"settings"}}"#), socketPath: agent.socketPath)
        guard case .reply(let newerBody) = newer, let newerFrame = RawExchange.replyFrame(newerBody), case .settings = newerFrame.reply else {
            Issue.record("a newer client's settings was not answered: \(newer)")
            return
        }
        // A client reads a newer agent's reply of a kind it knows; a reply older than negotiation, of this
        // shape or not, is versionMismatch.
        #expect(try AgentClient.decodeReply(Array(try ProtocolCoding.wireEncode(ReplyFrame(.done, version: next)))) == .done)
        let old = ProtocolVersion.oldest - 1
        let stale = Array(try ProtocolCoding.wireEncode(ReplyFrame(.done, version: old)))
        #expect(try AgentClient.decodeReply(stale) == .failure(ProtocolError(.versionMismatch, ["client": current, "agent": String(old)])))
        let reshaped = Array(#"{"version":\#(old),"reply":{"kind":"teleported"}}"#.utf8)
        #expect(try AgentClient.decodeReply(reshaped) == .failure(ProtocolError(.versionMismatch, ["client": current, "agent": String(old)])))

        // A reply over the frame limit: three versions of a note holding 2 MiB each make a 6 MiB history.
        let bulky = try agent.add("note", ItemChanges(title: "Bulky", notes: String(repeating: "n", count: 2 << 20)))
        for title in ["Bulky 2", "Bulky 3", "Bulky 4"] {
            #expect(try agent.send(.edit(EditRequest(item: bulky.id, changes: ItemChanges(title: title)))).saved().changed)
        }
        // An image that is no image, or holds no QR code (the web UI's one-time-code upload).
        try expectFailure(.readQR(ReadQRRequest(image: "not base64!")), .imageUnreadable)
        try expectFailure(.readQR(ReadQRRequest(image: Data("GIF89a".utf8).base64EncodedString())), .imageUnreadable)
        let tooLarge = try expectFailure(.history(ShowRequest(item: bulky.id)), .replyTooLarge)
        #expect(Int(tooLarge.facts["bytes"] ?? "") ?? 0 > Framing.maximumFrame)
        #expect(try agent.send(.show(ShowRequest(item: bulky.id))).item().summary.title == "Bulky 4", "the agent serves on")

        // Every code the agent answers to a request alone; the rest need PAM, five wrong passwords and a wait, a
        // damaged, foreign or missing file, another process, the network, a missing library, or come only from the CLI
        // (noPassword), or from the account server (accountVaultPassword needs a signed-in data directory:
        // AccountCommandTests.anAccountsVaultUnlocksOfflineFromTheKeptKeyset provokes it).
        let needOtherConditions: Set<ErrorCode> = [
            .accountExists, .accountIDTaken, .signInFailed, .challengeExpired, .notSignedIn, .notFound, .serverUnreachable, .badServerAnswer,
            .insecureServer, .serverParametersRefused, .serverSaltChanged, .noAccount, .alreadySignedIn, .rateLimited, .deviceNotFound, .signupClosed,
            .invitationInvalid, .twoFactorRequired, .twoFactorCodeWrong, .requestTimeout, .accountVaultPassword,
            .mustWait, .attemptCounterDamaged, .quickUnlockRefused, .quickUnlockUnavailable, .noVault, .vaultExists, .notAVault,
            .newerFormat, .damaged, .busy, .conflict, .vaultTooLarge, .io, .directoryNotOwned, .noPassword, .breachCheckFailed, .catalogueMissing,
            .internalError, .libraryMissing,
            // An upgraded server's answer to an older client: ServerUpgradeTests.anOlderClientIsToldToUpdate provokes it.
            .clientTooOld,
            // Sync needs an account: SyncSimulationTests and HostileSyncTests provoke these.
            .syncConflict, .syncRefused, .syncKeysMissing,
            // The server's attachment quota and blobs it lacks: AttachmentSyncTests and AttachmentRemovalSyncTests provoke them.
            .blobQuotaExceeded, .blobsMissing,
            // The web server failing to start (no free port on 127.0.0.1).
            .webUnavailable,
            // An empty data directory or a signed-in account: AgentAccountTests provokes these.
            .kitMismatch, .notAnEmail, .masterTooWeak, .secretKeyInvalid,
            // An account's vault: AgentAccountTests provokes it.
            .localVaultOnly,
            // A seal from a newer Passbox, or too little memory for an item password's derivation.
            .newerItemSeal, .notEnoughMemory,
            // A backup that would expand past 64 MiB: BackupFileTests seals one with the right key.
            .backupTooLarge,
            // A parse child that crashes or runs away: ParseChildTests provokes it (through an agent too).
            .parseFailed,
        ]
        // A list, not a chain of `subtracting` (6 s of type checking).
        let provokedElsewhere: [Set<ErrorCode>] = [
            needOtherConditions, provoked, AgentCoercionTests.errorCodes, AgentBackupTests.errorCodes, AgentInteropTests.errorCodes, AgentAttachmentTests.errorCodes,
            BrowserHostTests.errorCodes, BrowserPasskeyTests.errorCodes, SharingIntegrationTests.errorCodes, DeviceLinkTests.errorCodes,
        ]
        var missed = Set(ErrorCode.allCases)
        for codes in provokedElsewhere { missed.subtract(codes) }
        #expect(missed.isEmpty, "codes never provoked: \(missed.map(\.rawValue).sorted())")
        #expect(agent.isRunning)
    }

    @Test func everyErrorCodeIsWordedInEnglishAndGerman() {
        let english = Localization.keys(.english), german = Localization.keys(.german)
        for code in ErrorCode.allCases {
            let key = "error.\(code.rawValue)"
            for suffix in ["", ".hint"] {
                let variants = [key + suffix, key + suffix + ".one", key + suffix + ".other"].filter { english.contains($0) || german.contains($0) }
                #expect(
                    variants.contains(key + suffix) || (variants.contains(key + suffix + ".one") && variants.contains(key + suffix + ".other")),
                    "\(key + suffix) is not worded")
                for variant in variants {
                    #expect(english.contains(variant) && german.contains(variant), "\(variant) is missing in a language")
                    #expect(Localization.placeholders(variant, .english) == Localization.placeholders(variant, .german), "\(variant): placeholders differ")
                }
            }
            #expect(Localization.has(key), "\(key)")
        }
    }
}
