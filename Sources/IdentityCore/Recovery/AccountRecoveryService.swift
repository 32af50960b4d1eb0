import Crypto
public import Foundation
import LatchkeyWire

/// How verification and recovery codes behave (`verification:` in the configuration).
public struct VerificationSettings: Sendable, Hashable {
    /// How long an emailed code works (`verification.code_lifetime`, 15 minutes).
    public var codeLifetime: TimeInterval
    /// Wrong guesses a code takes before it stops working.
    public var maximumAttempts: Int
    /// The digits in an emailed code (6 or more; ``defaultCodeDigits`` unless configured).
    public var codeDigits: Int
    /// Whether sign-up sends a verification code (`verification.on_signup`).
    public var onSignup: Bool
    /// The wait before a code for the same purpose may be sent again
    /// (`verification.resend_cooldown`); each further re-issue waits twice as long as the one
    /// before (at most 15 minutes), until a code is used or a day passes without one.
    public var resendCooldown: TimeInterval
    /// Code mails (and changes of address) an account may ask for per hour
    /// (`verification.mails_per_hour`).
    public var mailsPerHour: Int

    /// Wrong codes in a row after which an account's emailed codes stop working for the rest
    /// of the day, or until a right one, a saved recovery code or an administrator's
    /// enrollment link is used: NIST SP 800-63B-4 §3.2.2 allows at most 100 consecutive failed
    /// attempts on one account.
    public static let maximumConsecutiveFailures = 100

    /// Eight digits, so that the cap makes guessing hopeless: with at most 100 wrong codes an
    /// account takes in a day, a guesser wins with a chance of at most 100 / 10^8, 1 in a
    /// million a day, about 1 in 2,700 over a year of guessing every day. With six digits it
    /// would be 1 in 10,000 a day: even odds within 19 years of it.
    public static let defaultCodeDigits = 8

    /// Creates settings; the defaults are the ones above.
    public init(
        codeLifetime: TimeInterval = 15 * 60, maximumAttempts: Int = 5, codeDigits: Int = defaultCodeDigits, onSignup: Bool = true,
        resendCooldown: TimeInterval = 30, mailsPerHour: Int = 10
    ) {
        self.codeLifetime = codeLifetime
        self.maximumAttempts = maximumAttempts
        self.codeDigits = max(6, codeDigits)
        self.onSignup = onSignup
        self.resendCooldown = max(1, resendCooldown)
        self.mailsPerHour = max(1, mailsPerHour)
    }
}

/// Getting people back in: verified email addresses, saved recovery codes, and recovery by
/// a code sent to a verified address (NIST SP 800-63B-4 §4.2). Every face's recovery story
/// (My Account and the recovery grant, the hosted pages, Kratos's flows) calls this.
///
/// Codes cannot be ground down: each code takes ``VerificationSettings/maximumAttempts``
/// guesses, an account takes ``VerificationSettings/maximumConsecutiveFailures`` wrong codes
/// in a row across all its codes, re-issuing waits longer each time, and an account asks for
/// at most ``VerificationSettings/mailsPerHour`` code mails. The flows that start from an
/// address (recovery, Kratos's verification) answer the same for every address: an address
/// no account can take a code through gets a stand-in's code that is never mailed and never
/// matches, counted and refused exactly as an account's.
public struct AccountRecoveryService: Sendable {
    /// What it keeps: accounts, their codes, their sessions, and the audit trail.
    public typealias Storage = AccountCodeStore & AuditLog & RefreshTokenStore & UserStore

    private let storage: any Storage
    private let mailer: Mailer
    /// ``InstanceSecrets/oneTimeCodeKey``.
    private let codeKey: SymmetricKey
    private let clock: any WallClock
    private let random: any RandomSource
    /// The lifetimes and limits.
    public let settings: VerificationSettings
    private let rateLimits: RateLimits?
    private let sensitiveActions: SensitiveActions

