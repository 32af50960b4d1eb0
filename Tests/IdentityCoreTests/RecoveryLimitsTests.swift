import Foundation
import IdentityCore
import IdentityTestSupport
import Testing

/// The rules that keep emailed codes from being ground down, in process with a clock the
/// test moves: the per-code and per-account guess limits, the growing wait before a code is
/// sent again, the hourly allowance of code mails, and answers that are the same for every
/// address.
@Suite("Recovery limits")
struct RecoveryLimitsTests {
    let fixture: ServiceFixture
    let recovery: AccountRecoveryService

    init() async throws {
        fixture = try await ServiceFixture()
        let mailer = Mailer(outbox: fixture.storage, serviceName: "example.com", clock: fixture.clock, random: SystemRandom())
        recovery = AccountRecoveryService(
            storage: fixture.storage, mailer: mailer, secrets: try await InstanceSecrets.load(from: fixture.storage, random: SystemRandom()),
            clock: fixture.clock, random: SystemRandom()
        )
    }

    /// Ada, signed up and verified.
    func verifiedAda() async throws -> User {
        _ = try await fixture.signUp(email: "ada@example.com")
        let ada = try #require(try await fixture.storage.user(identifier: .email("ada@example.com")))
        return try #require(try await fixture.storage.markEmailVerified(userID: ada.id, email: "ada@example.com", at: fixture.clock.now()))
    }

    /// The codes mailed so far, oldest first: (recipient, recipient name, text).
    func mails() async throws -> [OutboxMail] {
        try await fixture.storage.claimMail(dueAt: fixture.clock.now().addingTimeInterval(1e6), leaseUntil: fixture.clock.now().addingTimeInterval(2e6), limit: 1000)
    }

