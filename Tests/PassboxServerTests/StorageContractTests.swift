import Foundation
import PassboxPostgres
import PassboxSQLite
import PassboxTestKit
import PassboxTestSupport
import Testing

/// What the server's storage needs of a SQL engine, checked on SQLite and PostgreSQL alike: values come
/// back as they went in, changed-row counts, `RETURNING`, upserts, transactions and savepoints, unique
/// violations told apart, migrations applied once and a newer database refused.
@Suite struct StorageContractTests {
    func connection(_ backend: Backend) throws -> (any SQLConnection, TestStore) {
        let store = try TestStore(backend)
        if backend == .sqlite { try FileManager.default.createDirectory(at: store.directory.file("server"), withIntermediateDirectories: true) }
        return (try store.connection(), store)
    }

    static let schema = [
        Migration(1, "CREATE TABLE things (id TEXT PRIMARY KEY, n INTEGER, data BLOB, note TEXT)"),
        Migration(2, "CREATE TABLE counters (key TEXT PRIMARY KEY, count INTEGER NOT NULL)"),
    ]

    func migrated(_ backend: Backend) throws -> (any SQLConnection, TestStore) {
        let (db, store) = try connection(backend)
        let steps = backend == .postgres ? Self.schema.map { Migration($0.version, $0.sql.replacingOccurrences(of: "BLOB", with: "BYTEA").replacingOccurrences(of: "INTEGER", with: "BIGINT")) } : Self.schema
        #expect(try db.migrate(steps) == (0, 2))
        #expect(try db.migrate(steps) == (2, 2), "applied once")
        return (db, store)
    }

    @Test(arguments: Backend.cases) func valuesComeBackAsTheyWentIn(_ backend: Backend) throws {
        let (db, _) = try migrated(backend)
        let values: [(String, Value, Value, Value)] = [
            ("a", .integer(.max), .blob([0, 1, 0, 255]), .text("Grüße, 世界 🔑")),
            ("b", .integer(.min), .blob([]), .text("")),
            ("c", .integer(-1), .null, .null),
            ("d", .integer(0), .blob(Array(repeating: 0xAB, count: 70_000)), .text("it's \"quoted\" ? and $1")),
        ]
        for (id, n, data, note) in values {
            #expect(try db.run("INSERT INTO things (id, n, data, note) VALUES (?, ?, ?, ?)", [.text(id), n, data, note]) == 1)
        }
        for (id, n, data, note) in values {
            let row = try #require(try db.rows("SELECT n, data, note FROM things WHERE id = ?", [.text(id)]).first)
            #expect(row[0] == n)
            #expect(row[1] == data || (data == .blob([]) && row[1].blob == []))
            #expect(row[2] == note)
            #expect(row["note"] == note, "columns by name")
        }
        #expect(try db.rows("SELECT count(*) FROM things WHERE note LIKE ?", [.text("%?%")]).first?[0] == .integer(1), "a ? in a value is a value")
        #expect(try db.rows("SELECT id FROM things WHERE id = '?'", []).isEmpty, "a ? inside quotes is no parameter")
    }

    @Test(arguments: Backend.cases) func changedRowsReturningAndUpserts(_ backend: Backend) throws {
        let (db, _) = try migrated(backend)
        for id in ["x", "y", "z"] { try db.run("INSERT INTO things (id, n) VALUES (?, ?)", [.text(id), .integer(1)]) }
        #expect(try db.run("UPDATE things SET n = n + 1 WHERE n = ?", [.integer(1)]) == 3)
        #expect(try db.run("UPDATE things SET n = 0 WHERE id = ?", [.text("nobody")]) == 0)
        let taken = try db.rows("DELETE FROM things WHERE id = ? RETURNING id, n", [.text("y")])
        #expect(taken.map { $0[1] } == [.integer(2)])
        #expect(try db.rows("DELETE FROM things WHERE id = ? RETURNING id", [.text("y")]).isEmpty, "taken once")
        let upsert = "INSERT INTO counters (key, count) VALUES (?, 1) ON CONFLICT (key) DO UPDATE SET count = counters.count + 1 RETURNING count"
        #expect(try db.rows(upsert, [.text("k")]).first?[0] == .integer(1))
        #expect(try db.rows(upsert, [.text("k")]).first?[0] == .integer(2))
        try db.run("INSERT INTO counters (key, count) VALUES (?, 5) ON CONFLICT (key) DO NOTHING", [.text("k")])
        #expect(try db.rows("SELECT count FROM counters WHERE key = ?", [.text("k")]).first?[0] == .integer(2))
    }