    /// Saved recovery codes carry 80 random bits, so the password hasher's cost is there to
    /// follow NIST's "stored hashed" rather than to slow guessing: 2^12 rounds keep a check
    /// under a tenth of a second.
    static let recoveryCodeHasher = PasswordHasher(logRounds: 12, blockSize: 8, parallelism: 1)
    /// Codes in a set.
    public static let recoveryCodeCount = 10
    /// New sets of saved recovery codes an account may make per hour: each costs ten slow
    /// hashes on the queue password sign-ins share.
    public static let recoveryCodeSetsPerHour = 5
    /// How long a run of re-issued codes is remembered: a day after the last code, the next
    /// one waits only ``VerificationSettings/resendCooldown`` again.
    static let reissueMemory: TimeInterval = 86400
    /// The longest a re-send waits, however long the run: someone asking for codes to a
    /// person's address can delay the person's own code by this much, not by days.
    static let longestCooldown: TimeInterval = 15 * 60
    /// How long a run of wrong codes counts: an account's emailed codes stop after
    /// ``VerificationSettings/maximumConsecutiveFailures`` wrong ones within a day, and work
    /// again the day after, so that nobody can switch them off for good.
    static let failureWindow: TimeInterval = 86400

    /// The service needs the instance's one-time-code key from `secrets`; `rateLimits` adds
    /// the per-identifier limit to the flows that name an address.
    public init(
        storage: any Storage, mailer: Mailer, secrets: InstanceSecrets, settings: VerificationSettings = VerificationSettings(), clock: any WallClock,
        random: any RandomSource, rateLimits: RateLimits? = nil, sensitiveActions: SensitiveActions? = nil
    ) {
        self.codeKey = secrets.oneTimeCodeKey
        self.storage = storage
        self.mailer = mailer
        self.settings = settings
        self.clock = clock
        self.random = random
        self.rateLimits = rateLimits
        self.sensitiveActions = sensitiveActions ?? SensitiveActions(clock: clock)
    }

    // MARK: - Verified addresses

    /// Sends a new verification code to the user's email address, replacing any earlier one.
    /// - Throws: `invalid_request` when the account has no email address; `too_many_requests`
    ///   while the last code's cool-down lasts or the account's mails for the hour are spent.
    public func sendEmailVerification(userID: UserID) async throws {
        guard let user = try await storage.user(id: userID) else { throw IdentityError(.notFound, "no such user") }
        guard let email = user.profile.email else {
            throw IdentityError(.invalidRequest, "this account has no email address to verify", reason: .required, field: "email")
        }
        try await rateLimits?.admit(identifier: .email(email))
        let turn = try await nextCode(.emailVerification, subject: user.id)
        try await admitCodeMail(for: user.id)
        try await issueCode(turn, mailTo: user, address: email)
    }

    /// What sign-up does when `verification.on_signup` is on: sends the code. A failure to
    /// queue it does not undo the sign-up; the person can ask for another code.
    public func signedUp(_ user: User) async {
        guard settings.onSignup, let email = user.profile.email else { return }
        guard let turn = try? await nextCode(.emailVerification, subject: user.id), (try? await admitCodeMail(for: user.id)) != nil else { return }
        try? await issueCode(turn, mailTo: user, address: email)
    }

    /// Starts changing the account's email address: a sensitive action (the sign-in must be
    /// recent, and not a recovery's), and the new address is proved by a code sent to it
    /// before it replaces the old one (``verifyEmail(userID:code:)`` finishes the change).
    /// Each request counts against the account's mails for the hour before the address is
    /// looked up, so that neither mail nor "taken" answers come without limit.
    /// - Returns: The new address, normalized.
    /// - Throws: `invalid_request` for a malformed, unchanged or taken address;
    ///   `too_many_requests` as ``sendEmailVerification(userID:)``.
    public func requestEmailChange(by signIn: SignIn, to newEmail: String) async throws -> String {
        try sensitiveActions.requireRecent(signIn, for: "Changing your email address")
        let profile = try ProfileValidation.validate(UserProfile(email: newEmail), allowed: [.email])
        guard let address = profile.email, let user = try await storage.user(id: signIn.userID) else {
            throw IdentityError(.invalidRequest, "email must be an email address", reason: .malformedIdentifier, field: "email")
        }
        guard address != user.profile.email else { throw IdentityError(.invalidRequest, "this is already the account's email address", field: "email") }
        try await rateLimits?.admit(identifier: .email(address))
        let turn = try await nextCode(.emailChange, subject: user.id)
        try await admitCodeMail(for: user.id)
        guard try await storage.user(identifier: .email(address)) == nil else {
            throw IdentityError(.invalidRequest, "another account has this email address", reason: .userExists(.email), field: "email")
        }
        try await issueCode(turn, mailTo: user, address: address)
        return address
    }

