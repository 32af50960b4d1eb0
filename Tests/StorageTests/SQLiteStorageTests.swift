import Foundation
import IdentityCore
import IdentityTestSupport
@testable import StorageSQLite
import Testing

/// What only the SQLite backend has: a file, a schema, migrations.
@Suite struct SQLiteStorageTests {
    @Test func migrationsAreIdempotent() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("latchkey.sqlite").path
            let first = try SQLiteStorage(path: path)
            #expect(try first.appliedMigrations() == SQLiteStorage.knownMigrations)
            try first.migrate()
            try first.close()

            // Opening migrates again, and so does the migrate command: both are no-ops.
            let second = try SQLiteStorage(path: path)
            #expect(try second.appliedMigrations() == SQLiteStorage.knownMigrations)
            try second.close()
            #expect(try SQLiteStorage.migrate(path: path) == [])
        }
    }

    @Test func migrateCommandPreparesANewFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("new.sqlite").path
            #expect(try SQLiteStorage.migrate(path: path) == SQLiteStorage.knownMigrations)
            let storage = try SQLiteStorage(path: path, runsMigrations: false)
            #expect(try storage.appliedMigrations() == SQLiteStorage.knownMigrations)
            try storage.close()
        }
    }

    @Test func openingWithoutMigratingRefusesAnOldSchema() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("empty.sqlite").path
            #expect {
                try SQLiteStorage(path: path, runsMigrations: false)
            } throws: { error in
                (error as? SQLiteStorageError)?.code == .schemaOutOfDate
            }
        }
    }

    @Test func aNewFileIsPrivate() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("latchkey.sqlite").path
            let storage = try SQLiteStorage(path: path)
            let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
            #expect(permissions?.int16Value == 0o600)
            try storage.close()
        }
    }

    @Test func dataSurvivesReopening() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("latchkey.sqlite").path
            let alice = StorageFixtures.user("alice", phoneNumber: "+15555550100")
            let credential = StorageFixtures.credential("alice-1", userID: alice.id, name: "Laptop")
            let hostile = StorageFixtures.user("mallory", email: "'; DROP TABLE users; --", username: String(repeating: "ß🧑🏽‍💻", count: 5_000))
            let token = StorageFixtures.refreshToken("t1", familyID: "family-1", userID: alice.id)
            let key = SigningKeyRecord(keyID: "k1", privateKey: Array(0...31), createdAt: StorageFixtures.time(0), retiredAt: nil)
            let event = AuditEvent(time: StorageFixtures.time(5), kind: .signup, userID: alice.id, clientID: "client-a", credentialID: "AP-A", detail: "ok", origin: nil)

            do {
                let storage = try SQLiteStorage(path: path)
                try await storage.createUser(alice, credential: credential)
                try await storage.createUser(hostile, credential: StorageFixtures.credential("mallory-1", userID: hostile.id))
                let use = CredentialUse(signCount: 9, isBackedUp: true, isUserVerified: true, usedAt: StorageFixtures.time(30), signCountRegressed: false)
                #expect(try await storage.completeCeremony(CeremonyCompletion(
                    key: StorageFixtures.ceremonyKey("c1"), credentialUse: .init(credentialID: credential.credentialID, use: use)
                )))
                try await storage.saveRefreshToken(token)
                try await storage.addSigningKey(key, at: StorageFixtures.time(0))
                try await storage.record(event)
                #expect(try await storage.secret(named: "decoy", orStore: [1, 2, 3]) == [1, 2, 3])
                try storage.close()
            }

            let reopened = try SQLiteStorage(path: path)
            #expect(try await reopened.user(identifier: .phoneNumber("+15555550100")) == alice)
            #expect(try await reopened.user(identifier: .email("'; DROP TABLE users; --")) == hostile)
            #expect(try await reopened.user(identifier: .username(String(repeating: "ß🧑🏽‍💻", count: 5_000))) == hostile)
            let stored = try #require(try await reopened.credential(id: credential.credentialID))
            #expect(stored.signCount == 9 && stored.isBackedUp && stored.isUserVerified && stored.lastUsedAt == StorageFixtures.time(30))
            #expect(try await reopened.completeCeremony(CeremonyCompletion(key: StorageFixtures.ceremonyKey("c1"))) == false, "the finished ceremony stays finished")
            #expect(try await reopened.isSessionActive(familyID: "family-1", userID: token.userID))
            let outcome = try await reopened.rotateRefreshToken(
                hash: token.tokenHash, clientID: "client-a", newHash: [9], newExpiresAt: StorageFixtures.time(9000), at: StorageFixtures.time(60)
            )
            #expect(outcome == .rotated(previous: token))
            #expect(try await reopened.signingKeys() == [key])
            #expect(try await reopened.events(userID: alice.id, limit: 10) == [event])
            #expect(try await reopened.secret(named: "decoy", orStore: [4]) == [1, 2, 3])
            try reopened.close()
        }
    }

    @Test func twoStoresOnOneFileSeeEachOther() async throws {
        // Two processes (a server and an admin command) share a file the same way.
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("latchkey.sqlite").path
            let server = try SQLiteStorage(path: path)
            let admin = try SQLiteStorage(path: path)
            let key = StorageFixtures.ceremonyKey("c1")
            async let fromServer = server.completeCeremony(CeremonyCompletion(key: key))
            async let fromAdmin = admin.completeCeremony(CeremonyCompletion(key: key))
            let results = try await [fromServer, fromAdmin]
            #expect(results.filter { $0 }.count == 1, "one completion across connections")
            try server.close()
            try admin.close()
        }
    }

    @Test func durabilityFullOpens() async throws {
        try await withTemporaryDirectory { directory in
            let storage = try SQLiteStorage(path: directory.appendingPathComponent("full.sqlite").path, durability: .full)
            #expect(try await storage.secret(named: "s", orStore: [1]) == [1])
            try storage.close()
        }
    }
}

