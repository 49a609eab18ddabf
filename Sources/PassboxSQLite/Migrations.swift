extension Database {
    /// The schema version (`PRAGMA user_version`).
    public func schemaVersion() throws(SQLiteError) -> Int {
        Int(try rows("PRAGMA user_version").first?[0].integer ?? 0)
    }

    /// Applies every migration above the database's schema version, each in its own transaction together
    /// with the new version number (so a crash leaves the database at a whole step). A database newer than
    /// the code is refused and left as it is. Returns the versions before and after.
    @discardableResult
    public func migrate(_ migrations: [Migration]) throws -> (from: Int, to: Int) {
        Migration.checkNumbering(migrations)
        let start = try schemaVersion()
        guard start <= migrations.count else { throw MigrationError.databaseIsNewer(database: start, newestKnown: migrations.count) }
        for migration in migrations where migration.version > start {
            try transaction {
                try execute(migration.sql)
                // An integer this code numbered, not a value from outside: pragmas take no bound parameters.
                try execute("PRAGMA user_version = \(migration.version)")
            }
        }
        return (start, migrations.count)
    }
}