    /// Checks a verification code: the one for a pending change of address when there is one
    /// (the new address then replaces the old, verified, and the old one is told), else the
    /// one that verifies the current address.
    /// - Throws: `invalid_request` with reason `invalid_code`, `expired_code` or
    ///   `too_many_attempts`.
    public func verifyEmail(userID: UserID, code: String, origin: RequestOrigin?) async throws -> User {
        try await verifyEmail(userID: userID, code: code, admitted: false, origin: origin)
    }

    /// `admitted`: the caller counted the attempt against the identifier limit already.
    private func verifyEmail(userID: UserID, code: String, admitted: Bool, origin: RequestOrigin?) async throws -> User {
        // A change of address is what the code proves only while its code is live: an
        // abandoned one (expired, or out of guesses) leaves the current address verifiable.
        if let pending = try await storage.oneTimeCode(userID: userID, purpose: .emailChange), clock.now() < pending.expiresAt,
            pending.attempts < settings.maximumAttempts, let user = try await storage.user(id: userID), let old = user.profile.email
        {
            if !admitted { try await rateLimits?.admit(identifier: .email(pending.address)) }
            try await check(code, purpose: .emailChange, subject: userID, address: pending.address)
            let now = clock.now()
            let changed: User?
            do {
                changed = try await storage.changeEmail(userID: userID, from: old, to: pending.address, at: now)
            } catch is StoreConflict {
                throw IdentityError(.invalidRequest, "another account took this email address meanwhile", reason: .userExists(.email), field: "email")
            }
            guard let changed else { throw Self.invalidCode }
            try await storage.record(AuditEvent(time: now, kind: .profileUpdated, userID: userID, detail: AuditEvent.emailChangeDetail(previous: old), origin: origin))
            if user.isEmailVerified {
                try await mailer.queue(.emailChanged, to: user, address: old, values: ["new_email": pending.address])
            }
            return changed
        }
        guard let user = try await storage.user(id: userID), let email = user.profile.email else {
            throw IdentityError(.invalidRequest, "this account has no email address to verify", reason: .required, field: "email")
        }
        if !admitted { try await rateLimits?.admit(identifier: .email(email)) }
        try await check(code, purpose: .emailVerification, subject: userID, address: email)
        let now = clock.now()
        guard let verified = try await storage.markEmailVerified(userID: userID, email: email, at: now) else {
            throw Self.invalidCode
        }
        try await storage.record(AuditEvent(time: now, kind: .emailVerified, userID: userID, detail: "email", origin: origin))
        return verified
    }

    /// Sends a verification code to `email` when it is an account's address, for flows that
    /// start from an address rather than a signed-in account (Kratos's verification flow).
    /// The answer is the same whatever the address (another address gets a stand-in's code,
    /// never mailed), and the code is made off the request's path.
    public func sendVerification(toAddress email: String) async throws {
        guard let identifier = ProfileValidation.identifier(forLogin: email), case .email(let address) = identifier else {
            throw IdentityError(.invalidRequest, "email must be an email address", reason: .malformedIdentifier, field: "email")
        }
        try await rateLimits?.admit(identifier: identifier)
        let user = try await storage.user(identifier: identifier).flatMap { $0.profile.email == address ? $0 : nil }
        let subject = user?.id ?? standIn(for: address)
        let service = self
        Task { try await service.quietlyIssue(.emailVerification, subject: subject, mailTo: user, address: address) }
    }

    /// Checks a verification code sent to `email` (see ``sendVerification(toAddress:)``); an
    /// address no account has is checked against its stand-in's code, which never matches.
    public func verifyEmail(address email: String, code: String, origin: RequestOrigin?) async throws -> User {
        guard let identifier = ProfileValidation.identifier(forLogin: email), case .email(let address) = identifier else { throw Self.invalidCode }
        // Counted once, before the lookup, whatever the address: the limit's answer does not
        // tell an account's address from another.
        try await rateLimits?.admit(identifier: identifier)
        guard let user = try await storage.user(identifier: identifier), user.profile.email == address else {
            try await check(code, purpose: .emailVerification, subject: standIn(for: address), address: address)
            throw Self.invalidCode
        }
        return try await verifyEmail(userID: user.id, code: code, admitted: true, origin: origin)
    }

