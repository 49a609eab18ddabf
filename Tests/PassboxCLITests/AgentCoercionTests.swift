import Foundation
import PassboxAgent
import PassboxCore
import PassboxProtocol
import PassboxService
import PassboxCrypto
import PassboxStore
import PassboxTestKit
import Testing

/// Duress passwords, erasing, Delete All Data, killphrases and hidden items through a real agent, as the
/// CLI and the web UI reach them.
@Suite struct AgentCoercionTests {
    /// The operations these tests cover (AgentOperationTests counts them as sent).
    static let operations: Set<OperationName> = [.duressSet, .duressChange, .eraseSetting, .deleteAllData, .itemProtect, .itemUnprotect, .itemOpen]
    /// The error codes these tests provoke.
    static let errorCodes: Set<ErrorCode> = [
        .duressSameAsOwn, .wrongDuressPassword, .unlockPromptOnly, .invalidPhrase, .cannotProtect, .alreadyProtected, .notProtected, .alwaysProtected,
        .itemProtected, .wrongItemPassword, .itemPasswordTooShort, .itemPasswordNeeded, .neverCopied,
    ]

    let real = RealAgent.password
    let duress = "a duress password nobody guesses"

    func text(_ s: String) -> SecretText { SecretText(s) }

    func json(_ reply: Reply) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(reply), as: UTF8.self)
    }

    /// The replies that name no item, compared between vaults: only their item-dependent parts may differ.
    func shape(_ agent: RealAgent) throws -> [String] {
        var status = try agent.send(.status).status()
        status.pid = 0
        status.locksInSeconds = 0
        // Random, drawn anew at every save: it tells a change, nothing of the vault (compared below on its own).
        status.vaultMark = nil
        return [try json(.status(status)), try json(agent.send(.settings))]
    }

    @Test func aDuressVaultLooksLikeAnyVaultThroughTheAgent() throws {
        let agent = try RealAgent()
        try agent.unlock()
        _ = try agent.add("login", ItemChanges(title: "Real bank", username: "me"))
        let realShape = try shape(agent)

        #expect(try agent.failure(.duressSet(DuressRequest(current: text("not it"), duress: text(duress)))).code == .wrongPassword)
        #expect(try agent.failure(.duressSet(DuressRequest(current: text(real), duress: text(real)))).code == .duressSameAsOwn)
        #expect(try agent.send(.duressSet(DuressRequest(current: text(real), duress: text(duress)))) == .done)
        #expect(try agent.send(.list(ListRequest())).items().items.map(\.title) == ["Real bank"], "the agent stays in the real vault")

        #expect(try agent.send(.lock(LockRequest())) == .done)
        try agent.unlock(duress)
        let inDuress = try agent.send(.list(ListRequest())).items()
        #expect(inDuress.items.isEmpty && inDuress.vaultIsEmpty)
        #expect(try shape(agent) == realShape, "status and settings say nothing of which vault is open")
        _ = try agent.add("note", ItemChanges(title: "Decoy"))

        // From inside the duress vault, another duress password, and a change of its own password.
        let second = "second level duress password"
        #expect(try agent.send(.duressSet(DuressRequest(current: text(duress), duress: text(second)))) == .done)
        #expect(try agent.send(.changePassword(ChangePasswordRequest(current: text(duress), new: text("renamed duress password")))) == .done)
        #expect(try agent.send(.list(ListRequest())).items().items.map(\.title) == ["Decoy"])

        #expect(try agent.send(.lock(LockRequest())) == .done)
        try agent.unlock()
        let wrongOld = DuressRequest(current: text(real), duress: text(duress), new: text("a third duress password"))
        #expect(try agent.failure(.duressChange(wrongOld)).code == .wrongDuressPassword, "the duress vault's password was changed from inside it")
        let change = DuressRequest(current: text(real), duress: text("renamed duress password"), new: text("a third duress password"))
        #expect(try agent.send(.duressChange(change)) == .done)
        #expect(try agent.send(.lock(LockRequest())) == .done)
        try agent.unlock("a third duress password")
        #expect(try agent.send(.list(ListRequest())).items().items.map(\.title) == ["Decoy"], "a change keeps what the vault holds")
        #expect(try agent.send(.lock(LockRequest())) == .done)
        try agent.unlock(second)
        #expect(try agent.send(.list(ListRequest())).items().total == 0)
    }

    @Test func erasingIsASettingOfThisMachineAndTheTenthAttemptIsLeftToTheUnlockPrompt() throws {
        let agent = try RealAgent()
        try agent.unlock()
        #expect(try agent.send(.settings).settings().eraseAfterFailures == false)
        #expect(try agent.failure(.eraseSetting(EraseSettingRequest(current: text("not it"), on: true))).code == .wrongPassword)
        #expect(try agent.send(.eraseSetting(EraseSettingRequest(current: text(real), on: true))).settings().eraseAfterFailures == true)

        // Nine wrong in a row: a settings flow refuses without trying or counting (G20).
        let attempts = agent.session.data + "/attempts"
        try Data(#"{"failures":9,"lastAttemptMs":0,"erase":true}"#.utf8).write(to: URL(fileURLWithPath: attempts))
        #expect(try agent.failure(.changePassword(ChangePasswordRequest(current: text(real), new: text("another long password")))).code == .unlockPromptOnly)
        #expect(try agent.failure(.duressSet(DuressRequest(current: text(real), duress: text(duress)))).code == .unlockPromptOnly)
        #expect(try agent.failure(.deleteAllData(DeleteAllDataRequest(current: text(real)))).code == .unlockPromptOnly)
        #expect(try String(contentsOfFile: attempts, encoding: .utf8).contains(#""failures":9"#))

        // The tenth wrong password at the unlock prompt erases everything, and answers as a wrong password.
        #expect(try agent.send(.lock(LockRequest())) == .done)
        #expect(try agent.failure(.unlock(UnlockRequest(password: text("a wrong password")))).code == .wrongPassword)
        #expect(!FileManager.default.fileExists(atPath: agent.vaultPath))
        #expect(try agent.failure(.unlock(UnlockRequest(password: text(real)))).code == .noVault)
        #expect(try agent.send(.settings).settings().eraseAfterFailures == false, "a fresh start: erasing is off")
    }

    @Test func deleteAllDataAsksForThePasswordAndLeavesAFirstRunDirectory() throws {
        let agent = try RealAgent()
        try agent.unlock()
        #expect(try agent.failure(.deleteAllData(DeleteAllDataRequest(current: text("not it")))).code == .wrongPassword)
        #expect(FileManager.default.fileExists(atPath: agent.vaultPath))
        #expect(try agent.send(.deleteAllData(DeleteAllDataRequest(current: text(real)))) == .done)
        #expect(try !agent.send(.status).status().unlocked)
        #expect(!FileManager.default.fileExists(atPath: agent.vaultPath))
        #expect(try agent.send(.createVault(CreateVaultRequest(password: text(real)))) == .done, "onboarding starts again")
    }

    @Test func killphrasesAndHiddenItemsThroughTheAgent() throws {
        let agent = try RealAgent()
        try agent.unlock()
        var hiddenChanges = ItemChanges(title: "Hidden account", username: "quiet", websites: ["https://hidden.example"])
        hiddenChanges.searchPassphrase = "Ünder the Bridge"
        hiddenChanges.secretFields = [FieldAssignment(label: "password", value: "123456")]
        let hidden = try agent.add("login", hiddenChanges)
        var doomedChanges = ItemChanges(title: "Doomed account", username: "gone")
        doomedChanges.killphrase = "burn after reading"
        let doomed = try agent.add("login", doomedChanges)
        _ = try agent.add("login", ItemChanges(title: "Ordinary account", username: "plain", websites: ["https://hidden.example"]))
        var tooLong = ItemChanges(title: "x")
        tooLong.killphrase = String(repeating: "k", count: Phrases.maximumLength + 1)
        #expect(try agent.failure(.add(AddRequest(category: "note", changes: tooLong))).code == .invalidPhrase)

        // Nowhere but a search for its passphrase: list, searches, counts, Security Check, fill, vaults.
        let replies: [Request] = [
            .list(ListRequest()), .list(ListRequest(category: "login")), .search(SearchRequest(query: "account")),
            .search(SearchRequest(query: "quiet")), .search(SearchRequest(query: "under the")), .check(CheckRequest()),
            .fill(FillRequest(address: "https://hidden.example")), .vaultList, .trashList(ListRequest()),
        ]
        for request in replies {
            let body = try json(agent.send(request))
            #expect(!body.contains(hidden.id) && !body.contains("Hidden account") && !body.contains("quiet"), "\(request.operation.rawValue): \(body.prefix(300))")
        }
        #expect(try agent.send(.list(ListRequest())).items().total == 2)
        #expect(try agent.send(.vaultList).vaults().vaults.map(\.items).reduce(0, +) == 2)
        let found = try agent.send(.search(SearchRequest(query: "  under the bridge "))).items()
        #expect(found.items.map(\.id) == [hidden.id], "case, accents and the ends do not matter")
        // Named by its whole id it is an item like any other, and stays hidden after an edit.
        #expect(try agent.send(.show(ShowRequest(item: hidden.id))).item().summary.title == "Hidden account")
        #expect(try agent.send(.edit(EditRequest(item: hidden.id, changes: ItemChanges(title: "Hidden account 2")))).saved().changed)
        #expect(try agent.send(.list(ListRequest())).items().total == 2)
        #expect(try agent.failure(.show(ShowRequest(item: String(hidden.id.prefix(7))))).code == .itemNotFound, "a short prefix does not name it")
        #expect(try agent.send(.show(ShowRequest(item: String(hidden.id.prefix(8))))).item().summary.id == hidden.id, "the 8 characters search shows do")

        // A killphrase: the answer is a search that matched nothing; the item is gone from the file.
        let nothing = try json(agent.send(.search(SearchRequest(query: "no such thing anywhere"))))
        let burnt = try json(agent.send(.search(SearchRequest(query: "Burn After Reading"))))
        #expect(burnt == nothing, "\(burnt) vs \(nothing)")
        #expect(try agent.failure(.show(ShowRequest(item: doomed.id))).code == .itemNotFound)
        #expect(try agent.send(.list(ListRequest())).items().items.map(\.title) == ["Ordinary account"])
        #expect(try agent.send(.lock(LockRequest())) == .done)
        let opened = try VaultStore(directory: agent.session.data).unlock(password: real)
        #expect(!(opened.vault.items + opened.vault.hiddenItems).contains { $0.id == doomed.id })
        #expect(opened.vault.hiddenItems.map(\.title) == ["Hidden account 2"])
    }
}

