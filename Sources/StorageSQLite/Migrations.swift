import IdentityCore
/// The schema's history. Migrations are append-only: a released migration never changes,
/// because databases in the field have already run it; a schema change is a new migration.
///
/// Conventions: STRICT tables (SQLite 3.37+), so a wrongly typed bind fails instead of being
/// stored; times are REAL seconds since 1970 (readable with `datetime(x, 'unixepoch')`);
/// bytes are BLOBs; booleans are INTEGER 0 or 1; string lists are JSON arrays in TEXT.
///
/// Applied migrations are listed in `grdb_migrations`, the table (and format) of the
/// library earlier builds used, so that their databases upgrade in place.
enum Migrations {
    /// Every migration, in the order they apply.
    static let all: [(name: String, sql: String)] = [
        ("v1", v1), ("v2", v2), ("v3", v3), ("v4", v4), ("v5", v5), ("v6", v6), ("v7", v7), ("v8", v8), ("v9", v9), ("v10", v10), ("v11", v11), ("v12", v12),
        ("v13", v13), ("v14", v14), ("v15", v15), ("v16", v16), ("v17", v17), ("v18", v18), ("v19", v19), ("v20", v20),
    ]

    /// The applied migrations: the known ones in order, then any only a newer build knows,
    /// sorted.
    static func applied(_ connection: SQLiteConnection) throws -> [String] {
        guard try connection.row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'") != nil else { return [] }
        let names = Set(try connection.rows("SELECT identifier FROM grdb_migrations").map { try $0.text("identifier") })
        let known = all.map(\.name).filter(names.contains)
        return known + names.subtracting(known).sorted()
    }