    // MARK: - Saved recovery codes

    /// Makes a new set of saved recovery codes, replacing any earlier set. Creating a way into
    /// the account is a sensitive action: the sign-in must be recent, and not a recovery's;
    /// and an account makes at most ``recoveryCodeSetsPerHour`` sets an hour.
    /// - Returns: The codes, shown once (`XXXX-XXXX-XXXX-XXXX`, Crockford base32).
    public func createRecoveryCodes(by signIn: SignIn, origin: RequestOrigin?) async throws -> [String] {
        try sensitiveActions.requireRecent(signIn, for: "Creating recovery codes")
        let now = clock.now()
        let sets = try await storage.countAccountEvents(.recoveryCodeSets, subject: signIn.userID, adding: 1, window: 3600, at: now)
        guard sets <= Self.recoveryCodeSetsPerHour else {
            throw IdentityError(
                .tooManyRequests, "this account made \(Self.recoveryCodeSetsPerHour) sets of recovery codes in the last hour; try again later",
                reason: .rateLimited(retryAfter: 600)
            )
        }
        let codes = (0..<Self.recoveryCodeCount).map { _ in RecoveryCodeText.new(random: random) }
        let salts = codes.map { _ in random.bytes(16) }
        let hashes = try await PasswordService.offloaded {
            try zip(codes, salts).map { code, salt in try Self.recoveryCodeHasher.hash(RecoveryCodeText.normalized(code), salt: salt) }
        }
        let records = zip(codes, hashes).enumerated().map { index, pair in
            RecoveryCode(
                id: String(index + 1), userID: signIn.userID, hash: pair.1, createdAt: now,
                lookupKey: Self.lookupKey(RecoveryCodeText.normalized(pair.0), userID: signIn.userID, key: codeKey)
            )
        }
        try await storage.replaceRecoveryCodes(userID: signIn.userID, with: records)
        try await storage.record(AuditEvent(time: now, kind: .recoveryCodesCreated, userID: signIn.userID, origin: origin))
        return codes
    }

    /// How many saved recovery codes are left, and when the set was made (`nil` without one).
    public func recoveryCodeStatus(userID: UserID) async throws -> (remaining: Int, createdAt: Date?) {
        let codes = try await storage.recoveryCodes(userID: userID)
        return (codes.filter { $0.usedAt == nil }.count, codes.first?.createdAt)
    }

    // MARK: - Recovery

    /// "Lost your passkey?": sends a recovery code to `email` if it is an account's verified
    /// address. Whatever the address, the answer is the same and the caller answers `202`;
    /// the lookup happens either way, and the code is made and queued off the request's
    /// path, so the time does not tell either. Another address gets a stand-in's code.
    public func startRecovery(email: String) async throws {
        guard let identifier = ProfileValidation.identifier(forLogin: email), case .email(let address) = identifier else {
            throw IdentityError(.invalidRequest, "email must be an email address", reason: .malformedIdentifier, field: "email")
        }
        try await rateLimits?.admit(identifier: identifier)
        let user = Self.recoverable(try await storage.user(identifier: identifier), address: address)
        let subject = user?.id ?? standIn(for: address)
        let service = self
        Task { try await service.quietlyIssue(.recovery, subject: subject, mailTo: user, address: address) }
    }

    /// The account a recovery code for `address` goes to: one whose verified address it is,
    /// and that is not turned off.
    private static func recoverable(_ user: User?, address: String) -> User? {
        guard let user, user.isEmailVerified, user.profile.email == address, !user.isDisabled else { return nil }
        return user
    }

