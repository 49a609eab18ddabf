import Foundation
import PassboxCore
import PassboxProtocol

extension VaultSession {
    /// The one-time-password settings of an item: its first non-empty `otp` field.
    func oneTimePassword(of item: Item) throws -> (index: Int, parameters: OTPParameters) {
        guard let index = item.fields.firstIndex(where: { $0.kind == .otp && !$0.value.isEmpty }) else {
            throw ProtocolError(.noOneTimePassword, ["title": item.title, "id": item.id])
        }
        return (index, try OTPInput.parse(item.fields[index].value, issuer: item.title))
    }

    /// The current code (TOTP) or the next code (HOTP, whose counter advances and is saved first, so a
    /// code is never given twice). Every surface that shows a code comes here: totp, read …/code, copy.
    func code(_ reference: String) throws -> CodeReply {
        let item = try resolve(reference)
        let (index, p) = try oneTimePassword(of: item)
        let at = now()
        let current = try p.currentCode(at: at)
        if p.kind == .hotp {
            // The largest counter has no next one to store: no code is given from it (a code shown and not counted
            // would leave the item with a counter it refuses).
            guard p.counter < OTPParameters.maximumCounter else {
                throw ValidationError("otp.counterAtMaximum", ["maximum": String(OTPParameters.maximumCounter)])
            }
            var next = p
            next.counter += 1
            try update(reindexing: { [item.id] }) { vault in _ = try vault.update(id: item.id, now: at) { $0.fields[index].value = next.uri } }
            return CodeReply(kind: "hotp", code: current.code, secondsLeft: nil, period: nil, counter: Int(clamping: next.counter), itemID: item.id, title: item.title)
        }
        return CodeReply(kind: "totp", code: current.code, secondsLeft: current.secondsLeft, period: Int(clamping: p.period), counter: nil, itemID: item.id, title: item.title)
    }

    func setOneTimePassword(_ r: SetOneTimePasswordRequest) throws -> CodeReply {
        let item = try resolve(r.item)
        if item.sealed != nil { throw VaultError.itemProtected(item.title) }
        guard let setup = r.setups.first(where: { $0.lowercased().hasPrefix("otpauth") }) ?? r.setups.first else { throw ProtocolError(.nothingToImport) }
        let parameters = try OTPInput.parse(setup, issuer: item.title)
        let at = now()
        try update(reindexing: { [item.id] }) { vault in
            _ = try vault.update(id: item.id, now: at) { edited in
                if let i = edited.fields.firstIndex(where: { $0.kind == .otp }) {
                    edited.fields[i].value = parameters.uri
                } else {
                    edited.fields.append(Field(key: "otp", label: "One-time password", kind: .otp, value: parameters.uri))
                }
            }
        }
        let updated = try vault.item(id: item.id)
        return CodeViews.peek(parameters, item: updated, now: at)
    }

    /// Lists the accounts of otpauth / otpauth-migration links, and imports the chosen ones. Accounts whose
    /// secret the vault already holds, and numbers chosen twice, are skipped and counted.
    func importOneTimePasswords(_ r: ImportRequest) throws -> ImportReply {
        var accounts = [OTPParameters]()
        for setup in r.setups {
            if setup.lowercased().hasPrefix("otpauth-migration:") {
                accounts += try MigrationPayload.decode(link: setup).accounts
            } else {
                accounts.append(try OTPInput.parse(setup))
            }
        }
        guard !accounts.isEmpty else { throw ProtocolError(.nothingToImport) }
        let views = accounts.map {
            OTPAccountView(issuer: $0.issuer, account: $0.account, kind: $0.kind.rawValue, period: Int(clamping: $0.period), digits: $0.digits, algorithm: $0.algorithm.rawValue)
        }
        var chosen: [Int]
        if r.all {
            chosen = Array(accounts.indices)
        } else if let select = r.select {
            guard !select.isEmpty else { throw ProtocolError(.nothingToImport) }
            guard select.allSatisfy({ (1...accounts.count).contains($0) }) else { throw ProtocolError(.selectionOutOfRange, ["count": String(accounts.count)]) }
            chosen = select.map { $0 - 1 }
        } else {
            return ImportReply(accounts: views, imported: [], skippedDuplicates: 0)
        }
        var known = Set(vault.items.flatMap { $0.fields }.filter { $0.kind == .otp && !$0.value.isEmpty }.compactMap { try? OTPInput.parse($0.value).secret })
        var skipped = 0
        var plan = [Int]()
        for index in chosen {
            guard known.insert(accounts[index].secret).inserted else {
                skipped += 1
                continue
            }
            plan.append(index)
        }
        guard !plan.isEmpty else { return ImportReply(accounts: views, imported: [], skippedDuplicates: skipped) }
        let at = now()
        let imported = try update(reindexing: { $0.map(\.itemID) }) { vault -> [ImportedView] in
            var done = [ImportedView]()
            for index in plan {
                let account = accounts[index]
                if r.toLogins, let login = Self.loginFor(account, in: vault) {
                    _ = try vault.update(id: login.id, now: at) { item in
                        if let i = item.fields.firstIndex(where: { $0.kind == .otp }) {
                            item.fields[i].value = account.uri
                        } else {
                            item.fields.append(Field(key: "otp", label: "One-time password", kind: .otp, value: account.uri))
                        }
                    }
                    done.append(ImportedView(issuer: account.issuer, account: account.account, itemID: login.id, title: login.title, toLogin: true))
                } else {
                    var item = Item(category: .oneTimePassword, title: account.issuer.isEmpty ? account.account : account.issuer)
                    item.setValue(account.uri, for: "otp")
                    if !account.account.isEmpty { item.fields.append(Field(label: "Account", kind: .text, value: account.account)) }
                    let saved = try vault.add(item, now: at)
                    done.append(ImportedView(issuer: account.issuer, account: account.account, itemID: saved.id, title: saved.title, toLogin: false))
                }
            }
            return done
        }
        return ImportReply(accounts: views, imported: imported, skippedDuplicates: skipped)
    }

    /// A login without a code whose title or website names the account's issuer.
    static func loginFor(_ account: OTPParameters, in vault: Vault) -> Item? {
        let issuer = TextFolding.fold(account.issuer)
        guard !issuer.isEmpty else { return nil }
        return vault.activeItems.first { item in
            item.category == .login && item.fields.allSatisfy { $0.kind != .otp || $0.value.isEmpty }
                && (TextFolding.fold(item.title) == issuer || item.websites.contains { Validation.host(of: $0).map { TextFolding.fold($0).contains(issuer) } ?? false })
        }
    }
}
