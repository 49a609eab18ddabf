import Foundation

/// Who waits for an account's next change (long polls), and the news of changes: from this process's
/// pushes, and on PostgreSQL from every process's through LISTEN/NOTIFY.
final class SyncHub: @unchecked Sendable {
    // @unchecked: `waiters` and `stopped` are touched only under `lock`.
    private final class Waiter: @unchecked Sendable {
        let since: Int64
        private var respond: (@Sendable (Int64, Bool) -> Void)?
        private let lock = NSLock()
        init(since: Int64, respond: @escaping @Sendable (Int64, Bool) -> Void) {
            self.since = since
            self.respond = respond
        }
        /// Answers once (`shared`: an organisation's vault changed); later calls do nothing.
        func answer(_ revision: Int64, shared: Bool = false) {
            lock.lock()
            let r = respond
            respond = nil
            lock.unlock()
            r?(revision, shared)
        }
    }

    private let lock = NSLock()
    private var waiters: [String: [ObjectIdentifier: Waiter]] = [:]
    private var stopped = false
    /// Long polls held at once; past it a wait is answered at once (the device polls again later).
    static let waiterLimit = 4_096

    /// Parks a long poll; `current` reads the account's revision after the waiter is registered (so a push
    /// that lands in between is not missed).
    func wait(account: String, since: Int64, seconds: Double, current: () throws -> Int64, respond: @escaping @Sendable (Int64, Bool) -> Void) {
        let waiter = Waiter(since: since, respond: respond)
        let key = ObjectIdentifier(waiter)
        lock.lock()
        let full = stopped || waiters.values.reduce(0, { $0 + $1.count }) >= Self.waiterLimit
        if !full { waiters[account, default: [:]][key] = waiter }
        lock.unlock()
        let now = (try? current()) ?? since
        if full || now > since {
            remove(account, key)
            waiter.answer(now)
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
            self?.remove(account, key)
            waiter.answer(since)
        }
    }

    private func remove(_ account: String, _ key: ObjectIdentifier) {
        lock.lock()
        waiters[account]?[key] = nil
        if waiters[account]?.isEmpty == true { waiters[account] = nil }
        lock.unlock()
    }

    func notify(account: String, revision: Int64) {
        lock.lock()
        let ready = (waiters[account] ?? [:]).filter { $0.value.since < revision }
        for key in ready.keys { waiters[account]?[key] = nil }
        lock.unlock()
        for waiter in ready.values { waiter.answer(revision) }
    }

    /// Answers every waiter of these accounts at once, as "a shared vault changed" (their revisions stay).
    func nudge(accounts: [String]) {
        lock.lock()
        var ready: [Waiter] = []
        for account in Set(accounts) {
            ready += (waiters[account] ?? [:]).values
            waiters[account] = nil
        }
        lock.unlock()
        for waiter in ready { waiter.answer(waiter.since, shared: true) }
    }

    /// Answers every waiter (the server is stopping) and answers new ones at once.
    func stop(current: (String) -> Int64) {
        lock.lock()
        stopped = true
        let all = waiters
        waiters = [:]
        lock.unlock()
        for (account, list) in all {
            let revision = current(account)
            for waiter in list.values { waiter.answer(max(revision, waiter.since)) }
        }
    }
}