    /// Applies the migrations the database has not seen, each in its own transaction.
    ///
    /// Foreign keys are off while a migration runs, because rebuilding a table (SQLite's
    /// way to change one) drops it, and dropping a referenced table with them on would
    /// cascade; `PRAGMA foreign_key_check` then refuses to commit a migration that broke a
    /// reference. `BEGIN IMMEDIATE` makes two processes migrating at once take turns; each
    /// reads what is applied inside its own transaction.
    /// - Returns: The migrations applied now.
    static func migrate(_ connection: SQLiteConnection) throws -> [String] {
        try connection.executeScript("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        try connection.executeScript("PRAGMA foreign_keys = OFF")
        defer { try? connection.executeScript("PRAGMA foreign_keys = ON") }
        var appliedNow: [String] = []
        for migration in all {
            let applied = try connection.transaction { () -> Bool in
                guard try connection.row("SELECT 1 FROM grdb_migrations WHERE identifier = ?", [migration.name]) == nil else { return false }
                try connection.executeScript(migration.sql)
                if let broken = try connection.row("PRAGMA foreign_key_check") {
                    throw SQLiteStorageError(.invalidArgument, "migration \(migration.name) breaks a foreign key in \(try broken.text("table"))")
                }
                try connection.execute("INSERT INTO grdb_migrations (identifier) VALUES (?)", [migration.name])
                return true
            }
            if applied { appliedNow.append(migration.name) }
        }
        return appliedNow
    }

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

    /// Ceremonies travel sealed with the client, so only the keys of finished ones are
    /// kept, ordered by expiry. The tables a login writes lose the pages they did not need:
    /// audit events drop AUTOINCREMENT (a sequence-table page per event), and refresh tokens
    /// and their families are stored in their primary key (no separate key index).
    private static let v5 = """
        DROP TABLE ceremonies;
        CREATE TABLE finished_ceremonies (
            key BLOB NOT NULL PRIMARY KEY
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE audit_events_v5 (
            id INTEGER PRIMARY KEY,
            time REAL NOT NULL,
            kind TEXT NOT NULL,
            user_id TEXT,
            client_id TEXT,
            credential_id TEXT,
            detail TEXT NOT NULL
        ) STRICT;
        INSERT INTO audit_events_v5 SELECT id, time, kind, user_id, client_id, credential_id, detail FROM audit_events;
        DROP TABLE audit_events;
        ALTER TABLE audit_events_v5 RENAME TO audit_events;
        CREATE INDEX audit_events_time ON audit_events(time);
        CREATE INDEX audit_events_user_id_time ON audit_events(user_id, time);

        CREATE TABLE refresh_token_families_v5 (
            id TEXT NOT NULL PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            client_id TEXT NOT NULL,
            created_at REAL NOT NULL,
            revoked_at REAL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO refresh_token_families_v5 SELECT id, user_id, client_id, created_at, revoked_at FROM refresh_token_families;

        CREATE TABLE refresh_tokens_v5 (
            token_hash BLOB NOT NULL PRIMARY KEY,
            family_id TEXT NOT NULL REFERENCES refresh_token_families_v5(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            client_id TEXT NOT NULL,
            scopes TEXT NOT NULL,
            audience TEXT NOT NULL,
            authenticated_at REAL NOT NULL,
            user_verified INTEGER NOT NULL CHECK (user_verified IN (0, 1)),
            issued_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            used_at REAL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO refresh_tokens_v5
            SELECT token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at, user_verified, issued_at, expires_at, used_at
            FROM refresh_tokens;

        DROP TABLE refresh_tokens;
        DROP TABLE refresh_token_families;
        ALTER TABLE refresh_token_families_v5 RENAME TO refresh_token_families;
        ALTER TABLE refresh_tokens_v5 RENAME TO refresh_tokens;
        CREATE INDEX refresh_token_families_user_id ON refresh_token_families(user_id);
        CREATE INDEX refresh_tokens_family_id ON refresh_tokens(family_id);
        """

    /// Passwords, for accounts that still have one. A removed password keeps its row without
    /// a hash, so the account can tell credential managers the saved password is unused.
    /// Sessions remember whether a password started them (`amr` `pwd` after a refresh).
    private static let v6 = """
        CREATE TABLE passwords (
            user_id TEXT NOT NULL PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT,
            created_at REAL NOT NULL,
            last_used_at REAL,
            removed_at REAL,
            CHECK ((hash IS NULL) = (removed_at IS NOT NULL))
        ) STRICT, WITHOUT ROWID;
        ALTER TABLE refresh_tokens ADD COLUMN password_sign_in INTEGER NOT NULL DEFAULT 0 CHECK (password_sign_in IN (0, 1));
        """

    /// FIDO metadata: the one BLOB every instance verifies with, and on each passkey the
    /// metadata entry and status it was registered under. Passkeys are found by model when
    /// a new BLOB flags one.
    private static let v7 = """
        CREATE TABLE metadata_blob (
            id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
            number INTEGER NOT NULL,
            blob BLOB NOT NULL,
            stored_at REAL NOT NULL
        ) STRICT;
        ALTER TABLE credentials ADD COLUMN metadata_entry TEXT;
        ALTER TABLE credentials ADD COLUMN metadata_description TEXT;
        ALTER TABLE credentials ADD COLUMN metadata_status TEXT;
        CREATE INDEX credentials_aaguid ON credentials(aaguid);
        """

    /// Sessions remember the passkey that started them, so that removing or turning off the
    /// passkey ends them; an authorization code carries it to the session it starts.
    private static let v8 = """
        ALTER TABLE refresh_token_families ADD COLUMN credential_id BLOB;
        ALTER TABLE browser_sessions ADD COLUMN credential_id BLOB;
        ALTER TABLE authorization_codes ADD COLUMN credential_id BLOB;
        CREATE INDEX refresh_token_families_credential_id ON refresh_token_families(credential_id) WHERE credential_id IS NOT NULL;
        CREATE INDEX browser_sessions_credential_id ON browser_sessions(credential_id) WHERE credential_id IS NOT NULL;
        CREATE INDEX browser_sessions_user_id ON browser_sessions(user_id);
        """

    /// Consents: which clients that are not first-party a person allowed, for which scopes.
    private static let v9 = """
        CREATE TABLE consents (
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            client_id TEXT NOT NULL,
            scopes TEXT NOT NULL,
            granted_at REAL NOT NULL,
            PRIMARY KEY (user_id, client_id)
        ) STRICT;
        """

    /// Sessions started by a passkey are found through their user's index when the passkey
    /// goes: the indexes on the passkey cost every sign-in a page of its own to write, at a
    /// random place, for a lookup that happens when a person removes a passkey.
    private static let v10 = """
        DROP INDEX refresh_token_families_credential_id;
        DROP INDEX browser_sessions_credential_id;
        """

    /// Every session records how its person signed in, so that removing a password ends the
    /// sessions a password started (and tokens say `pwd` truly); a passkey an administrator
    /// turned off says so, so that its owner cannot turn it on again. Existing sessions are
    /// marked as a password's where nothing shows a passkey started them: a refresh family
    /// with a password token or without a passkey, a browser session without a passkey (the
    /// hosted pages' password sign-ins); ending one of those early is the safe mistake.
    private static let v11 = """
        ALTER TABLE refresh_token_families ADD COLUMN method TEXT NOT NULL DEFAULT 'passkey' CHECK (method IN ('passkey', 'password'));
        ALTER TABLE browser_sessions ADD COLUMN method TEXT NOT NULL DEFAULT 'passkey' CHECK (method IN ('passkey', 'password'));
        ALTER TABLE authorization_codes ADD COLUMN method TEXT NOT NULL DEFAULT 'passkey' CHECK (method IN ('passkey', 'password'));
        ALTER TABLE credentials ADD COLUMN disabled_by_admin INTEGER NOT NULL DEFAULT 0 CHECK (disabled_by_admin IN (0, 1));
        UPDATE refresh_token_families SET method = 'password'
            WHERE credential_id IS NULL OR id IN (SELECT family_id FROM refresh_tokens WHERE password_sign_in = 1);
        UPDATE browser_sessions SET method = 'password' WHERE credential_id IS NULL;
        UPDATE authorization_codes SET method = 'password' WHERE credential_id IS NULL;
        """

    /// Getting people back in: the verified state of addresses, the mail outbox, emailed
    /// one-time codes (a keyed hash, one per user and purpose), saved recovery codes, and
    /// browser sessions a recovery started (which may only enroll a passkey). A message's
    /// body is erased once it is sent or given up (it may carry a code).
    private static let v12 = """
        ALTER TABLE users ADD COLUMN email_verified_at REAL;
        ALTER TABLE users ADD COLUMN phone_number_verified_at REAL;
        ALTER TABLE browser_sessions ADD COLUMN recovery INTEGER NOT NULL DEFAULT 0 CHECK (recovery IN (0, 1));
        CREATE TABLE mail_outbox (
            id TEXT NOT NULL PRIMARY KEY,
            kind TEXT NOT NULL,
            recipient TEXT NOT NULL,
            recipient_name TEXT,
            subject TEXT NOT NULL,
            text_body TEXT NOT NULL,
            html_body TEXT NOT NULL,
            created_at REAL NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            due_at REAL NOT NULL,
            last_error TEXT,
            finished_at REAL
        ) STRICT;
        CREATE INDEX mail_outbox_due ON mail_outbox (due_at) WHERE status = 'pending';
        CREATE INDEX mail_outbox_created ON mail_outbox (created_at);
        CREATE TABLE one_time_codes (
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            purpose TEXT NOT NULL,
            code_hash BLOB NOT NULL,
            address TEXT NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (user_id, purpose)
        ) STRICT;
        CREATE TABLE recovery_codes (
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            code_hash TEXT NOT NULL,
            created_at REAL NOT NULL,
            used_at REAL,
            PRIMARY KEY (user_id, id)
        ) STRICT;
        """

    /// Operating it: admin API keys (only their SHA-256), accounts an administrator turned
    /// off, the actor and request (address, user agent, face) of an audit event, the
    /// directory's order, and the
    /// webhooks' outbox, which a trigger fills in the transaction of the audit event (and so
    /// of the change) it reports; the trigger is made at start-up while endpoints subscribe
    /// (`replaceWebhookSubscriptions`).
    private static let v13 = """
        ALTER TABLE users ADD COLUMN disabled_at REAL;
        ALTER TABLE audit_events ADD COLUMN actor TEXT;
        ALTER TABLE audit_events ADD COLUMN ip TEXT;
        ALTER TABLE audit_events ADD COLUMN user_agent TEXT;
        ALTER TABLE audit_events ADD COLUMN face TEXT;
        CREATE INDEX users_created_at_id ON users (created_at, id);
        CREATE TABLE admin_keys (
            id TEXT NOT NULL PRIMARY KEY,
            name TEXT NOT NULL,
            scopes TEXT NOT NULL,
            key_hash BLOB NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            last_used_at REAL,
            revoked_at REAL
        ) STRICT;
        CREATE TABLE webhook_subscriptions (
            kind TEXT NOT NULL,
            endpoint_id TEXT NOT NULL,
            PRIMARY KEY (kind, endpoint_id)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE webhook_endpoints_off (
            endpoint_id TEXT NOT NULL PRIMARY KEY,
            reason TEXT NOT NULL,
            disabled_at REAL NOT NULL
        ) STRICT;
        CREATE TABLE webhook_deliveries (
            position INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            endpoint_id TEXT NOT NULL,
            event_id INTEGER NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at REAL NOT NULL,
            last_status TEXT,
            last_error TEXT,
            created_at REAL NOT NULL,
            delivered_at REAL
        ) STRICT;
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
        """

    /// Codes that cannot be ground down: a one-time code's place in its series of re-issues
    /// (each waits twice as long), codes without a foreign key to users (an address no
    /// account recovers through keeps a stand-in's code, so it answers as an account does; a
    /// trigger deletes a deleted user's), per-account counters (wrong codes in a row, code
    /// mails per hour, recovery-code sets per hour), a saved recovery code's lookup key, and
    /// the `enrollment:write` scope for every key that could make enrollment links before it
    /// existed (`credentials:write`); and each signing key's algorithm (the existing ones are
    /// ES256), so that RSA keys sign ID tokens beside them.
    private static let v14 = """
        CREATE TABLE one_time_codes_v14 (
            user_id TEXT NOT NULL,
            purpose TEXT NOT NULL,
            code_hash BLOB NOT NULL,
            address TEXT NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            issued INTEGER NOT NULL DEFAULT 1,
            PRIMARY KEY (user_id, purpose)
        ) STRICT;
        INSERT INTO one_time_codes_v14 (user_id, purpose, code_hash, address, created_at, expires_at, attempts)
            SELECT user_id, purpose, code_hash, address, created_at, expires_at, attempts FROM one_time_codes;
        DROP TABLE one_time_codes;
        ALTER TABLE one_time_codes_v14 RENAME TO one_time_codes;
        CREATE TABLE account_counters (
            subject TEXT NOT NULL,
            counter TEXT NOT NULL,
            count INTEGER NOT NULL,
            expires_at REAL,
            PRIMARY KEY (subject, counter)
        ) STRICT, WITHOUT ROWID;
        CREATE TRIGGER users_delete_codes AFTER DELETE ON users BEGIN
            DELETE FROM one_time_codes WHERE user_id = old.id;
            DELETE FROM account_counters WHERE subject = old.id;
        END;
        ALTER TABLE recovery_codes ADD COLUMN lookup_key BLOB;
        UPDATE admin_keys SET scopes = scopes || ',enrollment:write' WHERE ',' || scopes || ',' LIKE '%,credentials:write,%';
        ALTER TABLE signing_keys ADD COLUMN algorithm TEXT NOT NULL DEFAULT 'ES256' CHECK (algorithm IN ('ES256', 'RS256', 'PS256'));
        """

    /// Back-channel logout: a code remembers the browser session it was issued from, and the
    /// login session it starts remembers it too, so that signing out of the browser ends the
    /// apps' sessions it started; and the outbox of logout notices, which a trigger on the
    /// sessions writes (created only while some client wants them, as the webhooks' is).
    private static let v15 = """
        ALTER TABLE authorization_codes ADD COLUMN browser_session BLOB;
        ALTER TABLE refresh_token_families ADD COLUMN browser_session BLOB;
        CREATE INDEX refresh_token_families_browser_session ON refresh_token_families(browser_session) WHERE browser_session IS NOT NULL;
        CREATE TABLE backchannel_logout_clients (
            client_id TEXT NOT NULL PRIMARY KEY
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE backchannel_logouts (
            position INTEGER PRIMARY KEY,
            client_id TEXT NOT NULL,
            session_id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at REAL NOT NULL,
            last_status TEXT,
            last_error TEXT,
            created_at REAL NOT NULL,
            delivered_at REAL
        ) STRICT;
        CREATE INDEX backchannel_logouts_due ON backchannel_logouts (next_attempt_at) WHERE status = 'pending';
        """

    /// Imported accounts: which account each source ID became, so that importing a file
    /// again changes nothing. Deleting the account forgets its source ID too.
    private static let v16 = """
        CREATE TABLE imported_accounts (
            source TEXT NOT NULL,
            source_id TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            imported_at REAL NOT NULL,
            PRIMARY KEY (source, source_id)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX imported_accounts_user ON imported_accounts (user_id);
        """

    /// What an imported account kept from its source: its ID there where it could not stay
    /// the account's ID (an Auth0 `user_id`), and the application's data about it.
    private static let v17 = """
        ALTER TABLE users ADD COLUMN external_id TEXT;
        ALTER TABLE users ADD COLUMN metadata TEXT;
        """

    /// How strongly the sign-in behind an authorization code authenticated, as the tokens
    /// it is exchanged for say (`acr`).
    private static let v18 = """
        ALTER TABLE authorization_codes ADD COLUMN acr TEXT;
        """

    /// The operator console: which accounts are operators, and the daily rollups its overview
    /// and `GET /admin/v1/stats` read (counts by UTC day and metric, the audit trail position
    /// they have reached, and each account's latest sign-in).
    /// The Shared Signals transmitter's streams, each one JSON document (its subjects
    /// included); their events are deliveries of the webhooks' outbox.
    private static let v20 = """
        CREATE TABLE signal_streams (
            id TEXT NOT NULL PRIMARY KEY,
            document TEXT NOT NULL,
            created_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, position) WHERE status = 'pending';
        """

    private static let v19 = """
        CREATE TABLE operators (
            user_id TEXT NOT NULL PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('viewer', 'admin')),
            since REAL NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE daily_stats (
            day TEXT NOT NULL,
            metric TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (day, metric)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE stats_position (
            id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
            position INTEGER NOT NULL
        ) STRICT;
        INSERT INTO stats_position (id, position) VALUES (1, 0);
        CREATE TABLE account_activity (
            user_id TEXT NOT NULL PRIMARY KEY,
            last_sign_in REAL NOT NULL,
            last_passkey_sign_in REAL
        ) STRICT, WITHOUT ROWID;
        """
}