    /// Lets a person who lost their passkeys in: `code` is the one emailed by
    /// ``startRecovery(email:)``, `recoveryCode` one of their saved codes (exactly one of the
    /// two). The account's verified address hears about it, and an audit event records it.
    /// Recovery by an emailed code ends every other session of the account: the lost device
    /// may be in someone else's hands.
    /// - Returns: The account, for a restricted token that may only enroll a passkey.
    /// - Throws: `invalid_grant` with reason `invalid_code`, `expired_code` or
    ///   `too_many_attempts`, the same for every address.
    public func recover(email: String, code: String?, recoveryCode: String?, clientID: String?, origin: RequestOrigin?) async throws -> User {
        guard let identifier = ProfileValidation.identifier(forLogin: email), case .email(let address) = identifier else {
            throw IdentityError(.invalidRequest, "email must be an email address", reason: .malformedIdentifier, field: "email")
        }
        switch (code?.isEmpty == false ? code : nil, recoveryCode?.isEmpty == false ? recoveryCode : nil) {
        case (nil, nil), (.some, .some):
            throw IdentityError(.invalidRequest, "send either code (the emailed one) or recovery_code (a saved one)", reason: .required, field: "code")
        case (let code?, nil):
            try await rateLimits?.admit(identifier: identifier)
            let user = Self.recoverable(try await storage.user(identifier: identifier), address: address)
            do {
                try await check(code, purpose: .recovery, subject: user?.id ?? standIn(for: address), address: address)
            } catch let error as IdentityError {
                if let user {
                    try await storage.record(AuditEvent(time: clock.now(), kind: .recoveryFailed, userID: user.id, clientID: clientID, detail: "email code", origin: origin))
                }
                throw IdentityError(.invalidGrant, error.message, reason: error.reason)
            }
            // A stand-in's code never matches, so a code that did is an account's.
            guard let user else { throw IdentityError(.invalidGrant, Self.invalidCode.message, reason: .invalidCode) }
            _ = try await storage.revokeAllSessions(userID: user.id, at: clock.now())
            return try await recovered(user, method: .emailCode, clientID: clientID, origin: origin)
        case (nil, let saved?):
            try await rateLimits?.admit(identifier: identifier)
            let user = try await storage.user(identifier: identifier)
            let match = try await savedCode(saved, of: user)
            guard let user, let match, try await storage.useRecoveryCode(userID: user.id, hash: match.hash, at: clock.now()) else {
                if let user {
                    try await storage.record(AuditEvent(time: clock.now(), kind: .recoveryFailed, userID: user.id, clientID: clientID, detail: "saved code", origin: origin))
                }
                throw IdentityError(.invalidGrant, "the recovery code is wrong or was used", reason: .invalidCode)
            }
            // The person is back: a run of wrong emailed codes someone else made ends too.
            try await storage.resetAccountCounter(.codeFailures, subject: user.id)
            return try await recovered(user, method: .recoveryCode, clientID: clientID, origin: origin)
        }
    }

    /// The unused saved code of `user` that `text` is, checked with one slow hash whatever
    /// the account holds: the code's lookup key finds its record; codes made before lookup
    /// keys existed are checked one by one; an account with neither, and an unknown one,
    /// checks a decoy, so that it takes as long as a wrong code.
    private func savedCode(_ text: String, of user: User?) async throws -> RecoveryCode? {
        let candidate = RecoveryCodeText.normalized(text)
        var unused: [RecoveryCode] = []
        if let user { unused = try await storage.recoveryCodes(userID: user.id).filter { $0.usedAt == nil } }
        let lookup = user.map { Self.lookupKey(candidate, userID: $0.id, key: codeKey) }
        let keyed = unused.first { $0.lookupKey != nil && $0.lookupKey == lookup }
        let candidates = keyed.map { [$0] } ?? unused.filter { $0.lookupKey == nil }
        return try await PasswordService.offloaded { [candidates] () -> RecoveryCode? in
            guard !candidates.isEmpty else {
                _ = PasswordHasher.verify(candidate, against: Self.decoyHash)
                return nil
            }
            return candidates.first { PasswordHasher.verify(candidate, against: $0.hash) }
        }
    }

    // MARK: - Enrollment links

    /// Digits of an enrollment link's code: it is handed on by an administrator and may be
    /// typed, so digits; 16 of them against at most ``VerificationSettings/maximumAttempts``
    /// guesses.
    static let enrollmentCodeDigits = 16

    /// The link an enrollment code is handed out in: the code in the fragment, which a
    /// browser sends to no server.
    public static func enrollmentURL(publicURL: String, userID: UserID, code: String) -> String {
        var fragment = URLComponents()
        fragment.queryItems = [URLQueryItem(name: "user", value: userID.rawValue), URLQueryItem(name: "code", value: code)]
        return publicURL + "/enroll#" + (fragment.percentEncodedQuery ?? "")
    }