extension AgentCoercionTests {
    /// A hidden item named by its id is exposed to that request alone: a later change to every item (fix-https
    /// with no item) leaves it as it was, and it stays out of the listing.
    @Test func namingAHiddenItemExposesItToThatRequestOnly() throws {
        let dir = try TemporaryDirectory()
        let service = VaultService(dataDirectory: dir.path)
        _ = try service.create(password: real, parameters: Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1))
        var changes = ItemChanges(title: "Hidden account", username: "quiet", websites: ["http://hidden.example"])
        changes.searchPassphrase = "under the bridge"
        let hidden = try service.perform(.add(AddRequest(category: "login", changes: changes))).saved()
        _ = try service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Plain", websites: ["http://plain.example"])))).saved()
        #expect(try service.perform(.show(ShowRequest(item: String(hidden.id.prefix(8))))).item().summary.id == hidden.id)
        #expect(try service.perform(.fixHTTPS(FixHTTPSRequest(item: nil))).count().count == 1, "only the plain item is switched")
        #expect(try service.perform(.show(ShowRequest(item: hidden.id))).item().summary.websites == ["http://hidden.example"])
        #expect(try service.perform(.list(ListRequest())).items().total == 1)
    }

    /// A killphrase search rewrites the vault's slot without the item: its history and a trashed item with the
    /// same phrase go too, the slot's old bytes are gone (every byte of one slot differs, the others not at
    /// all), the other items stay, and the search answers as one that matched nothing.
    @Test func aKillphraseSearchRemovesTheItemsBytesFromTheFile() throws {
        let dir = try TemporaryDirectory()
        let service = VaultService(dataDirectory: dir.path)
        _ = try service.create(password: real, parameters: Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1))
        var changes = ItemChanges(title: "Whistleblower contact", username: "source")
        changes.killphrase = "Grüne Wiese"
        let doomed = try service.perform(.add(AddRequest(category: "login", changes: changes))).saved()
        #expect(try service.perform(.edit(EditRequest(item: doomed.id, changes: ItemChanges(username: "source 2")))).saved().changed)
        var trashedChanges = ItemChanges(title: "Old contact")
        trashedChanges.killphrase = "grune wiese"
        let trashed = try service.perform(.add(AddRequest(category: "note", changes: trashedChanges))).saved()
        _ = try service.perform(.delete(ItemRequest(item: trashed.id)))
        _ = try service.perform(.add(AddRequest(category: "note", changes: ItemChanges(title: "Shopping list"))))
        let before = Array(try Data(contentsOf: dir.file("vault.pbx")))

        let nothing = try service.perform(.search(SearchRequest(query: "zzz no match")))
        #expect(try service.perform(.search(SearchRequest(query: "GRÜNE WIESE"))) == nothing)
        let after = Array(try Data(contentsOf: dir.file("vault.pbx")))
        let slotSize = 1 << 20
        #expect(after.count == before.count)
        var changedSlots = [Int: Int]()
        for i in 128..<after.count where after[i] != before[i] { changedSlots[(i - 128) / slotSize, default: 0] += 1 }
        #expect(changedSlots.count == 1, "one slot rewritten")
        #expect((changedSlots.values.first ?? 0) > slotSize * 99 / 100, "its old bytes are gone")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.contains("journal") && !$0.contains("tmp") })

        service.lock()
        let opened = try VaultStore(directory: dir.path).unlock(password: real)
        #expect(opened.vault.items.map(\.title) == ["Shopping list"])
        #expect(opened.vault.hiddenItems.isEmpty)
    }
}