    @Test(arguments: Backend.cases) func transactionsCommitRollBackAndNest(_ backend: Backend) throws {
        let (db, _) = try migrated(backend)
        struct Refused: Error {}
        _ = try db.transaction { try db.run("INSERT INTO things (id) VALUES (?)", [.text("kept")]) }
        #expect(throws: Refused.self) {
            try db.transaction {
                try db.run("INSERT INTO things (id) VALUES (?)", [.text("rolled back")])
                throw Refused()
            }
        }
        try db.transaction {
            try db.run("INSERT INTO things (id) VALUES (?)", [.text("outer")])
            #expect(throws: Refused.self) {
                try db.transaction {
                    try db.run("INSERT INTO things (id) VALUES (?)", [.text("inner")])
                    throw Refused()
                }
            }
        }
        let ids = Set(try db.rows("SELECT id FROM things", []).compactMap { $0[0].text })
        #expect(ids == ["kept", "outer"])
        // A failed statement inside a transaction rolls it back whole and leaves the connection usable.
        #expect(throws: (any Error).self) {
            try db.transaction {
                try db.run("INSERT INTO things (id) VALUES (?)", [.text("lost")])
                try db.run("INSERT INTO nowhere (id) VALUES (?)", [.text("x")])
            }
        }
        #expect(try db.rows("SELECT id FROM things WHERE id = ?", [.text("lost")]).isEmpty)
        #expect(try db.rows("SELECT count(*) FROM things", []).first?[0] == .integer(2))
        #expect(db.isUsable)
    }

    @Test(arguments: Backend.cases) func uniqueViolationsAreToldApart(_ backend: Backend) throws {
        let (db, _) = try migrated(backend)
        try db.run("INSERT INTO things (id) VALUES (?)", [.text("once")])
        let twice = #expect(throws: (any Error).self) { try db.run("INSERT INTO things (id) VALUES (?)", [.text("once")]) }
        #expect((twice as? SQLEngineError)?.isUniqueViolation == true)
        #expect(!String(describing: twice).contains("once"), "the bound value is not in the message")
        let missing = #expect(throws: (any Error).self) { try db.run("INSERT INTO nowhere (id) VALUES (?)", [.text("x")]) }
        #expect((missing as? SQLEngineError)?.isUniqueViolation == false)
    }

    @Test(arguments: Backend.cases) func aNewerDatabaseIsRefusedAndLeftAsItIs(_ backend: Backend) throws {
        let (db, _) = try migrated(backend)
        #expect(throws: MigrationError.databaseIsNewer(database: 2, newestKnown: 1)) { try db.migrate(Array(Self.schema.prefix(1))) }
        try db.run("INSERT INTO counters (key, count) VALUES (?, 1)", [.text("still here")])
        #expect(try db.rows("SELECT count(*) FROM counters", []).first?[0] == .integer(1))
    }

    /// A wrong address or database is an error that says so, with no password in it.
    @Test func aPostgresThatCannotBeReachedSaysSo() throws {
        let port = try PostgresCluster.freePort()
        let uri = "postgresql://passbox@127.0.0.1:\(port)/none?connect_timeout=2"
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(uri) }
        #expect(error?.message.hasPrefix("connecting: ") == true)
        #expect(error?.message.contains(String(port)) == true)
    }
}
