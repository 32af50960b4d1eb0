import Foundation
import IdentityCore
import Testing

extension StorageContract {
    static func mail(_ id: String, at seconds: TimeInterval, to recipient: String = "ada@example.com") -> OutboxMail {
        OutboxMail(
            id: id, kind: .verificationCode, recipient: recipient, recipientName: "Ada", subject: "Your code: 123456", text: "123456",
            html: "<p>123456</p>", createdAt: StorageFixtures.time(seconds)
        )
    }

    /// The outbox hands a due message to one claimant at a time (a claim is a lease), counts
    /// attempts, retries at the time given, and erases a finished message's body.
    static func mailOutboxLifecycle(_ storage: any IdentityStorage) async throws {
        try await storage.enqueueMail(mail("m1", at: 10))
        try await storage.enqueueMail(mail("m2", at: 20))
        await #expect(throws: (any Error).self, "a second message with the same ID") { try await storage.enqueueMail(mail("m1", at: 30)) }
        #expect(try await storage.claimMail(dueAt: StorageFixtures.time(5), leaseUntil: StorageFixtures.time(100), limit: 10).isEmpty, "nothing is due yet")

        let first = try await storage.claimMail(dueAt: StorageFixtures.time(25), leaseUntil: StorageFixtures.time(100), limit: 1)
        #expect(first.map(\.id) == ["m1"] && first.first?.attempts == 1, "oldest first, attempt counted")
        #expect(first.first?.text == "123456" && first.first?.subject == "Your code: 123456" && first.first?.recipientName == "Ada")
        let second = try await storage.claimMail(dueAt: StorageFixtures.time(25), leaseUntil: StorageFixtures.time(100), limit: 10)
        #expect(second.map(\.id) == ["m2"], "a claimed message is not claimed again during its lease")

        // m1 fails for now and is retried at 200; m2 is sent.
        try await storage.finishMail(id: "m1", outcome: .retry(at: StorageFixtures.time(200), error: "451 try later"), at: StorageFixtures.time(30))
        try await storage.finishMail(id: "m2", outcome: .sent, at: StorageFixtures.time(30))
        #expect(try await storage.mailState(id: "m1") == OutboxMailState(status: "pending", attempts: 1, lastError: "451 try later"))
        #expect(try await storage.mailState(id: "m2") == OutboxMailState(status: "sent", attempts: 1, lastError: nil))
        #expect(try await storage.claimMail(dueAt: StorageFixtures.time(150), leaseUntil: StorageFixtures.time(300), limit: 10).isEmpty)
        let retried = try await storage.claimMail(dueAt: StorageFixtures.time(200), leaseUntil: StorageFixtures.time(300), limit: 10)
        #expect(retried.map(\.id) == ["m1"] && retried.first?.attempts == 2)
        try await storage.finishMail(id: "m1", outcome: .abandoned(error: "550 no such user"), at: StorageFixtures.time(210))
        #expect(try await storage.mailState(id: "m1")?.status == "failed")
        #expect(try await storage.claimMail(dueAt: StorageFixtures.time(10_000), leaseUntil: StorageFixtures.time(20_000), limit: 10).isEmpty, "finished messages are never claimed")

        // A message whose sender died mid-send comes back when its lease ends.
        try await storage.enqueueMail(mail("m3", at: 300))
        _ = try await storage.claimMail(dueAt: StorageFixtures.time(300), leaseUntil: StorageFixtures.time(400), limit: 10)
        #expect(try await storage.claimMail(dueAt: StorageFixtures.time(400), leaseUntil: StorageFixtures.time(500), limit: 10).map(\.attempts) == [2])

        #expect(try await storage.purgeMail(queuedBefore: StorageFixtures.time(1000), limit: 10) == 2, "sent and failed go; pending stays")
        #expect(try await storage.mailState(id: "m1") == nil)
        #expect(try await storage.mailState(id: "m3") != nil)
        await #expect(throws: (any Error).self, "text that cannot be stored") { try await storage.enqueueMail(mail("nul\u{0}", at: 1)) }
    }

    static func code(_ user: User, _ purpose: OneTimeCodePurpose, hash: UInt8, expires: TimeInterval = 1000) -> OneTimeCode {
        OneTimeCode(
            userID: user.id, purpose: purpose, hash: Array(repeating: hash, count: 32), address: "ada@example.com", createdAt: StorageFixtures.time(1),
            expiresAt: StorageFixtures.time(expires)
        )
    }