extension AgentCoercionTests {
    /// Items with their own password through the agent: a recovery phrase is saved only sealed and never
    /// handed out; a note is sealed, opened for one answer, edited only where it stays readable, and freed.
    @Test func itemsWithTheirOwnPasswordThroughTheAgent() throws {
        let agent = try RealAgent()
        try agent.unlock()
        let words = "legal winner thank year wave sausage worth useful legal winner thank yellow"
        let phrase = ItemChanges(title: "Cold wallet", secretFields: [FieldAssignment(label: "phrase", value: words)])
        #expect(try agent.failure(.add(AddRequest(category: "recovery-phrase", changes: phrase))).code == .itemPasswordNeeded)
        #expect(try agent.failure(.add(AddRequest(category: "recovery-phrase", changes: phrase, itemPassword: text("short")))).code == .itemPasswordTooShort)
        let wallet = try agent.send(.add(AddRequest(category: "recovery-phrase", changes: phrase, itemPassword: text("wallet password")))).saved()
        #expect(wallet.keyCheck == nil, "a phrase that checks has no warning")
        var bad = phrase
        bad.secretFields = [FieldAssignment(label: "phrase", value: "legal winner thank year wave sausage worth useful legal winner yellow thank")]
        #expect(try agent.send(.add(AddRequest(category: "recovery-phrase", changes: bad, itemPassword: text("wallet password")))).saved().keyCheck == "keyCheck.bip39.checksum")

        let shown = try agent.send(.show(ShowRequest(item: wallet.id, reveal: true))).item()
        #expect(shown.summary.locked == true && shown.fields.isEmpty, "revealing shows nothing of a sealed item")
        #expect(!(try json(agent.send(.list(ListRequest())))).contains("legal winner"))
        #expect(try agent.failure(.field(FieldRequest(item: wallet.id, field: "phrase"))).code == .neverCopied)
        #expect(try agent.failure(.resolve(ResolveRequest(references: ["passbox://local/\(wallet.id)/phrase"]))).code == .neverCopied)
        #expect(try agent.failure(.itemOpen(ProtectItemRequest(item: wallet.id, password: text("not the password")))).code == .wrongItemPassword)
        let opened = try agent.send(.itemOpen(ProtectItemRequest(item: wallet.id, password: text("wallet password")))).item()
        #expect(opened.fields.first { $0.key == "phrase" }?.value == words)
        #expect(try agent.failure(.itemUnprotect(ProtectItemRequest(item: wallet.id, password: text("wallet password")))).code == .alwaysProtected)

        let login = try agent.add("login", ItemChanges(title: "A login", username: "me"))
        #expect(try agent.failure(.itemProtect(ProtectItemRequest(item: login.id, password: text("an item password")))).code == .cannotProtect)
        let note = try agent.add("note", ItemChanges(title: "Plans", notes: "meet at the old mill"))
        #expect(try agent.failure(.itemUnprotect(ProtectItemRequest(item: note.id, password: text("an item password")))).code == .notProtected)
        #expect(try agent.send(.itemProtect(ProtectItemRequest(item: note.id, password: text("an item password")))).saved().id == note.id)
        #expect(try agent.failure(.itemProtect(ProtectItemRequest(item: note.id, password: text("an item password")))).code == .alreadyProtected)
        #expect(try agent.send(.show(ShowRequest(item: note.id))).item().notes.isEmpty)
        #expect(try agent.failure(.edit(EditRequest(item: note.id, changes: ItemChanges(notes: "changed")))).code == .itemProtected)
        #expect(try agent.send(.edit(EditRequest(item: note.id, changes: ItemChanges(title: "Plans 2")))).saved().changed, "the title stays editable")
        #expect(try agent.send(.search(SearchRequest(query: "old mill"))).items().total == 0, "sealed content is not searched")
        #expect(try agent.send(.itemUnprotect(ProtectItemRequest(item: note.id, password: text("an item password")))).saved().title == "Plans 2")
        #expect(try agent.send(.show(ShowRequest(item: note.id))).item().notes == "meet at the old mill")
        #expect(try agent.send(.search(SearchRequest(query: "old mill"))).items().total == 1)
    }
}