    func reason(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as IdentityError {
            return error.reason?.rawValue ?? error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    /// Starts a recovery and waits (at most ten seconds) until its code, issued off the
    /// request's path, has been offered to the store.
    func startRecovery(_ email: String) async throws {
        let before = fixture.storage.oneTimeCodeSaves
        try await recovery.startRecovery(email: email)
        let deadline = Date().addingTimeInterval(10)
        while fixture.storage.oneTimeCodeSaves == before, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func oneHundredWrongCodesInARowStopEmailedCodesWhateverNewCodeComes() async throws {
        let ada = try await verifiedAda()
        var wrong = 0
        while wrong < VerificationSettings.maximumConsecutiveFailures {
            try await startRecovery("ada@example.com")
            for _ in 0..<recovery.settings.maximumAttempts where wrong < VerificationSettings.maximumConsecutiveFailures {
                let answer = await reason { _ = try await recovery.recover(email: "ada@example.com", code: "00000000", recoveryCode: nil, clientID: nil, origin: nil) }
                #expect(answer == "invalid_code")
                wrong += 1
            }
            // Past the next code's wait (at most 15 minutes), well within the day the run counts.
            fixture.clock.advance(by: 16 * 60)
        }
        // A new code, mailed and right: refused all the same, as the account took 100 wrong ones.
        try await startRecovery("ada@example.com")
        let code = try #require(try await mails().last?.text.firstMatch(of: /\b(\d{8})\b/)?.1)
        #expect(await reason { _ = try await recovery.recover(email: "ada@example.com", code: String(code), recoveryCode: nil, clientID: nil, origin: nil) } == "too_many_attempts")
        #expect(await reason { _ = try await recovery.verifyEmail(userID: ada.id, code: "12345678", origin: nil) } == "too_many_attempts", "every emailed code of the account")
        // An administrator's enrollment link still lets the person in, and ends the run.
        let link = try await recovery.createEnrollmentLink(userID: ada.id, lifetime: 3600, by: "test", origin: nil)
        _ = try await recovery.redeemEnrollmentLink(userID: ada.id, code: link.code, clientID: nil, origin: nil)
        fixture.clock.advance(by: 2 * 86400)
        try await startRecovery("ada@example.com")
        let fresh = try #require(try await mails().last?.text.firstMatch(of: /\b(\d{8})\b/)?.1)
        #expect(try await recovery.recover(email: "ada@example.com", code: String(fresh), recoveryCode: nil, clientID: nil, origin: nil).id == ada.id)
    }

    @Test func aRunOfWrongCodesCountsForADayAndASavedCodeEndsIt() async throws {
        let ada = try await verifiedAda()
        // A hundred wrong codes, as the counter holds them.
        _ = try await fixture.storage.countAccountEvents(.codeFailures, subject: ada.id, adding: 100, window: 86400, at: fixture.clock.now())
        try await recovery.sendEmailVerification(userID: ada.id)
        var code = try #require(try await mails().last?.text.firstMatch(of: /\b(\d{8})\b/)?.1)
        #expect(await reason { _ = try await recovery.verifyEmail(userID: ada.id, code: String(code), origin: nil) } == "too_many_attempts")
        fixture.clock.advance(by: 86400 + 1)
        try await recovery.sendEmailVerification(userID: ada.id)
        code = try #require(try await mails().last?.text.firstMatch(of: /\b(\d{8})\b/)?.1)
        #expect(try await recovery.verifyEmail(userID: ada.id, code: String(code), origin: nil).isEmailVerified, "the next day, codes work again")

        // A saved code's recovery ends a run someone else made.
        let codes = try await recovery.createRecoveryCodes(by: SignIn(userID: ada.id, authenticatedAt: fixture.clock.now(), method: .passkey), origin: nil)
        _ = try await fixture.storage.countAccountEvents(.codeFailures, subject: ada.id, adding: 100, window: 86400, at: fixture.clock.now())
        _ = try await recovery.recover(email: "ada@example.com", code: nil, recoveryCode: codes[0], clientID: nil, origin: nil)
        #expect(try await fixture.storage.countAccountEvents(.codeFailures, subject: ada.id, adding: 0, window: 86400, at: fixture.clock.now()) == 0)
    }

    @Test func aCodeIsSentAgainOnlyAfterAWaitThatDoubles() async throws {
        let ada = try await verifiedAda()
        let before = try await mails().count
        try await recovery.sendEmailVerification(userID: ada.id)
        var waits: [Int] = []
        for _ in 0..<4 {
            let refused = await reason { try await recovery.sendEmailVerification(userID: ada.id) }
            #expect(refused == "rate_limited")
            var waited = 0
            while await reason({ try await recovery.sendEmailVerification(userID: ada.id) }) == "rate_limited" {
                fixture.clock.advance(by: 1)
                waited += 1
            }
            waits.append(waited)
        }
        #expect(waits == [30, 60, 120, 240], "\(waits)")
        #expect(try await mails().count - before == 5, "one mail per code sent")
        // A day later the run is forgotten.
        fixture.clock.advance(by: 86400)
        try await recovery.sendEmailVerification(userID: ada.id)
        #expect(await reason { try await recovery.sendEmailVerification(userID: ada.id) } == "rate_limited")
    }

    @Test func anAccountIsMailedAtMostItsHourlyAllowanceAndNeverItsOwnWordsAtAnUnprovenAddress() async throws {
        _ = try await verifiedAda()
        _ = try await fixture.signUp(email: "eve@example.com")
        let eve = try #require(try await fixture.storage.user(identifier: .email("eve@example.com")))
        _ = try await fixture.storage.updateName(userID: eve.id, name: "Click https://evil.example now", at: fixture.clock.now())
        let limited = AccountRecoveryService(
            storage: fixture.storage, mailer: Mailer(outbox: fixture.storage, serviceName: "example.com", clock: fixture.clock, random: SystemRandom()),
            secrets: try await InstanceSecrets.load(from: fixture.storage, random: SystemRandom()), settings: VerificationSettings(mailsPerHour: 3),
            clock: fixture.clock, random: SystemRandom()
        )
        func change(_ n: Int) async -> String? {
            await reason { _ = try await limited.requestEmailChange(by: SignIn(userID: eve.id, authenticatedAt: fixture.clock.now(), method: .passkey), to: "target\(n)@example.com") }
        }
        #expect(await change(0) == nil)
        #expect(await change(1) == "rate_limited", "the next waits out its cool-down")
        fixture.clock.advance(by: 30)
        #expect(await change(2) == nil)
        fixture.clock.advance(by: 60)
        #expect(await change(3) == nil)
        fixture.clock.advance(by: 120)
        #expect(await change(4) == "rate_limited", "three an hour")
        let taken = await reason { _ = try await limited.requestEmailChange(by: SignIn(userID: eve.id, authenticatedAt: fixture.clock.now(), method: .passkey), to: "ada@example.com") }
        #expect(taken == "rate_limited", "the allowance is spent before the address is looked up, so \"taken\" answers are limited too")
        fixture.clock.advance(by: 3600)
        #expect(await change(5) == nil, "a new hour")
        let sent = try await mails().filter { $0.recipient.hasPrefix("target") }
        #expect(sent.map(\.recipient) == ["target0@example.com", "target2@example.com", "target3@example.com", "target5@example.com"])
        #expect(sent.allSatisfy { !$0.text.contains("evil") && !$0.html.contains("evil") && !$0.subject.contains("evil") && $0.recipientName == nil }, "\(sent.map(\.text))")
        // Ada's own address, verified, is greeted by her name.
        let ada = try #require(try await fixture.storage.user(identifier: .email("ada@example.com")))
        _ = try await fixture.storage.updateName(userID: ada.id, name: "Ada", at: fixture.clock.now())
        try await limited.sendEmailVerification(userID: ada.id)
        #expect(try await mails().last?.text.contains("Hello Ada,") == true)
    }

    @Test func theSixthGuessAndTheTimeAreTheSameForEveryAddress() async throws {
        _ = try await verifiedAda()
        _ = try await fixture.signUp(email: "unverified@example.com")
        for address in ["ada@example.com", "unverified@example.com", "nobody@example.com"] {
            try await startRecovery(address)
            var answers: [String?] = []
            for _ in 0..<6 {
                answers.append(await reason { _ = try await recovery.recover(email: address, code: "11111111", recoveryCode: nil, clientID: nil, origin: nil) })
            }
            #expect(answers == Array(repeating: "invalid_code", count: 5) + ["too_many_attempts"], "\(address): \(answers)")
        }
        #expect(try await mails().filter { $0.kind == .recoveryCode }.map(\.recipient) == ["ada@example.com"], "only the account's verified address is mailed")
    }

    @Test func aSavedCodeIsFoundByItsKeyAndSpentByItsHash() async throws {
        let ada = try await verifiedAda()
        let signIn = SignIn(userID: ada.id, authenticatedAt: fixture.clock.now(), method: .passkey)
        let codes = try await recovery.createRecoveryCodes(by: signIn, origin: nil)
        let stored = try await fixture.storage.recoveryCodes(userID: ada.id)
        #expect(stored.count == 10 && stored.allSatisfy { $0.lookupKey?.count == 32 })
        #expect(await reason { _ = try await recovery.recover(email: "ada@example.com", code: nil, recoveryCode: "AAAA-AAAA-AAAA-AAAA", clientID: nil, origin: nil) } == "invalid_code")
        #expect(try await recovery.recover(email: "ada@example.com", code: nil, recoveryCode: codes[6].lowercased(), clientID: nil, origin: nil).id == ada.id)
        #expect(await reason { _ = try await recovery.recover(email: "ada@example.com", code: nil, recoveryCode: codes[6], clientID: nil, origin: nil) } == "invalid_code", "single use")
        #expect(try await recovery.recoveryCodeStatus(userID: ada.id).remaining == 9)
        // Five sets an hour: the sixth waits.
        for _ in 0..<4 { _ = try await recovery.createRecoveryCodes(by: signIn, origin: nil) }
        #expect(await reason { _ = try await recovery.createRecoveryCodes(by: signIn, origin: nil) } == "rate_limited")
        // A session a recovery started makes none.
        fixture.clock.advance(by: 3600)
        let recovering = SignIn(userID: ada.id, authenticatedAt: fixture.clock.now(), method: .passkey, isRecovery: true)
        #expect(await reason { _ = try await recovery.createRecoveryCodes(by: recovering, origin: nil) } == "recovery_session")
        #expect(await reason { _ = try await recovery.requestEmailChange(by: recovering, to: "ada.new@example.com") } == "recovery_session")
    }

    @Test func recoveryByEmailEndsEverySession() async throws {
        let ada = try await verifiedAda()
        #expect(try await fixture.storage.revokeAllSessions(userID: ada.id, at: fixture.clock.now()) >= 1, "ada has a session from sign-up")
        _ = try await fixture.tokens.issue(for: ada, client: fixture.client, scopes: ["openid"], audience: "https://example.com/", userVerified: true, method: .passkey)
        try await startRecovery("ada@example.com")
        let code = try #require(try await mails().last?.text.firstMatch(of: /\b(\d{8})\b/)?.1)
        _ = try await recovery.recover(email: "ada@example.com", code: String(code), recoveryCode: nil, clientID: nil, origin: nil)
        #expect(try await fixture.storage.revokeAllSessions(userID: ada.id, at: fixture.clock.now()) == 0, "the recovery ended them")
    }
}
