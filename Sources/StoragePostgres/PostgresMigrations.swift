import Foundation
import Logging
import PostgresNIO

/// The schema's history on PostgreSQL. Migrations are append-only: a released migration
/// never changes, because databases in the field have already run it.
///
/// Conventions: times are `double precision` seconds since 1970, the same values the SQLite
/// backend stores, so a `Date` reads back exactly (a `timestamptz` keeps only microseconds);
/// bytes are `bytea`; string lists are `text[]`. Constraints are named, because a
/// uniqueness violation is told apart by its constraint's name (``PostgresFailure``).
enum PostgresMigrations {
    /// Every migration, in the order they apply.
    static let all: [(name: String, sql: String)] = [("v1", v1), ("v2", v2), ("v3", v3), ("v4", v4), ("v5", v5), ("v6", v6), ("v7", v7), ("v8", v8), ("v9", v9), ("v10", v10), ("v11", v11), ("v12", v12), ("v13", v13), ("v14", v14), ("v15", v15), ("v16", v16)]

    /// Serializes migrations across instances: whichever takes it first migrates, the
    /// others wait and then find nothing left to do. (The two-key form of the advisory
    /// lock: this, and the schema's hash.)
    static let advisoryLock: Int32 = 0x4C61_7463  // "Latc"

    /// Applies what the database has not seen, all in one transaction under the advisory
    /// lock (PostgreSQL's DDL is transactional, so a failed migration leaves nothing).
    /// - Returns: The migrations applied now.
    static func migrate(_ connection: PostgresConnection, schema: String?, logger: Logger) async throws -> [String] {
        try await connection.transaction(logger: logger) { connection in
            // A migration may rewrite large tables, and waiting for another instance's
            // migration is expected: neither is a stuck statement.
            _ = try await connection.rows("SET LOCAL statement_timeout = 0", logger: logger)
            // One lock per schema: instances sharing a schema take turns; separate schemas
            // (the tests give each case one) do not wait for each other.
            _ = try await connection.rows("SELECT pg_advisory_xact_lock(\(advisoryLock), hashtext(\(schema ?? "public")))", logger: logger)
            if let schema {
                _ = try await connection.rows(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(quotedIdentifier(schema))"), logger: logger)
            }
            _ = try await connection.rows(
                "CREATE TABLE IF NOT EXISTS latchkey_migrations (name text PRIMARY KEY, applied_at double precision NOT NULL DEFAULT extract(epoch FROM now()))",
                logger: logger
            )
            let applied = Set(try await connection.rows("SELECT name FROM latchkey_migrations", logger: logger).map { try $0.text("name") })
            var appliedNow: [String] = []
            for migration in all where !applied.contains(migration.name) {
                // The extended protocol takes one statement at a time: statements are separated
                // by a line holding only a semicolon (a function body has semicolons of its own).
                for statement in migration.sql.components(separatedBy: "\n;\n") where !statement.allSatisfy(\.isWhitespace) {
                    _ = try await connection.rows(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                _ = try await connection.rows("INSERT INTO latchkey_migrations (name) VALUES (\(migration.name))", logger: logger)
                appliedNow.append(migration.name)
            }
            return appliedNow
        }
    }

    /// The applied migrations: the known ones in order, then any only a newer build knows.
    static func applied(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let exists = try await connection.rows("SELECT to_regclass('latchkey_migrations') IS NOT NULL AS present", logger: logger)
        guard try exists.first?.bool("present") == true else { return [] }
        let names = Set(try await connection.rows("SELECT name FROM latchkey_migrations", logger: logger).map { try $0.text("name") })
        let known = all.map(\.name).filter(names.contains)
        return known + names.subtracting(known).sorted()
    }

    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The schema the SQLite backend reached with its eighth migration, in PostgreSQL's terms,
    /// plus a row counter on credentials and signing keys for insertion order, and the
    /// rate-limit counters (the SQLite backend keeps those in memory: it serves one instance).
    private static let v1 = """
        CREATE TABLE users (
            id text PRIMARY KEY,
            user_handle bytea NOT NULL CONSTRAINT users_user_handle_key UNIQUE,
            email text CONSTRAINT users_email_key UNIQUE,
            phone_number text CONSTRAINT users_phone_number_key UNIQUE,
            username text CONSTRAINT users_username_key UNIQUE,
            name text,
            given_name text,
            family_name text,
            nickname text,
            picture text,
            created_at double precision NOT NULL,
            updated_at double precision NOT NULL
        )
        ;

        CREATE TABLE credentials (
            id bytea PRIMARY KEY,
            seq bigint GENERATED ALWAYS AS IDENTITY,
            user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            public_key bytea NOT NULL,
            algorithm bigint NOT NULL,
            sign_count bigint NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
            backup_eligible boolean NOT NULL,
            backed_up boolean NOT NULL,
            user_verified boolean NOT NULL,
            transports text[] NOT NULL,
            aaguid text NOT NULL,
            attestation_format text NOT NULL,
            attestation_trusted boolean NOT NULL,
            relying_party_id text NOT NULL,
            name text,
            created_at double precision NOT NULL,
            last_used_at double precision,
            sign_count_regressed boolean NOT NULL,
            record_id text NOT NULL CONSTRAINT credentials_record_id_key UNIQUE,
            disabled boolean NOT NULL DEFAULT false,
            origin text,
            metadata_entry text,
            metadata_description text,
            metadata_status text,
            -- Also the index for "a user's credentials".
            CONSTRAINT credentials_user_id_name_key UNIQUE (user_id, name)
        )
        ;
        CREATE INDEX credentials_aaguid ON credentials(aaguid)
        ;

        CREATE TABLE finished_ceremonies (
            key bytea PRIMARY KEY
        )
        ;

        -- A family is a login session: every token rotated from one login.
        CREATE TABLE refresh_token_families (
            id text PRIMARY KEY,
            user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            client_id text NOT NULL,
            created_at double precision NOT NULL,
            revoked_at double precision,
            credential_id bytea
        )
        ;
        CREATE INDEX refresh_token_families_user_id ON refresh_token_families(user_id)
        ;
        CREATE INDEX refresh_token_families_created_at ON refresh_token_families(created_at)
        ;
        CREATE INDEX refresh_token_families_credential_id ON refresh_token_families(credential_id) WHERE credential_id IS NOT NULL
        ;

        CREATE TABLE refresh_tokens (
            token_hash bytea PRIMARY KEY,
            family_id text NOT NULL REFERENCES refresh_token_families(id) ON DELETE CASCADE,
            user_id text NOT NULL,
            client_id text NOT NULL,
            scopes text[] NOT NULL,
            audience text NOT NULL,
            authenticated_at double precision NOT NULL,
            user_verified boolean NOT NULL,
            password_sign_in boolean NOT NULL DEFAULT false,
            issued_at double precision NOT NULL,
            expires_at double precision NOT NULL,
            used_at double precision
        )
        ;
        CREATE INDEX refresh_tokens_family_id ON refresh_tokens(family_id)
        ;

        CREATE TABLE signing_keys (
            key_id text PRIMARY KEY,
            seq bigint GENERATED ALWAYS AS IDENTITY,
            private_key bytea NOT NULL,
            created_at double precision NOT NULL,
            retired_at double precision
        )
        ;

        CREATE TABLE audit_events (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            time double precision NOT NULL,
            kind text NOT NULL,
            user_id text,
            client_id text,
            credential_id text,
            detail text NOT NULL
        )
        ;
        CREATE INDEX audit_events_time ON audit_events(time)
        ;
        CREATE INDEX audit_events_user_id_time ON audit_events(user_id, time)
        ;

        CREATE TABLE secrets (
            name text PRIMARY KEY,
            value bytea NOT NULL
        )
        ;

        CREATE TABLE browser_sessions (
            token_hash bytea PRIMARY KEY,
            user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            authenticated_at double precision NOT NULL,
            user_verified boolean NOT NULL,
            expires_at double precision NOT NULL,
            revoked_at double precision,
            credential_id bytea
        )
        ;
        CREATE INDEX browser_sessions_expires_at ON browser_sessions(expires_at)
        ;
        CREATE INDEX browser_sessions_user_id ON browser_sessions(user_id)
        ;
        CREATE INDEX browser_sessions_credential_id ON browser_sessions(credential_id) WHERE credential_id IS NOT NULL
        ;

        CREATE TABLE authorization_codes (
            code_hash bytea PRIMARY KEY,
            client_id text NOT NULL,
            user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            redirect_uri text NOT NULL,
            code_challenge text NOT NULL,
            scopes text[] NOT NULL,
            audience text NOT NULL,
            nonce text,
            session_id text NOT NULL,
            authenticated_at double precision NOT NULL,
            user_verified boolean NOT NULL,
            expires_at double precision NOT NULL,
            used_at double precision,
            credential_id bytea
        )
        ;
        CREATE INDEX authorization_codes_expires_at ON authorization_codes(expires_at)
        ;

        CREATE TABLE interactive_flows (
            id text PRIMARY KEY,
            kind text NOT NULL,
            is_browser boolean NOT NULL,
            ceremony_id text NOT NULL,
            options bytea NOT NULL,
            user_id text REFERENCES users(id) ON DELETE CASCADE,
            csrf_token text,
            request_url text NOT NULL,
            issued_at double precision NOT NULL,
            expires_at double precision NOT NULL,
            completed_at double precision
        )
        ;
        CREATE INDEX interactive_flows_expires_at ON interactive_flows(expires_at)
        ;

        CREATE TABLE admin_tokens (
            token_hash bytea PRIMARY KEY,
            application_id text NOT NULL,
            created_at double precision NOT NULL,
            expires_at double precision NOT NULL
        )
        ;
        CREATE INDEX admin_tokens_expires_at ON admin_tokens(expires_at)
        ;

        CREATE TABLE passwords (
            user_id text PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            hash text,
            created_at double precision NOT NULL,
            last_used_at double precision,
            removed_at double precision,
            CHECK ((hash IS NULL) = (removed_at IS NOT NULL))
        )
        ;

        CREATE TABLE metadata_blob (
            id integer PRIMARY KEY CHECK (id = 1),
            number bigint NOT NULL,
            blob bytea NOT NULL,
            stored_at double precision NOT NULL
        )
        ;

        -- Rate-limit counts per key and fixed window (its start divided by its length),
        -- every instance counting into the same rows.
        CREATE TABLE request_counts (
            key text NOT NULL,
            window_index bigint NOT NULL,
            count integer NOT NULL,
            window_end double precision NOT NULL,
            PRIMARY KEY (key, window_index)
        )
        ;
        CREATE INDEX request_counts_window_end ON request_counts(window_end)
        ;
        """

    /// A login's finish in one round trip: everything ``PostgresStorage/completeCeremony(_:)``
    /// writes for a passkey sign-in that starts a token session, as one function call, so
    /// that the ceremony key, the passkey's use, the audit events, the session and its
    /// refresh token commit together in one statement. A use refused as stale raises
    /// `LK001` (nothing written, the key included); a family of another user or client
    /// raises `LK002`. Text arrays carry NULL as the empty string.
    private static let v2 = """
        CREATE FUNCTION latchkey_finish_login(
            p_key bytea,
            p_credential_id bytea, p_sign_count bigint, p_backed_up boolean, p_user_verified boolean, p_used_at double precision,
            p_regressed boolean, p_checks boolean, p_verified_count bigint, p_owner_updated_at double precision,
            p_event_times double precision[], p_event_kinds text[], p_event_users text[], p_event_clients text[],
            p_event_credentials text[], p_event_details text[],
            p_family_id text, p_user_id text, p_client_id text, p_started_at double precision, p_session_credential bytea,
            p_token_hash bytea, p_scopes text[], p_audience text, p_authenticated_at double precision, p_token_user_verified boolean,
            p_password_sign_in boolean, p_issued_at double precision, p_expires_at double precision
        ) RETURNS boolean LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO finished_ceremonies (key) VALUES (p_key) ON CONFLICT (key) DO NOTHING;
            IF NOT FOUND THEN
                RETURN false;
            END IF;
            UPDATE credentials SET
                sign_count = p_sign_count, backed_up = p_backed_up, user_verified = (user_verified OR p_user_verified),
                last_used_at = p_used_at, sign_count_regressed = (sign_count_regressed OR p_regressed)
            WHERE id = p_credential_id AND (NOT p_checks OR (
                sign_count = p_verified_count AND NOT disabled
                AND (SELECT updated_at FROM users WHERE users.id = credentials.user_id) = p_owner_updated_at
            ));
            IF p_checks AND NOT FOUND THEN
                RAISE EXCEPTION 'the passkey changed since the login was verified' USING ERRCODE = 'LK001';
            END IF;
            INSERT INTO audit_events (time, kind, user_id, client_id, credential_id, detail)
                SELECT t, k, NULLIF(u, ''), NULLIF(c, ''), NULLIF(cr, ''), d
                FROM unnest(p_event_times, p_event_kinds, p_event_users, p_event_clients, p_event_credentials, p_event_details) AS e(t, k, u, c, cr, d);
            IF p_family_id IS NOT NULL THEN
                INSERT INTO refresh_token_families (id, user_id, client_id, created_at, revoked_at, credential_id)
                    VALUES (p_family_id, p_user_id, p_client_id, p_started_at, NULL, p_session_credential)
                    ON CONFLICT (id) DO NOTHING;
                IF NOT FOUND THEN
                    PERFORM 1 FROM refresh_token_families WHERE id = p_family_id AND user_id = p_user_id AND client_id = p_client_id;
                    IF NOT FOUND THEN
                        RAISE EXCEPTION 'refresh token family % belongs to another user or client', p_family_id USING ERRCODE = 'LK002';
                    END IF;
                END IF;
                IF p_token_hash IS NOT NULL THEN
                    INSERT INTO refresh_tokens (
                        token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at,
                        user_verified, password_sign_in, issued_at, expires_at, used_at
                    ) VALUES (
                        p_token_hash, p_family_id, p_user_id, p_client_id, p_scopes, p_audience, p_authenticated_at,
                        p_token_user_verified, p_password_sign_in, p_issued_at, p_expires_at, NULL
                    );
                END IF;
            END IF;
            RETURN true;
        END
        $$
        """

    /// A sign-up's finish in one round trip, as v2 did for logins: `latchkey_finish_signup`
    /// writes the ceremony key, the account, its first passkey, the events and the session
    /// in one statement. What both finishes write after their own part (the events, the
    /// token session) moves into `latchkey_record_finish`, which the login function now
    /// calls too. Parameters named `u_` are the users columns, `c_` the credentials columns.
    private static let v3 = """
        CREATE FUNCTION latchkey_record_finish(
            p_event_times double precision[], p_event_kinds text[], p_event_users text[], p_event_clients text[],
            p_event_credentials text[], p_event_details text[],
            p_family_id text, p_user_id text, p_client_id text, p_started_at double precision, p_session_credential bytea,
            p_token_hash bytea, p_scopes text[], p_audience text, p_authenticated_at double precision, p_token_user_verified boolean,
            p_password_sign_in boolean, p_issued_at double precision, p_expires_at double precision
        ) RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO audit_events (time, kind, user_id, client_id, credential_id, detail)
                SELECT t, k, NULLIF(u, ''), NULLIF(c, ''), NULLIF(cr, ''), d
                FROM unnest(p_event_times, p_event_kinds, p_event_users, p_event_clients, p_event_credentials, p_event_details) AS e(t, k, u, c, cr, d);
            IF p_family_id IS NOT NULL THEN
                INSERT INTO refresh_token_families (id, user_id, client_id, created_at, revoked_at, credential_id)
                    VALUES (p_family_id, p_user_id, p_client_id, p_started_at, NULL, p_session_credential)
                    ON CONFLICT (id) DO NOTHING;
                IF NOT FOUND THEN
                    PERFORM 1 FROM refresh_token_families WHERE id = p_family_id AND user_id = p_user_id AND client_id = p_client_id;
                    IF NOT FOUND THEN
                        RAISE EXCEPTION 'refresh token family % belongs to another user or client', p_family_id USING ERRCODE = 'LK002';
                    END IF;
                END IF;
                IF p_token_hash IS NOT NULL THEN
                    INSERT INTO refresh_tokens (
                        token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at,
                        user_verified, password_sign_in, issued_at, expires_at, used_at
                    ) VALUES (
                        p_token_hash, p_family_id, p_user_id, p_client_id, p_scopes, p_audience, p_authenticated_at,
                        p_token_user_verified, p_password_sign_in, p_issued_at, p_expires_at, NULL
                    );
                END IF;
            END IF;
        END
        $$
        ;
        CREATE OR REPLACE FUNCTION latchkey_finish_login(
            p_key bytea,
            p_credential_id bytea, p_sign_count bigint, p_backed_up boolean, p_user_verified boolean, p_used_at double precision,
            p_regressed boolean, p_checks boolean, p_verified_count bigint, p_owner_updated_at double precision,
            p_event_times double precision[], p_event_kinds text[], p_event_users text[], p_event_clients text[],
            p_event_credentials text[], p_event_details text[],
            p_family_id text, p_user_id text, p_client_id text, p_started_at double precision, p_session_credential bytea,
            p_token_hash bytea, p_scopes text[], p_audience text, p_authenticated_at double precision, p_token_user_verified boolean,
            p_password_sign_in boolean, p_issued_at double precision, p_expires_at double precision
        ) RETURNS boolean LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO finished_ceremonies (key) VALUES (p_key) ON CONFLICT (key) DO NOTHING;
            IF NOT FOUND THEN
                RETURN false;
            END IF;
            UPDATE credentials SET
                sign_count = p_sign_count, backed_up = p_backed_up, user_verified = (user_verified OR p_user_verified),
                last_used_at = p_used_at, sign_count_regressed = (sign_count_regressed OR p_regressed)
            WHERE id = p_credential_id AND (NOT p_checks OR (
                sign_count = p_verified_count AND NOT disabled
                AND (SELECT updated_at FROM users WHERE users.id = credentials.user_id) = p_owner_updated_at
            ));
            IF p_checks AND NOT FOUND THEN
                RAISE EXCEPTION 'the passkey changed since the login was verified' USING ERRCODE = 'LK001';
            END IF;
            PERFORM latchkey_record_finish(
                p_event_times, p_event_kinds, p_event_users, p_event_clients, p_event_credentials, p_event_details,
                p_family_id, p_user_id, p_client_id, p_started_at, p_session_credential, p_token_hash, p_scopes, p_audience,
                p_authenticated_at, p_token_user_verified, p_password_sign_in, p_issued_at, p_expires_at
            );
            RETURN true;
        END
        $$
        ;
        CREATE FUNCTION latchkey_finish_signup(
            p_key bytea,
            u_id text, u_user_handle bytea, u_email text, u_phone_number text, u_username text, u_name text, u_given_name text,
            u_family_name text, u_nickname text, u_picture text, u_created_at double precision, u_updated_at double precision,
            c_id bytea, c_public_key bytea, c_algorithm bigint, c_sign_count bigint, c_backup_eligible boolean, c_backed_up boolean,
            c_user_verified boolean, c_transports text[], c_aaguid text, c_attestation_format text, c_attestation_trusted boolean,
            c_relying_party_id text, c_name text, c_created_at double precision, c_last_used_at double precision,
            c_sign_count_regressed boolean, c_record_id text, c_disabled boolean, c_origin text, c_metadata_entry text,
            c_metadata_description text, c_metadata_status text,
            p_event_times double precision[], p_event_kinds text[], p_event_users text[], p_event_clients text[],
            p_event_credentials text[], p_event_details text[],
            p_family_id text, p_user_id text, p_client_id text, p_started_at double precision, p_session_credential bytea,
            p_token_hash bytea, p_scopes text[], p_audience text, p_authenticated_at double precision, p_token_user_verified boolean,
            p_password_sign_in boolean, p_issued_at double precision, p_expires_at double precision
        ) RETURNS boolean LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO finished_ceremonies (key) VALUES (p_key) ON CONFLICT (key) DO NOTHING;
            IF NOT FOUND THEN
                RETURN false;
            END IF;
            INSERT INTO users (id, user_handle, email, phone_number, username, name, given_name, family_name, nickname, picture, created_at, updated_at)
                VALUES (u_id, u_user_handle, u_email, u_phone_number, u_username, u_name, u_given_name, u_family_name, u_nickname, u_picture,
                    u_created_at, u_updated_at);
            INSERT INTO credentials (
                id, user_id, public_key, algorithm, sign_count, backup_eligible, backed_up, user_verified, transports, aaguid,
                attestation_format, attestation_trusted, relying_party_id, name, created_at, last_used_at, sign_count_regressed,
                record_id, disabled, origin, metadata_entry, metadata_description, metadata_status
            ) VALUES (
                c_id, u_id, c_public_key, c_algorithm, c_sign_count, c_backup_eligible, c_backed_up, c_user_verified, c_transports, c_aaguid,
                c_attestation_format, c_attestation_trusted, c_relying_party_id, c_name, c_created_at, c_last_used_at, c_sign_count_regressed,
                c_record_id, c_disabled, c_origin, c_metadata_entry, c_metadata_description, c_metadata_status
            );
            PERFORM latchkey_record_finish(
                p_event_times, p_event_kinds, p_event_users, p_event_clients, p_event_credentials, p_event_details,
                p_family_id, p_user_id, p_client_id, p_started_at, p_session_credential, p_token_hash, p_scopes, p_audience,
                p_authenticated_at, p_token_user_verified, p_password_sign_in, p_issued_at, p_expires_at
            );
            RETURN true;
        END
        $$
        """

    /// Consents: which clients that are not first-party a person allowed, for which scopes.
    private static let v4 = """
        CREATE TABLE consents (
            user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            client_id text NOT NULL,
            scopes text[] NOT NULL,
            granted_at double precision NOT NULL,
            PRIMARY KEY (user_id, client_id)
        )
        """

    /// Every session records how its person signed in, and a passkey an administrator turned
    /// off says so (SQLite's v11, with the same reasoning for existing rows). The finish
    /// functions (v2, v3) write only sessions a passkey started, so they keep writing the
    /// default.
    private static let v5 = """
        ALTER TABLE refresh_token_families ADD COLUMN method text NOT NULL DEFAULT 'passkey'
            CONSTRAINT refresh_token_families_method_check CHECK (method IN ('passkey', 'password'))
        ;
        ALTER TABLE browser_sessions ADD COLUMN method text NOT NULL DEFAULT 'passkey'
            CONSTRAINT browser_sessions_method_check CHECK (method IN ('passkey', 'password'))
        ;
        ALTER TABLE authorization_codes ADD COLUMN method text NOT NULL DEFAULT 'passkey'
            CONSTRAINT authorization_codes_method_check CHECK (method IN ('passkey', 'password'))
        ;
        ALTER TABLE credentials ADD COLUMN disabled_by_admin boolean NOT NULL DEFAULT false
        ;
        UPDATE refresh_token_families SET method = 'password'
            WHERE credential_id IS NULL OR id IN (SELECT family_id FROM refresh_tokens WHERE password_sign_in)
        ;
        UPDATE browser_sessions SET method = 'password' WHERE credential_id IS NULL
        ;
        UPDATE authorization_codes SET method = 'password' WHERE credential_id IS NULL
        """

    /// A login writes three rows, not five. The ceremony's single use is recorded by its first
    /// audit event (`audit_events.ceremony_key`, unique) rather than a row of its own; a
    /// completion without events still uses `finished_ceremonies`, and an advisory lock on the
    /// key makes the two one decision. A session's first refresh token lives in its family's
    /// row (the `token_hash` columns); the tokens rotated from it in `refresh_tokens`, and
    /// `refresh_token_records` reads both. The failed-finish limit is checked in the finish's
    /// own statement (`p_gate_*`, see `FailureCheck`), and credentials keep room on each page
    /// for the login's update to stay on its page (HOT: no index entries written).
    ///
    /// The finish functions change their parameters, so instances older than this migration
    /// cannot finish ceremonies against it: upgrade every instance together.
    private static let v6 = """
        ALTER TABLE audit_events ADD COLUMN ceremony_key bytea
        ;
        CREATE UNIQUE INDEX audit_events_ceremony_key ON audit_events(ceremony_key)
        ;
        ALTER TABLE refresh_token_families
            ADD COLUMN token_hash bytea CONSTRAINT refresh_token_families_token_hash_key UNIQUE,
            ADD COLUMN scopes text[], ADD COLUMN audience text, ADD COLUMN authenticated_at double precision,
            ADD COLUMN user_verified boolean, ADD COLUMN password_sign_in boolean, ADD COLUMN issued_at double precision,
            ADD COLUMN expires_at double precision, ADD COLUMN used_at double precision
        ;
        ALTER TABLE credentials SET (fillfactor = 80)
        ;
        CREATE VIEW refresh_token_records AS
            SELECT token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at, user_verified, password_sign_in,
                issued_at, expires_at, used_at
            FROM refresh_tokens
            UNION ALL
            SELECT token_hash, id, user_id, client_id, scopes, audience, authenticated_at, user_verified, password_sign_in,
                issued_at, expires_at, used_at
            FROM refresh_token_families WHERE token_hash IS NOT NULL
        ;
        DROP FUNCTION latchkey_finish_login
        ;
        DROP FUNCTION latchkey_finish_signup
        ;
        DROP FUNCTION latchkey_record_finish
        ;
        CREATE FUNCTION latchkey_claim_ceremony(
            p_key bytea,
            p_event_times double precision[], p_event_kinds text[], p_event_users text[], p_event_clients text[],
            p_event_credentials text[], p_event_details text[],
            p_gate_key text, p_gate_window bigint, p_gate_weight double precision, p_gate_limit bigint
        ) RETURNS boolean LANGUAGE plpgsql AS $$
        BEGIN
            -- The failed-finish limit: refused (NULL) before anything is written.
            IF p_gate_key IS NOT NULL AND
                COALESCE((SELECT count FROM request_counts WHERE key = p_gate_key AND window_index = p_gate_window), 0)
                + ceil(COALESCE((SELECT count FROM request_counts WHERE key = p_gate_key AND window_index = p_gate_window - 1), 0) * p_gate_weight)
                >= p_gate_limit
            THEN
                RETURN NULL;
            END IF;
            PERFORM pg_advisory_xact_lock(hashtextextended(encode(p_key, 'hex'), 0));
            PERFORM 1 FROM finished_ceremonies WHERE key = p_key;
            IF FOUND THEN
                RETURN false;
            END IF;
            IF cardinality(p_event_times) = 0 THEN
                PERFORM 1 FROM audit_events WHERE ceremony_key = p_key;
                IF FOUND THEN
                    RETURN false;
                END IF;
                INSERT INTO finished_ceremonies (key) VALUES (p_key);
                RETURN true;
            END IF;
            INSERT INTO audit_events (time, kind, user_id, client_id, credential_id, detail, ceremony_key)
                VALUES (p_event_times[1], p_event_kinds[1], NULLIF(p_event_users[1], ''), NULLIF(p_event_clients[1], ''),
                    NULLIF(p_event_credentials[1], ''), p_event_details[1], p_key)
                ON CONFLICT (ceremony_key) DO NOTHING;
            IF NOT FOUND THEN
                RETURN false;
            END IF;
            IF cardinality(p_event_times) > 1 THEN
                INSERT INTO audit_events (time, kind, user_id, client_id, credential_id, detail)
                    SELECT t, k, NULLIF(u, ''), NULLIF(c, ''), NULLIF(cr, ''), d
                    FROM unnest(p_event_times[2:], p_event_kinds[2:], p_event_users[2:], p_event_clients[2:],
                        p_event_credentials[2:], p_event_details[2:]) AS e(t, k, u, c, cr, d);
            END IF;
            RETURN true;
        END
        $$
        ;
        CREATE FUNCTION latchkey_start_session(
            p_family_id text, p_user_id text, p_client_id text, p_started_at double precision, p_session_credential bytea, p_method text,
            p_token_hash bytea, p_scopes text[], p_audience text, p_authenticated_at double precision, p_token_user_verified boolean,
            p_password_sign_in boolean, p_issued_at double precision, p_expires_at double precision
        ) RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
            IF p_family_id IS NULL THEN
                RETURN;
            END IF;
            INSERT INTO refresh_token_families (
                id, user_id, client_id, created_at, revoked_at, credential_id, method,
                token_hash, scopes, audience, authenticated_at, user_verified, password_sign_in, issued_at, expires_at, used_at
            ) VALUES (
                p_family_id, p_user_id, p_client_id, p_started_at, NULL, p_session_credential, p_method,
                p_token_hash, CASE WHEN p_token_hash IS NOT NULL THEN p_scopes END, p_audience, p_authenticated_at, p_token_user_verified,
                p_password_sign_in, p_issued_at, p_expires_at, NULL
            ) ON CONFLICT (id) DO NOTHING;
            IF FOUND THEN
                RETURN;
            END IF;
            -- A family is one login of one user at one client: a token claiming otherwise is a
            -- bug in the caller, and storing it would let rotation hand out tokens across accounts.
            PERFORM 1 FROM refresh_token_families WHERE id = p_family_id AND user_id = p_user_id AND client_id = p_client_id;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'refresh token family % belongs to another user or client', p_family_id USING ERRCODE = 'LK002';
            END IF;
            IF p_token_hash IS NOT NULL THEN
                INSERT INTO refresh_tokens (
                    token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at,
                    user_verified, password_sign_in, issued_at, expires_at, used_at
                ) VALUES (
                    p_token_hash, p_family_id, p_user_id, p_client_id, p_scopes, p_audience, p_authenticated_at,
                    p_token_user_verified, p_password_sign_in, p_issued_at, p_expires_at, NULL
                );
            END IF;
        END
        $$
        ;
        CREATE FUNCTION latchkey_finish_login(
            p_key bytea,
            p_credential_id bytea, p_sign_count bigint, p_backed_up boolean, p_user_verified boolean, p_used_at double precision,
            p_regressed boolean, p_checks boolean, p_verified_count bigint, p_owner_updated_at double precision,
            p_event_times double precision[], p_event_kinds text[], p_event_users text[], p_event_clients text[],
            p_event_credentials text[], p_event_details text[],
            p_gate_key text, p_gate_window bigint, p_gate_weight double precision, p_gate_limit bigint,
            p_family_id text, p_user_id text, p_client_id text, p_started_at double precision, p_session_credential bytea, p_method text,
            p_token_hash bytea, p_scopes text[], p_audience text, p_authenticated_at double precision, p_token_user_verified boolean,
            p_password_sign_in boolean, p_issued_at double precision, p_expires_at double precision
        ) RETURNS boolean LANGUAGE plpgsql AS $$
        DECLARE
            claimed boolean;
        BEGIN
            claimed := latchkey_claim_ceremony(
                p_key, p_event_times, p_event_kinds, p_event_users, p_event_clients, p_event_credentials, p_event_details,
                p_gate_key, p_gate_window, p_gate_weight, p_gate_limit
            );
            IF claimed IS NOT TRUE THEN
                RETURN claimed;
            END IF;
            UPDATE credentials SET
                sign_count = p_sign_count, backed_up = p_backed_up, user_verified = (user_verified OR p_user_verified),
                last_used_at = p_used_at, sign_count_regressed = (sign_count_regressed OR p_regressed)
            WHERE id = p_credential_id AND (NOT p_checks OR (
                sign_count = p_verified_count AND NOT disabled
                AND (SELECT updated_at FROM users WHERE users.id = credentials.user_id) = p_owner_updated_at
            ));
            IF p_checks AND NOT FOUND THEN
                RAISE EXCEPTION 'the passkey changed since the login was verified' USING ERRCODE = 'LK001';
            END IF;
            PERFORM latchkey_start_session(
                p_family_id, p_user_id, p_client_id, p_started_at, p_session_credential, p_method, p_token_hash, p_scopes, p_audience,
                p_authenticated_at, p_token_user_verified, p_password_sign_in, p_issued_at, p_expires_at
            );
            RETURN true;
        END
        $$
        ;
        CREATE FUNCTION latchkey_finish_signup(
            p_key bytea,
            u_id text, u_user_handle bytea, u_email text, u_phone_number text, u_username text, u_name text, u_given_name text,
            u_family_name text, u_nickname text, u_picture text, u_created_at double precision, u_updated_at double precision,
            c_id bytea, c_public_key bytea, c_algorithm bigint, c_sign_count bigint, c_backup_eligible boolean, c_backed_up boolean,
            c_user_verified boolean, c_transports text[], c_aaguid text, c_attestation_format text, c_attestation_trusted boolean,
            c_relying_party_id text, c_name text, c_created_at double precision, c_last_used_at double precision,
            c_sign_count_regressed boolean, c_record_id text, c_disabled boolean, c_origin text, c_metadata_entry text,
            c_metadata_description text, c_metadata_status text,
            p_event_times double precision[], p_event_kinds text[], p_event_users text[], p_event_clients text[],
            p_event_credentials text[], p_event_details text[],
            p_gate_key text, p_gate_window bigint, p_gate_weight double precision, p_gate_limit bigint,
            p_family_id text, p_user_id text, p_client_id text, p_started_at double precision, p_session_credential bytea, p_method text,
            p_token_hash bytea, p_scopes text[], p_audience text, p_authenticated_at double precision, p_token_user_verified boolean,
            p_password_sign_in boolean, p_issued_at double precision, p_expires_at double precision
        ) RETURNS boolean LANGUAGE plpgsql AS $$
        DECLARE
            claimed boolean;
        BEGIN
            claimed := latchkey_claim_ceremony(
                p_key, p_event_times, p_event_kinds, p_event_users, p_event_clients, p_event_credentials, p_event_details,
                p_gate_key, p_gate_window, p_gate_weight, p_gate_limit
            );
            IF claimed IS NOT TRUE THEN
                RETURN claimed;
            END IF;
            INSERT INTO users (id, user_handle, email, phone_number, username, name, given_name, family_name, nickname, picture, created_at, updated_at)
                VALUES (u_id, u_user_handle, u_email, u_phone_number, u_username, u_name, u_given_name, u_family_name, u_nickname, u_picture,
                    u_created_at, u_updated_at);
            INSERT INTO credentials (
                id, user_id, public_key, algorithm, sign_count, backup_eligible, backed_up, user_verified, transports, aaguid,
                attestation_format, attestation_trusted, relying_party_id, name, created_at, last_used_at, sign_count_regressed,
                record_id, disabled, origin, metadata_entry, metadata_description, metadata_status
            ) VALUES (
                c_id, u_id, c_public_key, c_algorithm, c_sign_count, c_backup_eligible, c_backed_up, c_user_verified, c_transports, c_aaguid,
                c_attestation_format, c_attestation_trusted, c_relying_party_id, c_name, c_created_at, c_last_used_at, c_sign_count_regressed,
                c_record_id, c_disabled, c_origin, c_metadata_entry, c_metadata_description, c_metadata_status
            );
            PERFORM latchkey_start_session(
                p_family_id, p_user_id, p_client_id, p_started_at, p_session_credential, p_method, p_token_hash, p_scopes, p_audience,
                p_authenticated_at, p_token_user_verified, p_password_sign_in, p_issued_at, p_expires_at
            );
            RETURN true;
        END
        $$
        """

    /// Getting people back in: the verified state of addresses, the mail outbox, emailed
    /// one-time codes (a keyed hash, one per user and purpose) and saved recovery codes, as
    /// SQLite's v12. A message's body is erased once it is sent or given up.
    static let v7 = """
        ALTER TABLE users ADD COLUMN email_verified_at double precision, ADD COLUMN phone_number_verified_at double precision
        ;
        ALTER TABLE browser_sessions ADD COLUMN recovery boolean NOT NULL DEFAULT false
        ;
        CREATE TABLE mail_outbox (
            id text PRIMARY KEY,
            kind text NOT NULL,
            recipient text NOT NULL,
            recipient_name text,
            subject text NOT NULL,
            text_body text NOT NULL,
            html_body text NOT NULL,
            created_at double precision NOT NULL,
            status text NOT NULL DEFAULT 'pending' CONSTRAINT mail_outbox_status_check CHECK (status IN ('pending', 'sent', 'failed')),
            attempts integer NOT NULL DEFAULT 0,
            due_at double precision NOT NULL,
            last_error text,
            finished_at double precision
        )
        ;
        CREATE INDEX mail_outbox_due ON mail_outbox (due_at) WHERE status = 'pending'
        ;
        CREATE INDEX mail_outbox_created ON mail_outbox (created_at)
        ;
        CREATE TABLE one_time_codes (
            user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            purpose text NOT NULL,
            code_hash bytea NOT NULL,
            address text NOT NULL,
            created_at double precision NOT NULL,
            expires_at double precision NOT NULL,
            attempts integer NOT NULL DEFAULT 0,
            CONSTRAINT one_time_codes_pkey PRIMARY KEY (user_id, purpose)
        )
        ;
        CREATE TABLE recovery_codes (
            user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            id text NOT NULL,
            code_hash text NOT NULL,
            created_at double precision NOT NULL,
            used_at double precision,
            CONSTRAINT recovery_codes_pkey PRIMARY KEY (user_id, id)
        )
        """

    /// Operating it, as SQLite's v13: admin API keys (only their SHA-256), accounts an
    /// administrator turned off, the actor of an audit event and its request (address, user
    /// agent, face: columns whose default reads the transaction's `latchkey.origin` setting,
    /// which the finish functions' statements set, so that the functions need no new
    /// parameters), the directory's order (IDs
    /// compared as bytes, as SQLite does), and the webhooks' outbox, written by a trigger on
    /// the audit trail in the transaction of the event it reports. The trigger is on only
    /// while some endpoint subscribes (see `replaceWebhookSubscriptions`), so that a login
    /// pays nothing for webhooks nobody configured.
    static let v8 = """
        ALTER TABLE users ADD COLUMN disabled_at double precision
        ;
        ALTER TABLE audit_events ADD COLUMN actor text
        ;
        ALTER TABLE audit_events
            ADD COLUMN ip text DEFAULT nullif(split_part(current_setting('latchkey.origin', true), chr(31), 1), ''),
            ADD COLUMN user_agent text DEFAULT nullif(split_part(current_setting('latchkey.origin', true), chr(31), 2), ''),
            ADD COLUMN face text DEFAULT nullif(split_part(current_setting('latchkey.origin', true), chr(31), 3), '')
        ;
        CREATE INDEX users_created_at_id ON users (created_at, id COLLATE "C")
        ;
        CREATE TABLE admin_keys (
            id text PRIMARY KEY,
            name text NOT NULL,
            scopes text NOT NULL,
            key_hash bytea NOT NULL CONSTRAINT admin_keys_key_hash_key UNIQUE,
            created_at double precision NOT NULL,
            last_used_at double precision,
            revoked_at double precision
        )
        ;
        CREATE TABLE webhook_subscriptions (
            kind text NOT NULL,
            endpoint_id text NOT NULL,
            CONSTRAINT webhook_subscriptions_pkey PRIMARY KEY (kind, endpoint_id)
        )
        ;
        CREATE TABLE webhook_endpoints_off (
            endpoint_id text PRIMARY KEY,
            reason text NOT NULL,
            disabled_at double precision NOT NULL
        )
        ;
        CREATE TABLE webhook_deliveries (
            position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text NOT NULL CONSTRAINT webhook_deliveries_id_key UNIQUE,
            endpoint_id text NOT NULL,
            event_id bigint NOT NULL,
            status text NOT NULL DEFAULT 'pending' CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed')),
            attempts integer NOT NULL DEFAULT 0,
            next_attempt_at double precision NOT NULL,
            last_status text,
            last_error text,
            created_at double precision NOT NULL,
            delivered_at double precision
        )
        ;
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'
        ;
        CREATE FUNCTION latchkey_audit_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at, created_at)
            SELECT 'msg_' || NEW.id || '_' || s.endpoint_id, s.endpoint_id, NEW.id, NEW.time, NEW.time
            FROM webhook_subscriptions s
            WHERE s.kind = NEW.kind AND NOT EXISTS (SELECT 1 FROM webhook_endpoints_off o WHERE o.endpoint_id = s.endpoint_id)
            ON CONFLICT DO NOTHING;
            RETURN NULL;
        END
        $$
        ;
        CREATE TRIGGER audit_events_webhooks AFTER INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION latchkey_audit_webhooks()
        ;
        ALTER TABLE audit_events DISABLE TRIGGER audit_events_webhooks
        """

    /// A lighter login (see ``LoginFinish``).
    ///
    /// - `latchkey_refuse` raises an error with a given SQLSTATE, which a statement cannot do
    ///   on its own, so that a login's one statement can roll back everything it wrote.
    /// - A session no longer checks its user with a foreign key. The check locked the user's
    ///   row on every login (`FOR KEY SHARE`), which wrote a WAL record and dirtied the users
    ///   table's page, often with a full-page image: half a login's WAL. A login's update of its
    ///   passkey already proves the user exists at commit (deleting a user deletes the passkey
    ///   first, and the two updates wait for each other). Every other session's start
    ///   (`latchkey_start_session`) makes the foreign key's check itself, and a trigger keeps
    ///   what its cascade did: deleting a user deletes their sessions, whichever version of
    ///   Latchkey deletes it.
    ///
    /// - The two indexes by time that only the purges read (`audit_events_time`,
    ///   `refresh_token_families_created_at`) are block-range (BRIN) indexes: rows arrive in
    ///   time order, so a range's summary finds them, and an insert into the table's newest,
    ///   not yet summarized range writes nothing to the index. A B-tree insert was two of a
    ///   login's nine index entries, and their share of its WAL.
    /// - Sessions lose their index by credential: revoking a passkey's sessions finds them by
    ///   the passkey's user, whose index sessions have anyway.
    ///
    /// The v6 functions stay for instances that still call them.
    static let v9 = """
        CREATE FUNCTION latchkey_refuse(p_state text, p_message text) RETURNS boolean LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION USING ERRCODE = p_state, MESSAGE = p_message;
        END
        $$
        ;
        ALTER TABLE refresh_token_families DROP CONSTRAINT refresh_token_families_user_id_fkey
        ;
        CREATE FUNCTION latchkey_delete_user_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM refresh_token_families WHERE user_id = OLD.id;
            RETURN NULL;
        END
        $$
        ;
        CREATE TRIGGER users_delete_sessions AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION latchkey_delete_user_sessions()
        ;
        DROP INDEX audit_events_time
        ;
        CREATE INDEX audit_events_time ON audit_events USING brin (time)
        ;
        DROP INDEX refresh_token_families_created_at
        ;
        CREATE INDEX refresh_token_families_created_at ON refresh_token_families USING brin (created_at)
        ;
        DROP INDEX refresh_token_families_credential_id
        ;
        CREATE OR REPLACE FUNCTION latchkey_start_session(
            p_family_id text, p_user_id text, p_client_id text, p_started_at double precision, p_session_credential bytea, p_method text,
            p_token_hash bytea, p_scopes text[], p_audience text, p_authenticated_at double precision, p_token_user_verified boolean,
            p_password_sign_in boolean, p_issued_at double precision, p_expires_at double precision
        ) RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
            IF p_family_id IS NULL THEN
                RETURN;
            END IF;
            -- What the foreign key checked: the user exists, and stays until this commits.
            PERFORM 1 FROM users WHERE id = p_user_id FOR KEY SHARE;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'a session of user %, who does not exist', p_user_id USING ERRCODE = 'foreign_key_violation';
            END IF;
            INSERT INTO refresh_token_families (
                id, user_id, client_id, created_at, revoked_at, credential_id, method,
                token_hash, scopes, audience, authenticated_at, user_verified, password_sign_in, issued_at, expires_at, used_at
            ) VALUES (
                p_family_id, p_user_id, p_client_id, p_started_at, NULL, p_session_credential, p_method,
                p_token_hash, CASE WHEN p_token_hash IS NOT NULL THEN p_scopes END, p_audience, p_authenticated_at, p_token_user_verified,
                p_password_sign_in, p_issued_at, p_expires_at, NULL
            ) ON CONFLICT (id) DO NOTHING;
            IF FOUND THEN
                RETURN;
            END IF;
            -- A family is one login of one user at one client: a token claiming otherwise is a
            -- bug in the caller, and storing it would let rotation hand out tokens across accounts.
            PERFORM 1 FROM refresh_token_families WHERE id = p_family_id AND user_id = p_user_id AND client_id = p_client_id;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'refresh token family % belongs to another user or client', p_family_id USING ERRCODE = 'LK002';
            END IF;
            IF p_token_hash IS NOT NULL THEN
                INSERT INTO refresh_tokens (
                    token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at,
                    user_verified, password_sign_in, issued_at, expires_at, used_at
                ) VALUES (
                    p_token_hash, p_family_id, p_user_id, p_client_id, p_scopes, p_audience, p_authenticated_at,
                    p_token_user_verified, p_password_sign_in, p_issued_at, p_expires_at, NULL
                );
            END IF;
        END
        $$
        """

    /// Codes that cannot be ground down, as SQLite's v14: a one-time code's place in its
    /// series of re-issues, codes without a foreign key to users (a stand-in's code for an
    /// address no account recovers through; a trigger deletes a deleted user's), per-account
    /// counters, a saved recovery code's lookup key, `enrollment:write` for every key that
    /// holds `credentials:write`, and each signing key's algorithm. 0.12 instances keep
    /// working against it (they sign with the newest unretired key, which may then be an RSA
    /// key they cannot read: replace them before RSA keys exist, at the first start of 0.13).
    static let v10 = """
        ALTER TABLE one_time_codes DROP CONSTRAINT one_time_codes_user_id_fkey
        ;
        ALTER TABLE one_time_codes ADD COLUMN issued integer NOT NULL DEFAULT 1
        ;
        CREATE TABLE account_counters (
            subject text NOT NULL,
            counter text NOT NULL,
            count integer NOT NULL,
            expires_at double precision,
            CONSTRAINT account_counters_pkey PRIMARY KEY (subject, counter)
        )
        ;
        CREATE FUNCTION latchkey_delete_user_codes() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM one_time_codes WHERE user_id = OLD.id;
            DELETE FROM account_counters WHERE subject = OLD.id;
            RETURN NULL;
        END
        $$
        ;
        CREATE TRIGGER users_delete_codes AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION latchkey_delete_user_codes()
        ;
        ALTER TABLE recovery_codes ADD COLUMN lookup_key bytea
        ;
        UPDATE admin_keys SET scopes = scopes || ',enrollment:write' WHERE ',' || scopes || ',' LIKE '%,credentials:write,%'
        ;
        ALTER TABLE signing_keys ADD COLUMN algorithm text NOT NULL DEFAULT 'ES256' CHECK (algorithm IN ('ES256', 'RS256', 'PS256'))
        """

    /// Back-channel logout, as SQLite's v15: the browser session a code was issued from,
    /// kept by the login session it starts; and the outbox of logout notices, written by a
    /// trigger on the sessions that is on only while some client wants them. A login's
    /// session has no browser session, so the partial index costs it nothing.
    static let v11 = """
        ALTER TABLE authorization_codes ADD COLUMN browser_session bytea
        ;
        ALTER TABLE refresh_token_families ADD COLUMN browser_session bytea
        ;
        CREATE INDEX refresh_token_families_browser_session ON refresh_token_families (browser_session) WHERE browser_session IS NOT NULL
        ;
        CREATE TABLE backchannel_logout_clients (
            client_id text NOT NULL PRIMARY KEY
        )
        ;
        CREATE TABLE backchannel_logouts (
            position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            client_id text NOT NULL,
            session_id text NOT NULL UNIQUE,
            user_id text NOT NULL,
            status text NOT NULL DEFAULT 'pending' CONSTRAINT backchannel_logouts_status_check CHECK (status IN ('pending', 'delivered', 'failed')),
            attempts integer NOT NULL DEFAULT 0,
            next_attempt_at double precision NOT NULL,
            last_status text,
            last_error text,
            created_at double precision NOT NULL,
            delivered_at double precision
        )
        ;
        CREATE INDEX backchannel_logouts_due ON backchannel_logouts (next_attempt_at) WHERE status = 'pending'
        ;
        CREATE FUNCTION latchkey_backchannel_logout() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO backchannel_logouts (client_id, session_id, user_id, next_attempt_at, created_at)
            SELECT NEW.client_id, NEW.id, NEW.user_id, NEW.revoked_at, NEW.revoked_at
            WHERE EXISTS (SELECT 1 FROM backchannel_logout_clients WHERE client_id = NEW.client_id)
            ON CONFLICT DO NOTHING;
            RETURN NULL;
        END
        $$
        ;
        CREATE TRIGGER refresh_token_families_backchannel_logout AFTER UPDATE OF revoked_at ON refresh_token_families
            FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL) EXECUTE FUNCTION latchkey_backchannel_logout()
        ;
        ALTER TABLE refresh_token_families DISABLE TRIGGER refresh_token_families_backchannel_logout
        """

    /// Imported accounts: which account each source ID became, so that importing a file
    /// again changes nothing. Deleting the account forgets its source ID too.
    private static let v12 = """
        CREATE TABLE imported_accounts (
            source text NOT NULL,
            source_id text NOT NULL,
            -- Checked at commit: an import claims its source ID before it writes the account.
            user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
            imported_at double precision NOT NULL,
            PRIMARY KEY (source, source_id)
        )
        ;
        CREATE INDEX imported_accounts_user ON imported_accounts (user_id)
        """

    /// What an imported account kept from its source: its ID there where it could not stay
    /// the account's ID (an Auth0 `user_id`), and the application's data about it.
    private static let v13 = """
        ALTER TABLE users ADD COLUMN external_id text
        ;
        ALTER TABLE users ADD COLUMN metadata text
        """

    /// How strongly the sign-in behind an authorization code authenticated, as the tokens
    /// it is exchanged for say (`acr`): SQLite's v18.
    private static let v14 = """
        ALTER TABLE authorization_codes ADD COLUMN acr text
        """

    /// The operator console: operators and the daily rollups (SQLite's v19).
    private static let v15 = """
        CREATE TABLE operators (
            user_id text NOT NULL PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            role text NOT NULL CHECK (role IN ('viewer', 'admin')),
            since double precision NOT NULL
        )
        ;
        CREATE TABLE daily_stats (
            day text NOT NULL,
            metric text NOT NULL,
            count bigint NOT NULL,
            PRIMARY KEY (day, metric)
        )
        ;
        CREATE TABLE stats_position (
            id integer NOT NULL PRIMARY KEY CHECK (id = 1),
            position bigint NOT NULL
        )
        ;
        INSERT INTO stats_position (id, position) VALUES (1, 0)
        ;
        CREATE TABLE account_activity (
            user_id text NOT NULL PRIMARY KEY,
            last_sign_in double precision NOT NULL,
            last_passkey_sign_in double precision
        )
        """

    /// Shared Signals streams, as SQLite's v20: a stream is one JSON document (its
    /// subscriptions and deliveries are the webhooks' outbox's, under `ssf:` endpoint IDs);
    /// and the pending deliveries by endpoint, for a stream's poll and the deletion of a
    /// stream's deliveries: being partial, it holds only what is still to send, so reading it
    /// costs what is pending, not the whole outbox. (It is built in the migration's
    /// transaction, which `CONCURRENTLY` cannot be: writes of deliveries wait meanwhile.)
    private static let v16 = """
        CREATE TABLE signal_streams (
            id text PRIMARY KEY,
            document text NOT NULL,
            created_at double precision NOT NULL
        )
        ;
        CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, position) WHERE status = 'pending'
        """
}