    /// Makes a one-use enrollment link's code for an account: with it, the person adds a
    /// passkey without signing in (a new device, a lost one, an account made ahead of its
    /// first sign-in). A new code replaces the account's previous one.
    /// - Parameter actor: Who made it, for the audit trail.
    /// - Throws: `not_found` (`user_not_found`); `invalid_grant` (`account_disabled`).
    public func createEnrollmentLink(userID: UserID, lifetime: TimeInterval, by actor: String, origin: RequestOrigin?) async throws -> (code: String, expiresAt: Date) {
        guard let user = try await storage.user(id: userID) else { throw IdentityError(.notFound, "no user has this ID", reason: .userNotFound) }
        guard !user.isDisabled else { throw IdentityError(.conflict, "this account is disabled; enable it first", reason: .accountDisabled) }
        let now = clock.now()
        let code = OneTimeCodeText.new(digits: Self.enrollmentCodeDigits, random: random)
        let expiresAt = now.addingTimeInterval(lifetime)
        try await storage.saveOneTimeCode(
            OneTimeCode(
                userID: userID, purpose: .enrollment, hash: Self.hash(code, userID: userID, purpose: .enrollment, key: codeKey), address: "",
                createdAt: now, expiresAt: expiresAt
            ),
            queueing: nil
        )
        try await storage.record(AuditEvent(time: now, kind: .enrollmentLinkCreated, userID: userID, detail: "expires \(Int(lifetime)) s after", actor: actor, origin: origin))
        return (code, expiresAt)
    }

    /// Uses an enrollment link's code: the account, for a session that may only add a passkey.
    /// - Throws: `invalid_grant` with reason `invalid_code`, `expired_code`,
    ///   `too_many_attempts` or `account_disabled`; an unknown account gets `invalid_code`.
    public func redeemEnrollmentLink(userID: UserID, code: String, clientID: String?, origin: RequestOrigin?) async throws -> User {
        guard let user = try await storage.user(id: userID) else { throw IdentityError(.invalidGrant, "the code is wrong", reason: .invalidCode) }
        do {
            try await check(code, purpose: .enrollment, subject: user.id, address: "")
        } catch let error as IdentityError {
            try await storage.record(AuditEvent(time: clock.now(), kind: .recoveryFailed, userID: user.id, clientID: clientID, detail: "enrollment link", origin: origin))
            throw IdentityError(.invalidGrant, error.message, reason: error.reason)
        }
        return try await recovered(user, method: .enrollmentLink, clientID: clientID, origin: origin)
    }

    /// How an account got back in: its raw value keys the mail's words, its detail is the
    /// audit trail's (as it always read).
    private enum RecoveryMethod: String {
        case emailCode = "email_code", recoveryCode = "recovery_code", enrollmentLink = "enrollment_link"

        var auditDetail: String {
            switch self {
            case .emailCode: "email code"
            case .recoveryCode: "a saved recovery code"
            case .enrollmentLink: "an enrollment link"
            }
        }
    }

    private func recovered(_ user: User, method: RecoveryMethod, clientID: String?, origin: RequestOrigin?) async throws -> User {
        let now = clock.now()
        guard !user.isDisabled else {
            try await storage.record(AuditEvent(time: now, kind: .recoveryFailed, userID: user.id, clientID: clientID, detail: "account disabled", origin: origin))
            throw IdentityError.accountDisabled
        }
        try await storage.record(AuditEvent(time: now, kind: .accountRecovered, userID: user.id, clientID: clientID, detail: method.auditDetail, origin: origin))
        if user.isEmailVerified {
            // The message names the way in its reader's language (`mail.method.<raw value>`).
            try await mailer.queue(.accountRecovered, to: user, values: ["method": method.rawValue])
        }
        return user
    }

    // MARK: - One-time codes

    static let invalidCode = IdentityError(.invalidRequest, "the code is wrong", reason: .invalidCode)
    private static let tooManyGuesses = IdentityError(.invalidRequest, "this code took too many wrong guesses; ask for a new one", reason: .tooManyAttempts)
    private static let tooManyWrongCodes = IdentityError(
        .invalidRequest,
        "this account took too many wrong codes, so emailed codes no longer work for it; use a saved recovery code, or ask an administrator for an enrollment link",
        reason: .tooManyAttempts
    )

