import Foundation
import PassboxCore

/// How long the agent stays unlocked without use.
public enum AutoLock: Int, Sendable, CaseIterable {
    case immediately = 0
    case oneMinute = 1
    case fiveMinutes = 5
    case fifteenMinutes = 15
    case thirtyMinutes = 30
    case sixtyMinutes = 60

    public static let `default` = AutoLock.fiveMinutes

    public var seconds: TimeInterval { TimeInterval(rawValue * 60) }
}

/// The agent's idle timer as pure logic with the clock passed in: activity moves the deadline; the agent's
/// real-time timer asks `isDue` four times a second and locks at the deadline whatever clients do.
public struct IdleDeadline: Sendable, Equatable {
    public private(set) var lastActivity: Date
    public var interval: TimeInterval

    public init(interval: TimeInterval, now: Date) {
        self.interval = interval
        lastActivity = now
    }

    /// A command (or an unlock) counts as use.
    public mutating func touch(now: Date) { lastActivity = now }

    public func isDue(now: Date) -> Bool { now.timeIntervalSince(lastActivity) >= interval }

    /// Seconds until it locks (0 when due).
    public func remaining(now: Date) -> TimeInterval { max(0, interval - now.timeIntervalSince(lastActivity)) }
}

/// When quick unlock (skipping Argon2id after the operating system re-authenticates the user) may be
/// offered: never before the password was typed since the agent started, never after a reboot (the
/// kernel's boot id changed), and not once the reminder interval passed since the password was last typed.
public struct QuickUnlockPolicy: Sendable, Equatable {
    public enum Reminder: Int, Sendable, CaseIterable {
        case days14 = 14
        case days30 = 30
        case never = 0
    }

    public enum Verdict: Equatable, Sendable {
        case allowed
        case passwordNotTypedSinceStart
        case rebooted
        case reminderDue(days: Int)
    }

    public var reminder: Reminder

    public init(reminder: Reminder = .days14) { self.reminder = reminder }

    public func verdict(passwordTypedAt: Date?, bootIDAtTyping: String?, currentBootID: String, now: Date) -> Verdict {
        guard let typed = passwordTypedAt, let boot = bootIDAtTyping else { return .passwordNotTypedSinceStart }
        guard boot == currentBootID else { return .rebooted }
        if reminder != .never, now.timeIntervalSince(typed) >= Double(reminder.rawValue) * 86_400 {
            return .reminderDue(days: reminder.rawValue)
        }
        return .allowed
    }

    /// Why a verdict refuses quick unlock, as a key of the quickUnlock.* wording table and its days; nil
    /// when it is allowed.
    public static func reasonKey(_ verdict: Verdict) -> (key: String, days: Int?)? {
        switch verdict {
        case .allowed: nil
        case .passwordNotTypedSinceStart: ("quickUnlock.notTyped", nil)
        case .rebooted: ("quickUnlock.rebooted", nil)
        case .reminderDue(let days): ("quickUnlock.reminder", days)
        }
    }

    /// The kernel's boot id (changes at every boot).
    public static func currentBootID() -> String {
        ((try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
