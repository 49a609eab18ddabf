import PassboxSQL

/// The server's tables: the schema's numbered steps, written for SQLite and translated for PostgreSQL.
enum ServerSchema {
    static let migrations = [
        Migration(1, """
            CREATE TABLE accounts (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE,
                salt BLOB NOT NULL,
                kdf_memory INTEGER NOT NULL,
                kdf_passes INTEGER NOT NULL,
                kdf_lanes INTEGER NOT NULL,
                signin_public_key BLOB NOT NULL,
                keyset BLOB NOT NULL,
                created INTEGER NOT NULL
            );
            CREATE TABLE challenges (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL,
                device_id TEXT NOT NULL,
                challenge BLOB NOT NULL,
                expires INTEGER NOT NULL
            );
            CREATE INDEX challenges_expires ON challenges (expires);
            CREATE TABLE sessions (
                token_hash BLOB PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                device_id TEXT NOT NULL,
                device_name TEXT NOT NULL,
                created INTEGER NOT NULL,
                last_seen INTEGER NOT NULL,
                address TEXT NOT NULL
            );
            CREATE INDEX sessions_account ON sessions (account_id);
            CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
            """),
        Migration(2, """
            CREATE TABLE signin_failures (
                key TEXT PRIMARY KEY,
                count INTEGER NOT NULL,
                window_start INTEGER NOT NULL,
                locked_until INTEGER NOT NULL
            );
            CREATE TABLE events (
                id INTEGER PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                at INTEGER NOT NULL,
                address TEXT NOT NULL,
                device_name TEXT NOT NULL
            );
            CREATE INDEX events_account ON events (account_id, at);
            """),
        Migration(3, """
            CREATE TABLE invitations (
                token_hash BLOB PRIMARY KEY,
                email TEXT NOT NULL,
                created INTEGER NOT NULL,
                expires INTEGER NOT NULL,
                used INTEGER
            );
            """),
        Migration(4, """
            CREATE TABLE two_factor (
                account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
                secret BLOB NOT NULL,
                enabled INTEGER NOT NULL,
                last_step INTEGER NOT NULL
            );
            CREATE TABLE recovery_codes (
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                code_hash BLOB NOT NULL,
                used INTEGER,
                PRIMARY KEY (account_id, code_hash)
            );
            """),
        Migration(5, """
            CREATE TABLE account_recovery (
                account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
                public_key BLOB NOT NULL,
                blob BLOB NOT NULL,
                created INTEGER NOT NULL
            );
            """),
        Migration(6, """
            CREATE TABLE remembered_devices (
                token_hash BLOB PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                device_id TEXT NOT NULL,
                expires INTEGER NOT NULL
            );
            """),
        Migration(7, """
            CREATE TABLE sync_accounts (
                account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
                revision INTEGER NOT NULL
            );
            CREATE TABLE sync_vaults (
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                vault_id TEXT NOT NULL,
                key_version INTEGER NOT NULL,
                wrapped_key BLOB NOT NULL,
                manifest_version INTEGER NOT NULL,
                revision INTEGER NOT NULL,
                PRIMARY KEY (account_id, vault_id)
            );
            CREATE TABLE sync_manifests (
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                vault_id TEXT NOT NULL,
                version INTEGER NOT NULL,
                body BLOB NOT NULL,
                meta BLOB NOT NULL,
                revision INTEGER NOT NULL,
                PRIMARY KEY (account_id, vault_id, version)
            );
            CREATE INDEX sync_manifests_revision ON sync_manifests (account_id, revision);
            CREATE TABLE sync_items (
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                vault_id TEXT NOT NULL,
                item_id TEXT NOT NULL,
                revision INTEGER NOT NULL,
                envelope BLOB,
                PRIMARY KEY (account_id, vault_id, item_id)
            );
            CREATE INDEX sync_items_revision ON sync_items (account_id, revision);
            CREATE TABLE sync_operations (
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                op_id TEXT NOT NULL,
                revision INTEGER NOT NULL,
                created INTEGER NOT NULL,
                PRIMARY KEY (account_id, op_id)
            );
            """),
        Migration(8, """
            CREATE TABLE sync_blobs (
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                blob_id TEXT NOT NULL,
                length INTEGER NOT NULL,
                complete INTEGER NOT NULL,
                created INTEGER NOT NULL,
                PRIMARY KEY (account_id, blob_id)
            );
            CREATE TABLE sync_blob_parts (
                account_id TEXT NOT NULL,
                blob_id TEXT NOT NULL,
                part INTEGER NOT NULL,
                body BLOB NOT NULL,
                PRIMARY KEY (account_id, blob_id, part),
                FOREIGN KEY (account_id, blob_id) REFERENCES sync_blobs (account_id, blob_id) ON DELETE CASCADE
            );
            """),
        // Where each device last started a pull from: the manifests after it are kept for it (issue 28).
        Migration(9, """
            CREATE TABLE sync_devices (
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                device_id TEXT NOT NULL,
                pulled INTEGER NOT NULL,
                seen INTEGER NOT NULL,
                PRIMARY KEY (account_id, device_id)
            );
            """),
        // Sharing (issue 32): organisations' signed member list versions, the index of who is in each newest
        // version (who may read the list), and invitations to an organisation (the token kept as its SHA-256).
        Migration(10, """
            CREATE TABLE org_lists (
                org_id TEXT NOT NULL,
                version INTEGER NOT NULL,
                body BLOB NOT NULL,
                created INTEGER NOT NULL,
                PRIMARY KEY (org_id, version)
            );
            CREATE TABLE org_members (
                org_id TEXT NOT NULL,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                role INTEGER NOT NULL,
                PRIMARY KEY (org_id, account_id)
            );
            CREATE INDEX org_members_account ON org_members (account_id);
            CREATE TABLE org_invitations (
                id TEXT PRIMARY KEY,
                token_hash BLOB NOT NULL UNIQUE,
                org_id TEXT NOT NULL,
                email TEXT NOT NULL,
                role INTEGER NOT NULL,
                invited_by TEXT NOT NULL,
                created INTEGER NOT NULL,
                expires INTEGER NOT NULL,
                accepted_by TEXT REFERENCES accounts (id) ON DELETE CASCADE,
                accepted INTEGER
            );
            CREATE INDEX org_invitations_org ON org_invitations (org_id);
            CREATE TABLE org_locks (
                org_id TEXT PRIMARY KEY,
                changes INTEGER NOT NULL
            );
            CREATE TABLE org_departures (
                org_id TEXT NOT NULL,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                left_at INTEGER NOT NULL,
                PRIMARY KEY (org_id, account_id)
            );
            CREATE TABLE org_vaults (
                org_id TEXT NOT NULL,
                vault_id TEXT NOT NULL,
                epoch INTEGER NOT NULL,
                meta BLOB NOT NULL,
                PRIMARY KEY (org_id, vault_id)
            );
            CREATE TABLE org_grants (
                org_id TEXT NOT NULL,
                vault_id TEXT NOT NULL,
                epoch INTEGER NOT NULL,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                body BLOB NOT NULL,
                PRIMARY KEY (org_id, vault_id, epoch, account_id)
            );
            """),
        // Items of shared vaults (issue 32): each organisation's own revisions, vaults, signed manifests, item
        // envelopes and pushes, shaped as the account's sync tables with the organisation in place of the account.
        Migration(11, """
            CREATE TABLE org_sync_heads (
                org_id TEXT PRIMARY KEY,
                revision INTEGER NOT NULL
            );
            CREATE TABLE org_sync_vaults (
                org_id TEXT NOT NULL,
                vault_id TEXT NOT NULL,
                key_version INTEGER NOT NULL,
                wrapped_key BLOB NOT NULL,
                manifest_version INTEGER NOT NULL,
                revision INTEGER NOT NULL,
                PRIMARY KEY (org_id, vault_id)
            );
            CREATE TABLE org_sync_manifests (
                org_id TEXT NOT NULL,
                vault_id TEXT NOT NULL,
                version INTEGER NOT NULL,
                body BLOB NOT NULL,
                meta BLOB NOT NULL,
                revision INTEGER NOT NULL,
                PRIMARY KEY (org_id, vault_id, version)
            );
            CREATE INDEX org_sync_manifests_revision ON org_sync_manifests (org_id, revision);
            CREATE TABLE org_sync_items (
                org_id TEXT NOT NULL,
                vault_id TEXT NOT NULL,
                item_id TEXT NOT NULL,
                revision INTEGER NOT NULL,
                envelope BLOB,
                PRIMARY KEY (org_id, vault_id, item_id)
            );
            CREATE INDEX org_sync_items_revision ON org_sync_items (org_id, revision);
            CREATE TABLE org_sync_operations (
                org_id TEXT NOT NULL,
                op_id TEXT NOT NULL,
                revision INTEGER NOT NULL,
                created INTEGER NOT NULL,
                PRIMARY KEY (org_id, op_id)
            );
            """),
        // Organisation recovery (issue 32, ACC-10): who lets a family's owners help them back in, and the
        // pending requests with the new credentials (kept until an owner approves, a day at most).
        Migration(12, """
            CREATE TABLE org_recovery_optins (
                org_id TEXT NOT NULL,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                created INTEGER NOT NULL,
                PRIMARY KEY (org_id, account_id)
            );
            CREATE TABLE org_recovery_requests (
                account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
                token_hash BLOB NOT NULL,
                credentials BLOB,
                created INTEGER NOT NULL,
                expires INTEGER NOT NULL
            );
            """),
        // Device linking's relay (issue 33): one row a link, gone once used, cancelled or expired.
        Migration(13, """
            CREATE TABLE device_links (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                created INTEGER NOT NULL,
                expires INTEGER NOT NULL,
                hello BLOB,
                hello_address TEXT,
                reply BLOB,
                sealed BLOB,
                cancelled INTEGER NOT NULL
            );
            """),
        // Each device's record signed with the account's key (issue 33): kept as the device uploads it.
        Migration(14, """
            CREATE TABLE device_attestations (
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                device_id TEXT NOT NULL,
                attestation BLOB NOT NULL,
                PRIMARY KEY (account_id, device_id)
            );
            """),
    ]
}

extension ServerSchema {
    /// The same steps for PostgreSQL. The SQLite text is the one source; the translation is mechanical and
    /// covers exactly the types this schema uses: `BLOB` is `BYTEA`, every `INTEGER` a `BIGINT` (Passbox
    /// binds 64-bit integers), and the events' `INTEGER PRIMARY KEY` (SQLite's row id) an identity column.
    static var postgresMigrations: [Migration] {
        migrations.map { step in
            let sql = step.sql
                .replacingOccurrences(of: "INTEGER PRIMARY KEY", with: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")
                .replacingOccurrences(of: "BLOB", with: "BYTEA")
                .replacingOccurrences(of: "INTEGER", with: "BIGINT")
            return Migration(step.version, sql)
        }
    }
}