    /// Whose codes an address that no account can take one through has: a stand-in derived
    /// from the address under the instance's key (never a user ID: those hold no ":"), so
    /// that such an address keeps codes, counts guesses and is refused as an account is.
    private func standIn(for address: String) -> UserID {
        let digest = HMAC<SHA256>.authenticationCode(for: Data("stand-in\n\(address)".utf8), using: codeKey)
        return UserID(rawValue: "decoy:" + UUIDText.hex(Array(digest.prefix(16))))
    }

    /// Counts a code mail (or a change of address) against the account's hourly allowance.
    private func admitCodeMail(for subject: UserID) async throws {
        let count = try await storage.countAccountEvents(.codeMails, subject: subject, adding: 1, window: 3600, at: clock.now())
        guard count <= settings.mailsPerHour else {
            throw IdentityError(
                .tooManyRequests, "this account asked for \(settings.mailsPerHour) codes in the last hour; try again later", reason: .rateLimited(retryAfter: 600)
            )
        }
    }

    /// Where the next code for `purpose` stands in its run of re-issues.
    struct CodeTurn {
        let purpose: OneTimeCodePurpose
        let subject: UserID
        /// The code it replaces, if any.
        let stored: OneTimeCode?
        /// Its place in the run.
        let issued: Int
    }

    /// The next code's turn, once the last code's cool-down is over: a re-issue waits
    /// ``VerificationSettings/resendCooldown`` doubled for each code issued before it in the
    /// run. Checked before the account's hourly allowance is counted, so waiting costs none of it.
    /// - Throws: `too_many_requests` (`rate_limited`, with the seconds left) while it lasts.
    private func nextCode(_ purpose: OneTimeCodePurpose, subject: UserID) async throws -> CodeTurn {
        let now = clock.now()
        let stored = try await storage.oneTimeCode(userID: subject, purpose: purpose)
        guard let stored, now.timeIntervalSince(stored.createdAt) < Self.reissueMemory else {
            return CodeTurn(purpose: purpose, subject: subject, stored: stored, issued: 1)
        }
        let wait = min(settings.resendCooldown * Double(1 << min(max(stored.issued - 1, 0), 20)), Self.longestCooldown)
        let allowed = stored.createdAt.addingTimeInterval(wait)
        guard now >= allowed else { throw Self.coolingDown(until: allowed, now: now) }
        return CodeTurn(purpose: purpose, subject: subject, stored: stored, issued: stored.issued + 1)
    }

    /// A code for a flow that answers the same whatever happens (``startRecovery(email:)``):
    /// refusals are the answer's business, not the caller's.
    private func quietlyIssue(_ purpose: OneTimeCodePurpose, subject: UserID, mailTo user: User?, address: String) async throws {
        let turn = try await nextCode(purpose, subject: subject)
        try await admitCodeMail(for: subject)
        try await issueCode(turn, mailTo: user, address: address)
    }

    /// Makes, stores and (to an account) mails a code in its turn. The store writes it only
    /// over the code the turn saw, so of two racing requests one is refused.
    /// - Parameter user: Whom to mail; `nil` for a stand-in, whose code goes nowhere.
    private func issueCode(_ turn: CodeTurn, mailTo user: User?, address: String) async throws {
        let now = clock.now()
        let code = OneTimeCodeText.new(digits: settings.codeDigits, random: random)
        let mail = user.flatMap { user in
            mailer.compose(
                turn.purpose == .recovery ? .recoveryCode : .verificationCode, to: user, address: address,
                values: ["code": code, "minutes": String(Int(settings.codeLifetime / 60))]
            )
        }
        let record = OneTimeCode(
            userID: turn.subject, purpose: turn.purpose, hash: Self.hash(code, userID: turn.subject, purpose: turn.purpose, key: codeKey), address: address,
            createdAt: now, expiresAt: now.addingTimeInterval(settings.codeLifetime), issued: turn.issued
        )
        guard try await storage.saveOneTimeCode(record, queueing: mail, replacing: turn.stored.map { .code(hash: $0.hash) } ?? .none) else {
            throw Self.coolingDown(until: now.addingTimeInterval(settings.resendCooldown), now: now)
        }
        if mail != nil { mailer.didQueue() }
    }

    private static func coolingDown(until allowed: Date, now: Date) -> IdentityError {
        let seconds = max(1, Int(allowed.timeIntervalSince(now).rounded(.up)))
        return IdentityError(.tooManyRequests, "a code was sent a moment ago; ask for another in \(seconds) s", reason: .rateLimited(retryAfter: seconds))
    }

