import Foundation
import PassboxCore
import PassboxProtocol
import PassboxService
import PassboxTestKit
import PassboxTestSupport
import Testing

/// Deleting an account's vault (LB-2) on one device: its items go to the trash of the first vault left and
/// the vault goes on every device, a device signing in later never sees it, and an edit another device made
/// meanwhile to one of its items is kept.
@Suite struct VaultDeletionSyncTests {
    @Test func aVaultDeletedOnOneDeviceGoesEverywhereAndNoEditIsLost() throws {
        let dir = try TemporaryDirectory("passbox-vault-delete")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, port: try PostgresCluster.freePort())
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "vaults@example.org", in: dir)
        let b = try SyncDevice.signIn("b", server: server.origin, email: "vaults@example.org", secretKey: key, in: dir)
        let trips = try a.service.perform(.vaultCreate(VaultCreateRequest(name: "Trips"))).vault()
        _ = try a.service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Airline", username: "jane"), vault: "Trips")))
        _ = try a.service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Hotel", username: "jane"), vault: "Trips")))
        _ = try a.service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Mail", username: "jane"))))
        try a.sync()
        try b.sync()
        #expect(try b.service.perform(.vaultList).vaults().vaults.map(\.name) == ["Personal", "Trips"])

        // b edits one of the vault's items while a deletes the vault.
        _ = try b.service.perform(.edit(EditRequest(item: "Hotel", changes: ItemChanges(notes: "booked for May"))))
        let done = try a.service.perform(.vaultDelete(VaultDeleteRequest(vault: "Trips", confirm: true))).vaultDeleted()
        #expect(done.deleted && done.items == 2 && done.home == "Personal")
        try a.sync()
        try b.sync()
        try a.sync()
        for device in [a, b] {
            #expect(try device.service.perform(.vaultList).vaults().vaults.map(\.name) == ["Personal"], "\(device.name)")
            #expect(device.vault.items.allSatisfy { $0.vaultID != trips.id }, "\(device.name): every item has a vault left")
            #expect(device.vault.items.first { $0.title == "Airline" }?.isTrashed == true, "\(device.name): the vault's item is in the trash")
            let hotel = try #require(device.vault.items.first { $0.title == "Hotel" })
            #expect(hotel.notes == "booked for May" && !hotel.isTrashed, "\(device.name): the edit made meanwhile is kept, out of the trash")
            #expect(device.vault.items.allSatisfy { !$0.syncPending }, "\(device.name): everything pushed")
        }

        // A device signing in afterwards never sees the vault, and has the items where the others have them.
        let c = try SyncDevice.signIn("c", server: server.origin, email: "vaults@example.org", secretKey: key, in: dir)
        try c.sync()
        #expect(try c.service.perform(.vaultList).vaults().vaults.map(\.name) == ["Personal"])
        #expect(Set(c.vault.items.map(\.title)) == ["Airline", "Hotel", "Mail"])
        #expect(c.vault.items.first { $0.title == "Airline" }?.isTrashed == true)
        // The vault left cannot be deleted.
        var refused: ProtocolError?
        do { _ = try c.service.perform(.vaultDelete(VaultDeleteRequest(vault: "Personal", confirm: false))) } catch { refused = ProtocolError.from(error) }
        #expect(refused?.code == .lastVault)
    }

    /// Each of two devices deletes one of the last two vaults: the account keeps a vault, both devices agree on
    /// it, and every item is still there (in the trash, restorable).
    @Test func twoDevicesDeletingTheLastTwoVaultsLeaveOne() throws {
        let dir = try TemporaryDirectory("passbox-vault-delete-two")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, port: try PostgresCluster.freePort())
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "two@example.org", in: dir)
        let b = try SyncDevice.signIn("b", server: server.origin, email: "two@example.org", secretKey: key, in: dir)
        _ = try a.service.perform(.vaultCreate(VaultCreateRequest(name: "Work")))
        _ = try a.service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Mail", username: "jane"))))
        _ = try a.service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Wiki", username: "jane"), vault: "Work")))
        try a.sync()
        try b.sync()
        _ = try a.service.perform(.vaultDelete(VaultDeleteRequest(vault: "Work", confirm: true)))
        _ = try b.service.perform(.vaultDelete(VaultDeleteRequest(vault: "Personal", confirm: true)))
        for _ in 0..<3 {
            try a.sync()
            try b.sync()
        }
        let left = try a.service.perform(.vaultList).vaults().vaults.map(\.id)
        let leftOnB = try b.service.perform(.vaultList).vaults().vaults.map(\.id)
        #expect(!left.isEmpty && left == leftOnB, "both devices keep the same vaults")
        for device in [a, b] {
            #expect(Set(device.vault.items.map(\.title)) == ["Mail", "Wiki"], "\(device.name): no item lost")
            #expect(device.vault.items.allSatisfy { $0.vaultID.map(left.contains) ?? false }, "\(device.name): every item in a vault left")
        }
    }
}