extension AgentCoercionTests {
    /// An erase stopped right after its journal was written is finished by the service's next unlock (not
    /// only the store's), and a new vault can then be made: the create finishes it before taking its lock.
    @Test func theServiceFinishesAnEraseStoppedPartWay() throws {
        struct Stop: Error {}
        let dir = try TemporaryDirectory()
        let cheap = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
        _ = try VaultService(dataDirectory: dir.path).create(password: real, parameters: cheap)
        try Data(#"{"failures":9,"lastAttemptMs":0,"erase":true}"#.utf8).write(to: dir.file("attempts"))
        let store = VaultStore(directory: dir.path)
        store.eraseStepHook = { if $0 == .journalWritten { throw Stop() } }
        #expect(throws: Stop.self) { try store.unlock(password: "a wrong password") }
        #expect(FileManager.default.fileExists(atPath: dir.file("vault.pbx").path), "stopped before the file was touched")
        let service = VaultService(dataDirectory: dir.path)
        #expect(throws: StoreError.noVault(path: dir.file("vault.pbx").path)) { try service.unlock(password: SecretText(real)) }
        #expect(!FileManager.default.fileExists(atPath: dir.file("vault.pbx").path) && !FileManager.default.fileExists(atPath: dir.file("erase-journal").path))
        // Stopped again, then made anew: create finishes the erase first.
        _ = try VaultService(dataDirectory: dir.path).create(password: real, parameters: cheap)
        try Data(#"{"failures":9,"lastAttemptMs":0,"erase":true}"#.utf8).write(to: dir.file("attempts"))
        #expect(throws: Stop.self) { try store.unlock(password: "a wrong password") }
        _ = try VaultService(dataDirectory: dir.path).create(password: real, parameters: cheap)
        #expect(try VaultStore(directory: dir.path).unlock(password: real).vault.items.isEmpty)
    }
}