/// The write-ahead log is copied into the file by the background checkpointer and stays
/// bounded under writes that never pause; what was written stays readable.
@Suite struct SQLiteCheckpointTests {
    @Test func theLogStaysBoundedUnderSustainedWrites() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("latchkey.sqlite").path
            let storage = try SQLiteStorage(path: path, checkpointFrames: 40)
            let alice = StorageFixtures.user("alice")
            let credential = StorageFixtures.credential("alice-1", userID: alice.id)
            try await storage.createUser(alice, credential: credential)
            for index in 0..<2000 {
                let event = AuditEvent(time: StorageFixtures.time(Double(index)), kind: .login, userID: alice.id, detail: String(repeating: "x", count: 200), origin: nil)
                #expect(try await storage.completeCeremony(CeremonyCompletion(key: StorageFixtures.ceremonyKey("k\(index)"), events: [event])))
            }
            // Give the checkpointer a moment to catch up with the last batch.
            try await Task.sleep(for: .milliseconds(300))
            let walBytes = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
            // Unbounded, 2000 transactions of a few pages each would leave tens of megabytes.
            #expect(walBytes < 4 * 40 * 4200 + 1_000_000, "the WAL is \(walBytes) bytes")
            #expect(try await storage.events(userID: alice.id, limit: 5000).count == 2000)
            #expect(try await storage.credential(id: credential.credentialID) == credential)
            try storage.close()
            let reopened = try SQLiteStorage(path: path)
            #expect(try await reopened.events(userID: alice.id, limit: 5000).count == 2000, "everything reached the file")
            try reopened.close()
        }
    }
}

/// A database written by an earlier build (schema v4, migrations listed where that build's
/// library listed them) upgrades in place, keeping every account, passkey, session and
/// event.
@Suite struct SQLiteUpgradeTests {
    @Test func aVersion4DatabaseUpgradesInPlace() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            do {
                let old = try Self.database(at: path, migratedTo: 4)
                try old.executeScript("""
                    INSERT INTO users (id, user_handle, email, created_at, updated_at) VALUES ('user-ada', x'0102', 'ada@example.com', 1, 1);
                    INSERT INTO credentials (id, user_id, public_key, algorithm, sign_count, backup_eligible, backed_up, user_verified, transports,
                        aaguid, attestation_format, attestation_trusted, relying_party_id, name, created_at, last_used_at, sign_count_regressed,
                        record_id, disabled, origin)
                        VALUES (x'0a0b', 'user-ada', x'a1', -7, 3, 1, 1, 1, '["internal"]', '00000000-0000-0000-0000-000000000000', 'none', 0,
                        'localhost', 'Laptop', 1, NULL, 0, '11111111-1111-4111-8111-111111111111', 0, NULL);
                    INSERT INTO ceremonies (id, kind, client_id, challenge, user_verification, allowed_credential_ids, created_at, expires_at)
                        VALUES ('c1', 'login', 'demo', x'00', 'preferred', '[]', 1, 9999999999);
                    INSERT INTO refresh_token_families (id, user_id, client_id, created_at) VALUES ('family-1', 'user-ada', 'demo', 1);
                    INSERT INTO refresh_tokens (token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at, user_verified, issued_at, expires_at)
                        VALUES (x'aa', 'family-1', 'user-ada', 'demo', '["openid"]', 'aud', 1, 1, 1, 9999999999);
                    INSERT INTO audit_events (time, kind, user_id, detail) VALUES (1, 'signup', 'user-ada', 'old event');
                    """)
            }