    /// One code per user and purpose, a new one replacing the old; guesses are counted; a
    /// code is used up once, by the caller naming its hash.
    static func oneTimeCodeLifecycle(_ storage: any IdentityStorage) async throws {
        let (ada, _) = try await signUp("ada", on: storage)
        let (bob, _) = try await signUp("bob", on: storage)
        #expect(try await storage.oneTimeCode(userID: ada.id, purpose: .recovery) == nil)
        #expect(try await storage.countOneTimeCodeAttempt(userID: ada.id, purpose: .recovery) == nil)
        try await storage.saveOneTimeCode(code(ada, .recovery, hash: 1), queueing: mail("c1", at: 1))
        try await storage.saveOneTimeCode(code(ada, .emailVerification, hash: 2), queueing: mail("c2", at: 1))
        try await storage.saveOneTimeCode(code(bob, .recovery, hash: 3), queueing: mail("c3", at: 1))
        #expect(try await storage.mailState(id: "c3")?.status == "pending", "the code's mail is queued with it")
        #expect(try await storage.countOneTimeCodeAttempt(userID: ada.id, purpose: .recovery) == 1)
        #expect(try await storage.countOneTimeCodeAttempt(userID: ada.id, purpose: .recovery) == 2)
        #expect(try await storage.oneTimeCode(userID: ada.id, purpose: .recovery)?.attempts == 2)
        #expect(try await storage.oneTimeCode(userID: ada.id, purpose: .emailVerification)?.attempts == 0, "purposes count apart")

        // A new code replaces the old one, guesses and all.
        try await storage.saveOneTimeCode(code(ada, .recovery, hash: 4, expires: 2000), queueing: mail("c4", at: 2))
        let replaced = try #require(try await storage.oneTimeCode(userID: ada.id, purpose: .recovery))
        #expect(replaced.hash == Array(repeating: 4, count: 32) && replaced.attempts == 0 && replaced.expiresAt == StorageFixtures.time(2000))

        #expect(try await storage.consumeOneTimeCode(userID: ada.id, purpose: .recovery, hash: Array(repeating: 1, count: 32)) == false, "the old code is gone")
        #expect(try await storage.consumeOneTimeCode(userID: ada.id, purpose: .recovery, hash: Array(repeating: 4, count: 32)))
        #expect(try await storage.consumeOneTimeCode(userID: ada.id, purpose: .recovery, hash: Array(repeating: 4, count: 32)) == false, "single use")
        #expect(try await storage.oneTimeCode(userID: bob.id, purpose: .recovery) != nil, "another person's code stays")

        #expect(try await storage.purgeOneTimeCodes(expiredBefore: StorageFixtures.time(1500)) == 2)
        #expect(try await storage.oneTimeCode(userID: bob.id, purpose: .recovery) == nil)
        await #expect(throws: (any Error).self, "a code for a user that does not exist") {
            try await storage.saveOneTimeCode(
                code(User(id: UserID(rawValue: "nobody"), userHandle: [1], profile: UserProfile(), createdAt: .now, updatedAt: .now), .recovery, hash: 5),
                queueing: mail("c5", at: 1)
            )
        }
        #expect(try await storage.mailState(id: "c5") == nil, "all or nothing: no mail for a code that was not stored")
    }

    /// A set of saved codes replaces the earlier set; each is used once.
    static func recoveryCodeLifecycle(_ storage: any IdentityStorage) async throws {
        let (ada, _) = try await signUp("ada", on: storage)
        #expect(try await storage.recoveryCodes(userID: ada.id).isEmpty)
        let first = (1...10).map { RecoveryCode(id: String($0), userID: ada.id, hash: "$scrypt$first-\($0)", createdAt: StorageFixtures.time(1)) }
        try await storage.replaceRecoveryCodes(userID: ada.id, with: first)
        #expect(try await storage.recoveryCodes(userID: ada.id) == first, "in order, 1 to 10")
        #expect(try await storage.useRecoveryCode(userID: ada.id, id: "3", at: StorageFixtures.time(5)))
        #expect(try await storage.useRecoveryCode(userID: ada.id, id: "3", at: StorageFixtures.time(6)) == false, "single use")
        #expect(try await storage.recoveryCodes(userID: ada.id).filter { $0.usedAt != nil }.map(\.id) == ["3"])
        #expect(try await storage.recoveryCodes(userID: ada.id).first { $0.id == "3" }?.usedAt == StorageFixtures.time(5))

        let second = (1...10).map { RecoveryCode(id: String($0), userID: ada.id, hash: "$scrypt$second-\($0)", createdAt: StorageFixtures.time(9)) }
        try await storage.replaceRecoveryCodes(userID: ada.id, with: second)
        #expect(try await storage.recoveryCodes(userID: ada.id) == second, "the new set replaces the old, used ones too")
        #expect(try await storage.useRecoveryCode(userID: UserID(rawValue: "nobody"), id: "1", at: StorageFixtures.time(10)) == false)
    }

    /// Verifying marks the address verified only while it is still the account's.
    static func emailVerification(_ storage: any IdentityStorage) async throws {
        let (ada, _) = try await signUp("ada", on: storage)
        let email = try #require(ada.profile.email)
        #expect(try await storage.user(id: ada.id)?.emailVerifiedAt == nil)
        #expect(try await storage.markEmailVerified(userID: ada.id, email: "someone-else@example.com", at: StorageFixtures.time(7)) == nil)
        let verified = try #require(try await storage.markEmailVerified(userID: ada.id, email: email, at: StorageFixtures.time(8)))
        #expect(verified.emailVerifiedAt == StorageFixtures.time(8) && verified.isEmailVerified && verified.updatedAt == StorageFixtures.time(8))
        #expect(try await storage.user(id: ada.id)?.emailVerifiedAt == StorageFixtures.time(8))
        #expect(try await storage.user(identifier: .email(email))?.isEmailVerified == true)
        #expect(try await storage.credentialWithOwner(id: StorageFixtures.credential("ada-1", userID: ada.id).credentialID)?.owner.isEmailVerified == true)

        // A change of address: only from the address the caller saw, never onto a taken one.
        let (bob, _) = try await signUp("bob", on: storage)
        #expect(try await storage.changeEmail(userID: ada.id, from: "stale@example.com", to: "ada.new@example.com", at: StorageFixtures.time(9)) == nil)
        await expectConflict(.identifier, "bob's address") {
            _ = try await storage.changeEmail(userID: ada.id, from: email, to: try #require(bob.profile.email), at: StorageFixtures.time(9))
        }
        let changed = try #require(try await storage.changeEmail(userID: ada.id, from: email, to: "ada.new@example.com", at: StorageFixtures.time(10)))
        #expect(changed.profile.email == "ada.new@example.com" && changed.emailVerifiedAt == StorageFixtures.time(10))
        #expect(try await storage.user(identifier: .email(email)) == nil)
        #expect(try await storage.user(identifier: .email("ada.new@example.com"))?.id == ada.id)
    }
}