    /// Checks a one-time code and uses it up. The account's run of wrong codes is checked
    /// first (an enrollment link, an administrator's rescue, is exempt and does not add to
    /// it), then the code's own guesses, counted before the comparison so that no more than
    /// ``VerificationSettings/maximumAttempts`` are ever compared. A right code ends the run.
    private func check(_ code: String, purpose: OneTimeCodePurpose, subject: UserID, address: String) async throws {
        let now = clock.now()
        let capped = purpose != .enrollment
        if capped {
            let failures = try await storage.countAccountEvents(.codeFailures, subject: subject, adding: 0, window: Self.failureWindow, at: now)
            guard failures < VerificationSettings.maximumConsecutiveFailures else { throw Self.tooManyWrongCodes }
        }
        guard let stored = try await storage.oneTimeCode(userID: subject, purpose: purpose) else { throw Self.invalidCode }
        guard stored.attempts < settings.maximumAttempts else { throw Self.tooManyGuesses }
        guard now < stored.expiresAt else {
            throw IdentityError(.invalidRequest, "this code has expired; ask for a new one", reason: .expiredCode)
        }
        guard let attempts = try await storage.countOneTimeCodeAttempt(userID: subject, purpose: purpose) else { throw Self.invalidCode }
        guard attempts <= settings.maximumAttempts else { throw Self.tooManyGuesses }
        let hash = Self.hash(OneTimeCodeText.normalized(code), userID: subject, purpose: purpose, key: codeKey)
        // Constant-time comparison: the time does not tell how much of the hash matched.
        var difference: UInt8 = hash.count == stored.hash.count ? 0 : 1
        for (a, b) in zip(hash, stored.hash) { difference |= a ^ b }
        guard difference == 0, stored.address == address, try await storage.consumeOneTimeCode(userID: subject, purpose: purpose, hash: hash) else {
            if capped { _ = try await storage.countAccountEvents(.codeFailures, subject: subject, adding: 1, window: Self.failureWindow, at: now) }
            throw Self.invalidCode
        }
        try await storage.resetAccountCounter(.codeFailures, subject: subject)
    }

    static func hash(_ code: String, userID: UserID, purpose: OneTimeCodePurpose, key: SymmetricKey) -> [UInt8] {
        let message = Data("\(purpose.rawValue)\n\(userID.rawValue)\n\(code)".utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }

    /// A saved recovery code's lookup key: an HMAC under the instance's key, so that the
    /// stored key says nothing of the code without that key.
    static func lookupKey(_ normalizedCode: String, userID: UserID, key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Data("recovery-code\n\(userID.rawValue)\n\(normalizedCode)".utf8), using: key))
    }

    /// A hash that matches nothing, checked for accounts without codes.
    private static let decoyHash = (try? recoveryCodeHasher.hash("decoy", salt: Array(repeating: 7, count: 16))) ?? ""
}

/// The text of emailed codes: decimal digits, from a uniform draw.
enum OneTimeCodeText {
    static func new(digits: Int, random: any RandomSource) -> String {
        var code = ""
        while code.count < digits {
            // Bytes of 250 or more are skipped, so each digit is uniform (250 = 25 × 10).
            for byte in random.bytes(digits * 2) where byte < 250 && code.count < digits { code.append(Character(String(byte % 10))) }
        }
        return code
    }

    /// Digits only: people paste codes with spaces.
    static func normalized(_ text: String) -> String { String(text.filter { $0.isASCII && $0.isNumber }.prefix(32)) }
}

/// The text of saved recovery codes: 16 Crockford base32 characters (80 bits) in groups of
/// four, read back forgivingly (case, dashes, spaces, O for 0, I and L for 1).
enum RecoveryCodeText {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    static func new(random: any RandomSource) -> String {
        let bytes = random.bytes(10)
        var bits = 0, value = 0, characters: [Character] = []
        for byte in bytes {
            value = (value << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                characters.append(alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
            value &= (1 << bits) - 1
        }
        return stride(from: 0, to: 16, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    static func normalized(_ text: String) -> String {
        String(text.uppercased().compactMap { character -> Character? in
            switch character {
            case "-", " ": return nil
            case "O": return "0"
            case "I", "L": return "1"
            default: return character
            }
        }.prefix(64))
    }
}
