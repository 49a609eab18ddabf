import Foundation
import PassboxCore
import PassboxDomains
import Testing

/// The site index answers exactly what the matcher answers (the same candidates, matches, websites and order)
/// on random vaults of hosts that share and do not share registrable domains, addresses and bare names, with
/// trashed items and several websites an item; and stays so as items change.
@Suite struct SiteIndexTests {
    let rules = DomainRules.shared
    static let hosts = [
        "bank.example", "login.bank.example", "www.bank.example", "evil.example", "bank.example.evil.example", "shop.co.uk", "other.co.uk",
        "a.github.io", "b.github.io", "github.io", "127.0.0.1", "localhost", "münchen.example", "xn--mnchen-3ya.example", "sub.münchen.example",
    ]

    func randomItem(_ generator: inout some RandomNumberGenerator, _ n: Int) -> Item {
        var item = Item(category: Int.random(in: 0..<8, using: &generator) == 0 ? .secureNote : .login, title: ["Zed", "alpha", "Beta", "beta", "Ärger"][n % 5] + " \(n % 7)")
        let count = Int.random(in: 0...3, using: &generator)
        item.websites = (0..<count).map { _ in
            let host = Self.hosts.randomElement(using: &generator)!
            return ["https://", "http://", ""].randomElement(using: &generator)! + host + ["", "/login", ":8443/x"].randomElement(using: &generator)!
        }
        if Int.random(in: 0..<10, using: &generator) == 0 { item.trashedAt = Date() }
        return item
    }

    @Test(arguments: [1, 2, 3]) func theIndexAnswersAsTheMatcher(_ seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var items = (0..<300).map { randomItem(&generator, $0) }
        var index = SiteIndex(items: items, domains: rules)
        func check() {
            let vault = Vault(items: items)
            for host in Self.hosts + ["nowhere.example"] {
                let address = "https://\(host)/signin"
                let expected = CredentialMatcher.candidates(for: address, in: vault, domains: rules)
                let got = index.candidates(for: address, domains: rules) { id in items.first { $0.id == id } }
                #expect(got == expected, "\(host)")
            }
        }
        check()
        // Changes: websites edited, items trashed and removed, new ones; the index follows the ids it is told.
        for step in 0..<60 {
            let i = Int.random(in: 0..<items.count, using: &generator)
            switch step % 3 {
            case 0:
                let fresh = randomItem(&generator, step + 1000)
                items[i].websites = fresh.websites
                index.upsert(items[i], domains: rules)
            case 1:
                let id = items.remove(at: i).id
                index.remove(id: id)
            default:
                let fresh = randomItem(&generator, step + 2000)
                items.append(fresh)
                index.upsert(fresh, domains: rules)
            }
        }
        check()
    }
}

/// A small deterministic generator (SplitMix64) for reproducible random vaults.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
