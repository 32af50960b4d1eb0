import GRDB

/// The schema's history. Migrations are append-only: a released migration never changes,
/// because databases in the field have already run it; a schema change is a new migration.
///
/// The SQL is written out rather than built with GRDB's schema DSL so that the text of a
/// released migration cannot change when the DSL does.
///
/// Conventions: STRICT tables (SQLite 3.37+), so a wrongly typed bind fails instead of being
/// stored; times are REAL seconds since 1970 (readable with `datetime(x, 'unixepoch')`);
/// bytes are BLOBs; booleans are INTEGER 0 or 1; string lists are JSON arrays in TEXT.
enum Migrations {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: v1)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: v2)
        }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: v3)
        }
        migrator.registerMigration("v4") { db in
            try db.execute(sql: v4)
        }
        return migrator
    }()

    private static let v1 = """
        CREATE TABLE users (
            id TEXT NOT NULL PRIMARY KEY,
            user_handle BLOB NOT NULL UNIQUE,
            -- Identifiers arrive normalized; NULLs do not collide with each other.
            email TEXT UNIQUE,
            phone_number TEXT UNIQUE,
            username TEXT UNIQUE,
            name TEXT,
            given_name TEXT,
            family_name TEXT,
            nickname TEXT,
            picture TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        ) STRICT;

        CREATE TABLE credentials (
            id BLOB NOT NULL PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            public_key BLOB NOT NULL,
            algorithm INTEGER NOT NULL,
            sign_count INTEGER NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
            backup_eligible INTEGER NOT NULL CHECK (backup_eligible IN (0, 1)),
            backed_up INTEGER NOT NULL CHECK (backed_up IN (0, 1)),
            user_verified INTEGER NOT NULL CHECK (user_verified IN (0, 1)),
            transports TEXT NOT NULL,
            aaguid TEXT NOT NULL,
            attestation_format TEXT NOT NULL,
            attestation_trusted INTEGER NOT NULL CHECK (attestation_trusted IN (0, 1)),
            relying_party_id TEXT NOT NULL,
            name TEXT,
            created_at REAL NOT NULL,
            last_used_at REAL,
            sign_count_regressed INTEGER NOT NULL CHECK (sign_count_regressed IN (0, 1)),
            -- Also the index for "a user's credentials".
            UNIQUE (user_id, name)
        ) STRICT;

        CREATE TABLE ceremonies (
            id TEXT NOT NULL PRIMARY KEY,
            kind TEXT NOT NULL,
            client_id TEXT NOT NULL,
            challenge BLOB NOT NULL,
            user_verification TEXT NOT NULL,
            pending_user TEXT,
            user_id TEXT,
            allowed_credential_ids TEXT NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            consumed_at REAL
        ) STRICT;
        CREATE INDEX ceremonies_expires_at ON ceremonies(expires_at);

        -- A family is a login session: every token rotated from one login. Revocation lives
        -- here, once, so revoking a family cannot miss a member.
        CREATE TABLE refresh_token_families (
            id TEXT NOT NULL PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            client_id TEXT NOT NULL,
            created_at REAL NOT NULL,
            revoked_at REAL
        ) STRICT;
        CREATE INDEX refresh_token_families_user_id ON refresh_token_families(user_id);

        CREATE TABLE refresh_tokens (
            token_hash BLOB NOT NULL PRIMARY KEY,
            family_id TEXT NOT NULL REFERENCES refresh_token_families(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            client_id TEXT NOT NULL,
            scopes TEXT NOT NULL,
            audience TEXT NOT NULL,
            authenticated_at REAL NOT NULL,
            user_verified INTEGER NOT NULL CHECK (user_verified IN (0, 1)),
            issued_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            used_at REAL
        ) STRICT;
        CREATE INDEX refresh_tokens_family_id ON refresh_tokens(family_id);

        CREATE TABLE signing_keys (
            key_id TEXT NOT NULL PRIMARY KEY,
            private_key BLOB NOT NULL,
            created_at REAL NOT NULL,
            retired_at REAL
        ) STRICT;

        CREATE TABLE audit_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            time REAL NOT NULL,
            kind TEXT NOT NULL,
            user_id TEXT,
            client_id TEXT,
            credential_id TEXT,
            detail TEXT NOT NULL
        ) STRICT;
        CREATE INDEX audit_events_time ON audit_events(time);
        CREATE INDEX audit_events_user_id_time ON audit_events(user_id, time);

        CREATE TABLE secrets (
            name TEXT NOT NULL PRIMARY KEY,
            value BLOB NOT NULL
        ) STRICT;
        """

    /// Browser sessions of the hosted pages, and authorization codes.
    private static let v2 = """
        CREATE TABLE browser_sessions (
            token_hash BLOB NOT NULL PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            authenticated_at REAL NOT NULL,
            user_verified INTEGER NOT NULL CHECK (user_verified IN (0, 1)),
            expires_at REAL NOT NULL,
            revoked_at REAL
        ) STRICT;
        CREATE INDEX browser_sessions_expires_at ON browser_sessions(expires_at);

        CREATE TABLE authorization_codes (
            code_hash BLOB NOT NULL PRIMARY KEY,
            client_id TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            redirect_uri TEXT NOT NULL,
            code_challenge TEXT NOT NULL,
            scopes TEXT NOT NULL,
            audience TEXT NOT NULL,
            nonce TEXT,
            session_id TEXT NOT NULL,
            authenticated_at REAL NOT NULL,
            user_verified INTEGER NOT NULL CHECK (user_verified IN (0, 1)),
            expires_at REAL NOT NULL,
            used_at REAL
        ) STRICT;
        CREATE INDEX authorization_codes_expires_at ON authorization_codes(expires_at);
        """

    /// Self-service flows (the Kratos face's registration, login and settings flows).
    private static let v3 = """
        CREATE TABLE interactive_flows (
            id TEXT NOT NULL PRIMARY KEY,
            kind TEXT NOT NULL,
            is_browser INTEGER NOT NULL CHECK (is_browser IN (0, 1)),
            ceremony_id TEXT NOT NULL,
            options BLOB NOT NULL,
            user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
            csrf_token TEXT,
            request_url TEXT NOT NULL,
            issued_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            completed_at REAL
        ) STRICT;
        CREATE INDEX interactive_flows_expires_at ON interactive_flows(expires_at);
        """

    /// Passkeys named by UUID, turned off without being deleted, and the origin they were
    /// registered from (the IDaaS face's FIDO tokens); Administration API tokens.
    /// Existing credentials get a random version 4 UUID.
    private static let v4 = """
        ALTER TABLE credentials ADD COLUMN record_id TEXT;
        ALTER TABLE credentials ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1));
        ALTER TABLE credentials ADD COLUMN origin TEXT;
        UPDATE credentials SET record_id = lower(
            hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
            substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))
        );
        CREATE UNIQUE INDEX credentials_record_id ON credentials(record_id);

        CREATE TABLE admin_tokens (
            token_hash BLOB NOT NULL PRIMARY KEY,
            application_id TEXT NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX admin_tokens_expires_at ON admin_tokens(expires_at);
        """
}