            let storage = try SQLiteStorage(path: path)
            #expect(try storage.appliedMigrations() == SQLiteStorage.knownMigrations)
            let credential = try #require(try await storage.credential(id: [0x0a, 0x0b]))
            #expect(credential.name == "Laptop" && credential.signCount == 3 && credential.transports == ["internal"])
            #expect(try await storage.user(identifier: .email("ada@example.com"))?.id.rawValue == "user-ada")
            #expect(try await storage.isSessionActive(familyID: "family-1", userID: UserID(rawValue: "user-ada")))
            let rotated = try await storage.rotateRefreshToken(hash: [0xaa], clientID: "demo", newHash: [0xbb], newExpiresAt: StorageFixtures.time(99_999), at: StorageFixtures.time(2))
            guard case .rotated(let previous) = rotated else { throw TestFailure("the old refresh token did not rotate: \(rotated)") }
            #expect(previous.scopes == ["openid"])
            #expect(try await storage.events(userID: UserID(rawValue: "user-ada"), limit: 10).map(\.detail) == ["old event"])
            let event = AuditEvent(time: StorageFixtures.time(3), kind: .login, userID: UserID(rawValue: "user-ada"), detail: "new event", origin: nil)
            #expect(try await storage.completeCeremony(CeremonyCompletion(key: StorageFixtures.ceremonyKey("k"), events: [event])))
            #expect(try await storage.events(userID: UserID(rawValue: "user-ada"), limit: 10).map(\.detail) == ["new event", "old event"])
            try storage.close()
        }
    }

    /// A database as an older build left it: the first `count` migrations applied.
    static func database(at path: String, migratedTo count: Int) throws -> SQLiteConnection {
        let old = try SQLiteConnection(path: path)
        try old.executeScript("PRAGMA journal_mode = WAL")
        try old.executeScript("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for migration in Migrations.all.prefix(count) {
            try old.executeScript(migration.sql)
            try old.execute("INSERT INTO grdb_migrations (identifier) VALUES (?)", [migration.name])
        }
        return old
    }

    /// 0.12's schema (v13) to v14: a key that could make enrollment links keeps that power
    /// (`enrollment:write`), others gain nothing; a pending code keeps working, now without a
    /// foreign key, and goes with its user.
    @Test func aVersion13DatabaseKeepsItsKeysPowersAndItsCodes() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v13.sqlite").path
            do {
                let old = try Self.database(at: path, migratedTo: 13)
                try old.executeScript("""
                    INSERT INTO users (id, user_handle, email, created_at, updated_at) VALUES ('user-ada', x'0102', 'ada@example.com', 1, 1);
                    INSERT INTO admin_keys (id, name, scopes, key_hash, created_at) VALUES ('ak_1', 'desk', 'credentials:read,credentials:write,users:read', x'01', 1);
                    INSERT INTO admin_keys (id, name, scopes, key_hash, created_at) VALUES ('ak_2', 'reader', 'credentials:read,users:read', x'02', 1);
                    INSERT INTO one_time_codes (user_id, purpose, code_hash, address, created_at, expires_at, attempts)
                        VALUES ('user-ada', 'recovery', x'aa', 'ada@example.com', 1, 9999999999, 2);
                    """)
            }
            let storage = try SQLiteStorage(path: path)
            let keys = Dictionary(uniqueKeysWithValues: try await storage.adminKeys().map { ($0.id, $0.scopes) })
            #expect(keys["ak_1"]?.contains(AdminScope(.enrollment, writes: true)) == true && keys["ak_1"]?.contains(AdminScope(.credentials, writes: true)) == true)
            #expect(keys["ak_2"]?.contains(AdminScope(.enrollment, writes: true)) == false)
            let code = try #require(try await storage.oneTimeCode(userID: UserID(rawValue: "user-ada"), purpose: .recovery))
            #expect(code.attempts == 2 && code.issued == 1 && code.hash == [0xaa])
            #expect(try await storage.deleteUser(id: UserID(rawValue: "user-ada"), at: StorageFixtures.time(0)))
            #expect(try await storage.oneTimeCode(userID: UserID(rawValue: "user-ada"), purpose: .recovery) == nil, "a deleted user's codes go with it")
            try storage.close()
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
