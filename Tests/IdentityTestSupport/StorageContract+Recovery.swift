import Foundation
import IdentityCore
import Testing
import LatchkeyWire

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

        #expect(try await storage.purgeMail(queuedBefore: StorageFixtures.time(1000), limit: -1) == 0, "a negative limit purges nothing, not everything")
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

        // A code replaces only what the caller saw; a refused one queues no mail.
        let fresh = code(ada, .emailChange, hash: 6)
        #expect(try await storage.saveOneTimeCode(fresh, queueing: mail("c6", at: 3), replacing: .code(hash: Array(repeating: 9, count: 32))) == false)
        #expect(try await storage.mailState(id: "c6") == nil, "all or nothing: no mail for a code that was not stored")
        #expect(try await storage.saveOneTimeCode(fresh, queueing: mail("c6", at: 3), replacing: .none))
        #expect(try await storage.saveOneTimeCode(code(ada, .emailChange, hash: 7), queueing: mail("c7", at: 3), replacing: .none) == false, "one is stored")
        let next = OneTimeCode(
            userID: ada.id, purpose: .emailChange, hash: Array(repeating: 8, count: 32), address: "new@example.com", createdAt: StorageFixtures.time(4),
            expiresAt: StorageFixtures.time(900), issued: 2
        )
        #expect(try await storage.saveOneTimeCode(next, queueing: mail("c8", at: 4), replacing: .code(hash: fresh.hash)))
        #expect(try await storage.oneTimeCode(userID: ada.id, purpose: .emailChange)?.issued == 2)
        #expect(try await storage.mailState(id: "c7") == nil)
        #expect(try await storage.mailState(id: "c8") != nil)
        // A stand-in subject (no account) keeps a code like an account does.
        let standIn = UserID(rawValue: "decoy:0123")
        #expect(try await storage.saveOneTimeCode(OneTimeCode(
            userID: standIn, purpose: .recovery, hash: [1], address: "x@example.com", createdAt: StorageFixtures.time(1), expiresAt: StorageFixtures.time(1000)
        ), queueing: nil, replacing: .none))
        #expect(try await storage.countOneTimeCodeAttempt(userID: standIn, purpose: .recovery) == 1)
    }

    /// Per-account counters count within their window, start again after it, reset on
    /// demand, and are purged once their window ended; one without a window never ends.
    static func accountCounters(_ storage: any IdentityStorage) async throws {
        let (ada, _) = try await signUp("ada", on: storage)
        let t = StorageFixtures.time
        #expect(try await storage.countAccountEvents(.codeMails, subject: ada.id, adding: 0, window: 3600, at: t(0)) == 0)
        #expect(try await storage.countAccountEvents(.codeMails, subject: ada.id, adding: 1, window: 3600, at: t(10)) == 1)
        #expect(try await storage.countAccountEvents(.codeMails, subject: ada.id, adding: 1, window: 3600, at: t(20)) == 2)
        #expect(try await storage.countAccountEvents(.codeMails, subject: ada.id, adding: 0, window: 3600, at: t(3609)) == 2)
        #expect(try await storage.countAccountEvents(.codeMails, subject: ada.id, adding: 0, window: 3600, at: t(3611)) == 0, "the window ended")
        #expect(try await storage.countAccountEvents(.codeMails, subject: ada.id, adding: 1, window: 3600, at: t(3611)) == 1, "a new window")
        for n in 1...3 {
            #expect(try await storage.countAccountEvents(.codeFailures, subject: ada.id, adding: 1, window: nil, at: t(Double(n))) == n)
        }
        #expect(try await storage.countAccountEvents(.codeFailures, subject: ada.id, adding: 0, window: nil, at: t(1e7)) == 3, "no window: it stays")
        #expect(try await storage.countAccountEvents(.recoveryCodeSets, subject: ada.id, adding: 0, window: 3600, at: t(5)) == 0, "counters count apart")
        #expect(try await storage.purgeOneTimeCodes(expiredBefore: t(1e7)) == 1, "the ended code-mail window goes")
        #expect(try await storage.countAccountEvents(.codeFailures, subject: ada.id, adding: 0, window: nil, at: t(1e7)) == 3)
        try await storage.resetAccountCounter(.codeFailures, subject: ada.id)
        #expect(try await storage.countAccountEvents(.codeFailures, subject: ada.id, adding: 0, window: nil, at: t(1e7)) == 0)
        let standIn = UserID(rawValue: "decoy:abcd")
        #expect(try await storage.countAccountEvents(.codeFailures, subject: standIn, adding: 1, window: nil, at: t(1)) == 1, "a stand-in is counted too")
    }

    /// A set of saved codes replaces the earlier set; each is used once.
    static func recoveryCodeLifecycle(_ storage: any IdentityStorage) async throws {
        let (ada, _) = try await signUp("ada", on: storage)
        #expect(try await storage.recoveryCodes(userID: ada.id).isEmpty)
        let first = (1...10).map { RecoveryCode(id: String($0), userID: ada.id, hash: "$scrypt$first-\($0)", createdAt: StorageFixtures.time(1)) }
        try await storage.replaceRecoveryCodes(userID: ada.id, with: first)
        #expect(try await storage.recoveryCodes(userID: ada.id) == first, "in order, 1 to 10")
        #expect(try await storage.useRecoveryCode(userID: ada.id, hash: "$scrypt$first-3", at: StorageFixtures.time(5)))
        #expect(try await storage.useRecoveryCode(userID: ada.id, hash: "$scrypt$first-3", at: StorageFixtures.time(6)) == false, "single use")
        #expect(try await storage.recoveryCodes(userID: ada.id).filter { $0.usedAt != nil }.map(\.id) == ["3"])
        #expect(try await storage.recoveryCodes(userID: ada.id).first { $0.id == "3" }?.usedAt == StorageFixtures.time(5))

        let second = (1...10).map { RecoveryCode(id: String($0), userID: ada.id, hash: "$scrypt$second-\($0)", createdAt: StorageFixtures.time(9)) }
        try await storage.replaceRecoveryCodes(userID: ada.id, with: second)
        #expect(try await storage.recoveryCodes(userID: ada.id) == second, "the new set replaces the old, used ones too")
        #expect(try await storage.useRecoveryCode(userID: ada.id, hash: "$scrypt$first-4", at: StorageFixtures.time(10)) == false, "marked by hash: the old set's code spends nothing")
        #expect(try await storage.recoveryCodes(userID: ada.id).allSatisfy { $0.usedAt == nil })
        #expect(try await storage.useRecoveryCode(userID: UserID(rawValue: "nobody"), hash: "$scrypt$second-1", at: StorageFixtures.time(10)) == false)

        // A code keeps its lookup key.
        let keyed = (1...3).map {
            RecoveryCode(id: String($0), userID: ada.id, hash: "$scrypt$keyed-\($0)", createdAt: StorageFixtures.time(11), lookupKey: [UInt8](repeating: UInt8($0), count: 32))
        }
        try await storage.replaceRecoveryCodes(userID: ada.id, with: keyed)
        #expect(try await storage.recoveryCodes(userID: ada.id).map(\.lookupKey) == keyed.map(\.lookupKey))
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
