import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxKit
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxWording

/// `passbox devices` and `passbox activity`.
extension Commands {
    static func signedInRecord(_ c: Context) throws -> (AccountRecord, AccountClient) {
        try AccountOperations.signedIn(c.dataDirectory)
    }

    static func devices(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox devices [--json]")
        let (record, client) = try signedInRecord(c)
        let reply = try client.account(token: record.token ?? "")
        if a.flag("json") {
            Console.out(String(decoding: try ProtocolCoding.encode(reply.devices, pretty: true), as: UTF8.self))
            return
        }
        let formatter = ISO8601DateFormatter()
        for device in reply.devices {
            let marker = device.isCurrent ? c.tr("account.show.thisDevice") : ""
            Console.out("\(Console.visibleLine(device.deviceID))  \(Console.visibleLine(device.name))  \(Console.visibleLine(device.address))  \(formatter.string(from: device.lastSeen))\(marker)")
        }
    }

    static func devicesSignout(_ c: Context, _ a: Arguments) throws {
        let usage = "passbox devices signout DEVICE-ID | --others"
        let (record, _) = try signedInRecord(c)
        // Signing devices out needs the master password (a fresh proof of the sign-in key, not the session alone).
        if a.flag("others") {
            try a.expectPositionals(0...0, usage: usage)
            let password = try c.input.secretText(prompt: c.tr("account.prompt.master"))
            let count = try AccountOperations.signOutDevice(DeviceSignOutRequest(others: true, password: password), dataDirectory: c.dataDirectory)
            Console.out(c.tr("devices.signedOutOthers", ["count": String(count)]))
        } else {
            try a.expectPositionals(1...1, usage: usage)
            let device = a.positionals[0]
            guard device != record.deviceID else { throw CLIError(message: c.tr("devices.notThisOne"), hint: c.tr("devices.notThisOne.hint"), code: .usage) }
            let password = try c.input.secretText(prompt: c.tr("account.prompt.master"))
            _ = try AccountOperations.signOutDevice(DeviceSignOutRequest(device: device, password: password), dataDirectory: c.dataDirectory)
            Console.out(c.tr("devices.signedOut", ["device": Console.visible(device)]))
        }
    }

    static func activity(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox activity [--json]")
        let (record, client) = try signedInRecord(c)
        let reply = try client.activity(token: record.token ?? "")
        if a.flag("json") {
            Console.out(String(decoding: try ProtocolCoding.encode(reply, pretty: true), as: UTF8.self))
            return
        }
        let formatter = ISO8601DateFormatter()
        for event in reply.events {
            let kind = ["signup", "signin", "signinFailed", "signout", "deviceSignedOut", "passwordChanged", "twoFactorOn", "twoFactorOff", "recoverySetUp", "recovered", "recoveryStarted", "recoveryFailed", "familyRecoveryAllowed", "familyRecoveryStopped", "familyRecoveryStarted", "recoveredByFamily"].contains(event.kind) ? c.tr("activity.\(event.kind)") : Console.visible(event.kind)
            let device = event.deviceName.isEmpty ? "" : "  \(Console.visibleLine(event.deviceName))"
            Console.out("\(formatter.string(from: event.at))  \(kind)  \(Console.visibleLine(event.address))\(device)")
        }
        Console.out(c.tr("activity.note"))
    }
}
