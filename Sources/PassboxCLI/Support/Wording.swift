import Foundation
import PassboxCore
import PassboxImaging
import PassboxProtocol
import PassboxWording

/// Turns protocol errors into the sentences the CLI prints, from the en/de tables (`error.CODE`,
/// `error.CODE.hint`), with the facts as placeholders.
enum Wording {
    static func error(_ e: ProtocolError, _ language: Language) -> (message: String, hint: String?) {
        var facts = e.facts
        if let id = facts["id"] { facts["id8"] = String(id.prefix(8)) }
        var key = "error.\(e.code.rawValue)"
        switch e.code {
        case .mustWait, .attemptCounterDamaged, .rateLimited:
            facts["count"] = facts["minutes"]
        case .ambiguousItem:
            facts["candidates"] = (facts["candidates"] ?? "").split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
        case .unknownFindingKind:
            facts["kinds"] = FindingKind.allCases.map(\.rawValue).joined(separator: ", ")
        case .otherSite:
            if (facts["saved"] ?? "").isEmpty { facts["saved"] = Localization.tr("fill.noWebsite", language) }
        case .quickUnlockNotOffered:
            facts["reason"] = quickUnlockReason(key: facts["reason"] ?? "", days: facts["days"], system: facts["system"], language)
        case .sharingRefused:
            facts["reason"] = Localization.tr("sharing.problem.\(facts["problem"] ?? "malformed")", language, facts)
        case .invitationLinkInvalid:
            facts["reason"] = Localization.tr("sharing.link.\(facts["problem"] ?? "noLink")", language, facts)
        case .invitationInvalid:
            facts["reason"] = Localization.tr("invitation.\(facts["reason"] ?? "unknown")", language)
        case .secretKeyInvalid:
            facts["detail"] = Localization.tr("secretKey.\(facts["problem"] ?? "mistyped")", language, facts)
        case .quickUnlockRefused:
            if facts["triesLeft"] == "0" { key += ".last" } else { facts["count"] = facts["triesLeft"] }
        case .backupFolderInvalid:
            facts["reason"] = Localization.tr("error.backupFolderInvalid.\(facts["reason"] ?? "missing")", language)
        case .imageUnreadable:
            // Why the image gave no codes, from its reason (`qr.REASON`).
            if let reason = facts["reason"], Localization.has("qr.\(reason)") { facts["message"] = Localization.tr("qr.\(reason)", language, facts) }
        case .breachCheckFailed:
            if let problem = facts["problem"] { facts["reason"] = Localization.tr("breach.\(problem)", language, facts) }
        case .invalidValue, .invalidReference:
            // A value the libraries refused: worded from its reason (`invalid.REASON`), the reason it wraps as `cause`.
            if let reason = facts["reason"], Localization.has("invalid.\(reason)") {
                key = "invalid.\(reason)"
                if let cause = facts["cause"] { facts["cause"] = Localization.tr("invalid.\(cause)", language, facts) }
            }
        default:
            break
        }
        let message = Localization.tr(key, language, facts)
        let hintKey = key + ".hint"
        let hint = Localization.tr(hintKey, language, facts)
        return (message, hint.isEmpty || hint == hintKey ? nil : hint)
    }

    /// Why an image read in this process gave no codes.
    static func qr(_ e: QRCodeReader.ReadError, _ language: Language) -> (message: String, hint: String?) {
        let hint = Localization.tr("qr.\(e.reason).hint", language, e.facts)
        return (Localization.tr("qr.\(e.reason)", language, e.facts), Localization.has("qr.\(e.reason).hint") ? hint : nil)
    }

    /// The reason quick unlock is not offered, from its wording key.
    static func quickUnlockReason(key: String, days: String?, system: String?, _ language: Language) -> String {
        Localization.tr(key, language, ["days": days ?? "", "system": system ?? ""])
    }
}
