import IdentityCore
import Testing
import LatchkeyWire

extension StorageContract {
    /// Text that looks like SQL, long Unicode text and unusual scalars are data: they are
    /// stored and found exactly, and leave the rest of the store intact.
    static func hostileAndLongText(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let injection = "'; DROP TABLE users; --"
        let long = String(repeating: "é漢🧑🏽‍💻\u{0301}", count: 2_500)  // 10,000 Characters, mixed widths
        #expect(long.count >= 2_500)
        let unusual = "a\u{7F}\u{FEFF}\u{202E}b\"\\%_*?"

        let texts = [injection, long, unusual, "Robert'); DELETE FROM credentials WHERE ('1'='1", "\u{1F600}"]
        for (index, text) in texts.enumerated() {
            let user = User(
                id: UserID(rawValue: "\(text)-\(index)"),
                userHandle: Array(text.utf8) + [UInt8(index)],
                profile: UserProfile(email: text, phoneNumber: nil, username: "\(index)\(text)", name: text, nickname: text, picture: text),
                createdAt: StorageFixtures.epoch,
                updatedAt: StorageFixtures.epoch
            )
            let credential = StorageFixtures.credential(text, userID: user.id, name: text)
            try await storage.createUser(user, credential: credential)
            #expect(try await storage.user(id: user.id) == user, "user \(index)")
            #expect(try await storage.user(identifier: .email(text)) == user, "email \(index)")
            #expect(try await storage.user(identifier: .username("\(index)\(text)")) == user, "username \(index)")
            #expect(try await storage.credential(id: credential.credentialID) == credential, "credential \(index)")
            #expect(try await storage.renameCredential(id: credential.credentialID, userID: user.id, name: text + text))

            #expect(try await storage.secret(named: text, orStore: Array(text.utf8)) == Array(text.utf8), "secret \(index)")
            try await storage.record(AuditEvent(time: StorageFixtures.time(Double(index)), kind: .login, userID: user.id, detail: text, origin: nil))
            #expect(try await storage.events(userID: user.id, limit: 1).first?.detail == text, "audit \(index)")
        }
        #expect(try await storage.user(id: alice.id) == alice, "the users table survived")
        #expect(try await storage.credentials(userID: alice.id).count == 1, "the credentials table survived")
        #expect(try await storage.user(identifier: .email("%")) == nil, "no pattern matching")
        #expect(try await storage.user(identifier: .email("'")) == nil)
    }

    /// Text containing U+0000 is refused or stored exactly, and never matches the text before
    /// the NUL: C-string bindings would otherwise turn `"alice@example.com\u{0}x"` into
    /// alice's email.
    static func textWithNULIsNeverTruncated(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        #expect(try await storage.user(identifier: .email("alice@example.com\u{0}")) == nil)
        #expect(try await storage.user(identifier: .email("alice@example.com\u{0}evil")) == nil)
        #expect(try await storage.user(identifier: .username("alice\u{0}")) == nil)
        #expect(try await storage.user(id: UserID(rawValue: alice.id.rawValue + "\u{0}x")) == nil)
        #expect(try await storage.credentials(userID: UserID(rawValue: alice.id.rawValue + "\u{0}")) == [])

        let mallory = StorageFixtures.user("mallory", email: "alice@example.com\u{0}mallory")
        do {
            try await storage.createUser(mallory, credential: StorageFixtures.credential("mallory-1", userID: mallory.id))
            #expect(try await storage.user(identifier: .email("alice@example.com\u{0}mallory")) == mallory, "stored exactly")
        } catch let conflict as StoreConflict {
            Issue.record("a NUL-suffixed email must not collide with alice's: \(conflict)")
        } catch {
            // Refused: fine.
        }
        #expect(try await storage.user(identifier: .email("alice@example.com")) == alice)

        let token = StorageFixtures.refreshToken("t1", familyID: "family-1", userID: alice.id)
        try await storage.saveRefreshToken(token)
        let outcome = try await storage.rotateRefreshToken(
            hash: token.tokenHash, clientID: "client-a\u{0}", newHash: StorageFixtures.tokenHash("t2"),
            newExpiresAt: StorageFixtures.time(7200), at: StorageFixtures.time(1)
        )
        #expect(outcome == .invalid)
        #expect(try await storage.revokeRefreshTokenFamily(hash: token.tokenHash, clientID: "client-a\u{0}", at: StorageFixtures.time(1)) == nil)
        #expect(try await storage.isSessionActive(familyID: "family-1\u{0}", userID: alice.id) == false)
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id))

        // The audit log keeps what it is given, whatever it contains: U+0000 becomes U+FFFD
        // (see StoredText), and nothing after it is lost.
        try await storage.record(AuditEvent(time: StorageFixtures.time(1), kind: .loginFailed, clientID: "client\u{0}x", detail: "bad\u{0}input", origin: nil))
        let event = try await storage.events(userID: nil, limit: 1).first
        #expect(event?.detail == "bad\u{FFFD}input", "not truncated: \(String(describing: event?.detail))")
        #expect(event?.clientID == "client\u{FFFD}x")
    }
}
