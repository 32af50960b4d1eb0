import Crypto
public import Foundation

/// How verification and recovery codes behave (`verification:` in the configuration).
public struct VerificationSettings: Sendable, Hashable {
    /// How long an emailed code works (`verification.code_lifetime`, 15 minutes).
    public var codeLifetime: TimeInterval
    /// Wrong guesses a code takes before it stops working.
    public var maximumAttempts: Int
    /// The digits in an emailed code (6 or more).
    public var codeDigits: Int
    /// Whether sign-up sends a verification code (`verification.on_signup`).
    public var onSignup: Bool

    /// Creates settings; the defaults are the ones above.
    public init(codeLifetime: TimeInterval = 15 * 60, maximumAttempts: Int = 5, codeDigits: Int = 6, onSignup: Bool = true) {
        self.codeLifetime = codeLifetime
        self.maximumAttempts = maximumAttempts
        self.codeDigits = max(6, codeDigits)
        self.onSignup = onSignup
    }
}

/// Getting people back in: verified email addresses, saved recovery codes, and recovery by
/// a code sent to a verified address (NIST SP 800-63B-4 §4.2). Every face's recovery story
/// (My Account and the recovery grant, the hosted pages, Kratos's flows) calls this.
public struct AccountRecoveryService: Sendable {
    private let storage: any IdentityStorage
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
    /// follow NIST's "stored hashed" rather than to slow guessing: 2^12 rounds keep the
    /// check of a set of ten under a tenth of a second.
    static let recoveryCodeHasher = PasswordHasher(logRounds: 12, blockSize: 8, parallelism: 1)
    /// Codes in a set.
    public static let recoveryCodeCount = 10

    /// Creates the service.
    public init(
        storage: any IdentityStorage, mailer: Mailer, secrets: InstanceSecrets, settings: VerificationSettings = VerificationSettings(), clock: any WallClock,
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
    /// - Throws: `invalid_request` when the account has no email address.
    public func sendEmailVerification(userID: UserID) async throws {
        guard let user = try await storage.user(id: userID) else { throw IdentityError(.notFound, "no such user") }
        guard let email = user.profile.email else {
            throw IdentityError(.invalidRequest, "this account has no email address to verify", reason: .required, field: "email")
        }
        try await rateLimits?.admit(identifier: .email(email))
        try await sendCode(.emailVerification, kind: .verificationCode, to: user, address: email)
    }

    /// What sign-up does when `verification.on_signup` is on: sends the code. A failure to
    /// queue it does not undo the sign-up; the person can ask for another code.
    public func signedUp(_ user: User) async {
        guard settings.onSignup, let email = user.profile.email else { return }
        try? await sendCode(.emailVerification, kind: .verificationCode, to: user, address: email)
    }

    /// Starts changing the account's email address: a sensitive action (the sign-in must be
    /// recent), and the new address is proved by a code sent to it before it replaces the
    /// old one (``verifyEmail(userID:code:)`` finishes the change).
    /// - Returns: The new address, normalized.
    /// - Throws: `invalid_request` for a malformed, unchanged or taken address.
    public func requestEmailChange(by signIn: SignIn, to newEmail: String) async throws -> String {
        try sensitiveActions.requireRecent(signIn, for: "Changing your email address")
        let profile = try ProfileValidation.validate(UserProfile(email: newEmail), allowed: [.email])
        guard let address = profile.email, let user = try await storage.user(id: signIn.userID) else {
            throw IdentityError(.invalidRequest, "email must be an email address", reason: .malformedIdentifier, field: "email")
        }
        guard address != user.profile.email else { throw IdentityError(.invalidRequest, "this is already the account's email address", field: "email") }
        try await rateLimits?.admit(identifier: .email(address))
        guard try await storage.user(identifier: .email(address)) == nil else {
            throw IdentityError(.invalidRequest, "another account has this email address", reason: .userExists(.email), field: "email")
        }
        try await sendCode(.emailChange, kind: .verificationCode, to: user, address: address)
        return address
    }

    /// Checks a verification code: the one for a pending change of address when there is one
    /// (the new address then replaces the old, verified, and the old one is told), else the
    /// one that verifies the current address.
    /// - Throws: `invalid_request` with reason `invalid_code`, `expired_code` or
    ///   `too_many_attempts`.
    public func verifyEmail(userID: UserID, code: String) async throws -> User {
        if let pending = try await storage.oneTimeCode(userID: userID, purpose: .emailChange), let user = try await storage.user(id: userID),
            let old = user.profile.email
        {
            try await rateLimits?.admit(identifier: .email(pending.address))
            try await check(code, purpose: .emailChange, userID: userID, address: pending.address)
            let now = clock.now()
            let changed: User?
            do {
                changed = try await storage.changeEmail(userID: userID, from: old, to: pending.address, at: now)
            } catch is StoreConflict {
                throw IdentityError(.invalidRequest, "another account took this email address meanwhile", reason: .userExists(.email), field: "email")
            }
            guard let changed else { throw Self.invalidCode }
            try await storage.record(AuditEvent(time: now, kind: .profileUpdated, userID: userID, detail: "email"))
            if user.isEmailVerified {
                try await mailer.queue(.emailChanged, to: user, address: old, values: ["new_email": pending.address])
            }
            return changed
        }
        guard let user = try await storage.user(id: userID), let email = user.profile.email else {
            throw IdentityError(.invalidRequest, "this account has no email address to verify", reason: .required, field: "email")
        }
        try await rateLimits?.admit(identifier: .email(email))
        try await check(code, purpose: .emailVerification, userID: userID, address: email)
        let now = clock.now()
        guard let verified = try await storage.markEmailVerified(userID: userID, email: email, at: now) else {
            throw Self.invalidCode
        }
        try await storage.record(AuditEvent(time: now, kind: .emailVerified, userID: userID, detail: "email"))
        return verified
    }

    /// Sends a verification code to `email` when it is an account's address, for flows that
    /// start from an address rather than a signed-in account (Kratos's verification flow).
    /// The answer is the same whatever the address, and the code is queued off the
    /// request's path.
    public func sendVerification(toAddress email: String) async throws {
        guard let identifier = ProfileValidation.identifier(forLogin: email), case .email(let address) = identifier else {
            throw IdentityError(.invalidRequest, "email must be an email address", reason: .malformedIdentifier, field: "email")
        }
        try await rateLimits?.admit(identifier: identifier)
        guard let user = try await storage.user(identifier: identifier), user.profile.email == address else { return }
        let service = self
        Task { try? await service.sendCode(.emailVerification, kind: .verificationCode, to: user, address: address) }
    }

    /// Checks a verification code sent to `email` (see ``sendVerification(toAddress:)``); an
    /// address no account has gets the answer a wrong code gets.
    public func verifyEmail(address email: String, code: String) async throws -> User {
        guard let identifier = ProfileValidation.identifier(forLogin: email), case .email = identifier,
            let user = try await storage.user(identifier: identifier)
        else { throw Self.invalidCode }
        return try await verifyEmail(userID: user.id, code: code)
    }

    // MARK: - Saved recovery codes

    /// Makes a new set of saved recovery codes, replacing any earlier set. Creating a way into
    /// the account is a sensitive action: the sign-in must be recent.
    /// - Returns: The codes, shown once (`XXXX-XXXX-XXXX-XXXX`, Crockford base32).
    public func createRecoveryCodes(by signIn: SignIn) async throws -> [String] {
        try sensitiveActions.requireRecent(signIn, for: "Creating recovery codes")
        let now = clock.now()
        let codes = (0..<Self.recoveryCodeCount).map { _ in RecoveryCodeText.new(random: random) }
        let salts = codes.map { _ in random.bytes(16) }
        let hashes = try await PasswordService.offloaded {
            try zip(codes, salts).map { code, salt in try Self.recoveryCodeHasher.hash(RecoveryCodeText.normalized(code), salt: salt) }
        }
        let records = hashes.enumerated().map { index, hash in
            RecoveryCode(id: String(index + 1), userID: signIn.userID, hash: hash, createdAt: now)
        }
        try await storage.replaceRecoveryCodes(userID: signIn.userID, with: records)
        try await storage.record(AuditEvent(time: now, kind: .recoveryCodesCreated, userID: signIn.userID))
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
    /// path, so the time does not tell either.
    public func startRecovery(email: String) async throws {
        guard let identifier = ProfileValidation.identifier(forLogin: email), case .email(let address) = identifier else {
            throw IdentityError(.invalidRequest, "email must be an email address", reason: .malformedIdentifier, field: "email")
        }
        try await rateLimits?.admit(identifier: identifier)
        let user = try await storage.user(identifier: identifier)
        guard let user, user.isEmailVerified, user.profile.email == address, !user.isDisabled else { return }
        let service = self
        Task { try? await service.sendCode(.recovery, kind: .recoveryCode, to: user, address: address) }
    }

    /// Lets a person who lost their passkeys in: `code` is the one emailed by
    /// ``startRecovery(email:)``, `recoveryCode` one of their saved codes (exactly one of the
    /// two). The account's verified address hears about it, and an audit event records it.
    /// - Returns: The account, for a restricted token that may only enroll a passkey.
    /// - Throws: `invalid_grant` with reason `invalid_code`, `expired_code` or
    ///   `too_many_attempts`; an unknown address gets `invalid_code`, as a wrong code does.
    public func recover(email: String, code: String?, recoveryCode: String?, clientID: String?) async throws -> User {
        guard let identifier = ProfileValidation.identifier(forLogin: email), case .email = identifier else {
            throw IdentityError(.invalidRequest, "email must be an email address", reason: .malformedIdentifier, field: "email")
        }
        switch (code?.isEmpty == false ? code : nil, recoveryCode?.isEmpty == false ? recoveryCode : nil) {
        case (nil, nil), (.some, .some):
            throw IdentityError(.invalidRequest, "send either code (the emailed one) or recovery_code (a saved one)", reason: .required, field: "code")
        case (let code?, nil):
            try await rateLimits?.admit(identifier: identifier)
            guard let user = try await storage.user(identifier: identifier), user.isEmailVerified, let address = user.profile.email else {
                throw IdentityError(.invalidGrant, "the code is wrong", reason: .invalidCode)
            }
            do {
                try await check(code, purpose: .recovery, userID: user.id, address: address)
            } catch let error as IdentityError {
                try await storage.record(AuditEvent(time: clock.now(), kind: .recoveryFailed, userID: user.id, clientID: clientID, detail: "email code"))
                throw IdentityError(.invalidGrant, error.message, reason: error.reason)
            }
            return try await recovered(user, method: "email code", clientID: clientID)
        case (nil, let saved?):
            try await rateLimits?.admit(identifier: identifier)
            let user = try await storage.user(identifier: identifier)
            var codes: [RecoveryCode] = []
            if let user { codes = try await storage.recoveryCodes(userID: user.id) }
            let unused = codes.filter { $0.usedAt == nil }
            let candidate = RecoveryCodeText.normalized(saved)
            // Unknown accounts and accounts without codes check one decoy hash, so that they
            // take about as long as a wrong code.
            let match = try await PasswordService.offloaded { [unused] () -> RecoveryCode? in
                guard !unused.isEmpty else {
                    _ = PasswordHasher.verify(candidate, against: Self.decoyHash)
                    return nil
                }
                return unused.first { PasswordHasher.verify(candidate, against: $0.hash) }
            }
            guard let user, let match, try await storage.useRecoveryCode(userID: user.id, id: match.id, at: clock.now()) else {
                if let user {
                    try await storage.record(AuditEvent(time: clock.now(), kind: .recoveryFailed, userID: user.id, clientID: clientID, detail: "saved code"))
                }
                throw IdentityError(.invalidGrant, "the recovery code is wrong or was used", reason: .invalidCode)
            }
            return try await recovered(user, method: "a saved recovery code", clientID: clientID)
        }
    }

    // MARK: - Enrollment links

    /// Digits of an enrollment link's code: it is handed on by an administrator and may be
    /// typed, so digits; 16 of them against at most ``VerificationSettings/maximumAttempts``
    /// guesses.
    static let enrollmentCodeDigits = 16

    /// Makes a one-use enrollment link's code for an account: with it, the person adds a
    /// passkey without signing in (a new device, a lost one, an account made ahead of its
    /// first sign-in). A new code replaces the account's previous one.
    /// - Parameter actor: Who made it, for the audit trail.
    /// - Throws: `not_found` (`user_not_found`); `invalid_grant` (`account_disabled`).
    public func createEnrollmentLink(userID: UserID, lifetime: TimeInterval, by actor: String) async throws -> (code: String, expiresAt: Date) {
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
        try await storage.record(AuditEvent(time: now, kind: .enrollmentLinkCreated, userID: userID, detail: "expires \(Int(lifetime)) s after", actor: actor))
        return (code, expiresAt)
    }

    /// Uses an enrollment link's code: the account, for a session that may only add a passkey.
    /// - Throws: `invalid_grant` with reason `invalid_code`, `expired_code`,
    ///   `too_many_attempts` or `account_disabled`; an unknown account gets `invalid_code`.
    public func redeemEnrollmentLink(userID: UserID, code: String, clientID: String?) async throws -> User {
        guard let user = try await storage.user(id: userID) else { throw IdentityError(.invalidGrant, "the code is wrong", reason: .invalidCode) }
        do {
            try await check(code, purpose: .enrollment, userID: user.id, address: "")
        } catch let error as IdentityError {
            try await storage.record(AuditEvent(time: clock.now(), kind: .recoveryFailed, userID: user.id, clientID: clientID, detail: "enrollment link"))
            throw IdentityError(.invalidGrant, error.message, reason: error.reason)
        }
        return try await recovered(user, method: "an enrollment link", clientID: clientID)
    }

    private func recovered(_ user: User, method: String, clientID: String?) async throws -> User {
        let now = clock.now()
        guard !user.isDisabled else {
            try await storage.record(AuditEvent(time: now, kind: .recoveryFailed, userID: user.id, clientID: clientID, detail: "account disabled"))
            throw IdentityError.accountDisabled
        }
        try await storage.record(AuditEvent(time: now, kind: .accountRecovered, userID: user.id, clientID: clientID, detail: method))
        if user.isEmailVerified {
            try await mailer.queue(.accountRecovered, to: user, values: ["method": method])
        }
        return user
    }

    // MARK: - One-time codes

    static let invalidCode = IdentityError(.invalidRequest, "the code is wrong", reason: .invalidCode)

    /// Makes, stores and mails a code.
    private func sendCode(_ purpose: OneTimeCodePurpose, kind: MailKind, to user: User, address: String) async throws {
        let now = clock.now()
        let code = OneTimeCodeText.new(digits: settings.codeDigits, random: random)
        guard let mail = mailer.compose(kind, to: user, address: address, values: ["code": code, "minutes": String(Int(settings.codeLifetime / 60))]) else { return }
        try await storage.saveOneTimeCode(
            OneTimeCode(
                userID: user.id, purpose: purpose, hash: Self.hash(code, userID: user.id, purpose: purpose, key: codeKey), address: address,
                createdAt: now, expiresAt: now.addingTimeInterval(settings.codeLifetime)
            ),
            queueing: mail
        )
        mailer.didQueue()
    }

    /// Checks a one-time code and uses it up: the guess is counted first, so no more than
    /// ``VerificationSettings/maximumAttempts`` guesses are ever compared.
    private func check(_ code: String, purpose: OneTimeCodePurpose, userID: UserID, address: String) async throws {
        guard let stored = try await storage.oneTimeCode(userID: userID, purpose: purpose) else { throw Self.invalidCode }
        guard stored.attempts < settings.maximumAttempts else {
            throw IdentityError(.invalidRequest, "this code took too many wrong guesses; ask for a new one", reason: .tooManyAttempts)
        }
        guard clock.now() < stored.expiresAt else {
            throw IdentityError(.invalidRequest, "this code has expired; ask for a new one", reason: .expiredCode)
        }
        guard let attempts = try await storage.countOneTimeCodeAttempt(userID: userID, purpose: purpose) else { throw Self.invalidCode }
        guard attempts <= settings.maximumAttempts else {
            throw IdentityError(.invalidRequest, "this code took too many wrong guesses; ask for a new one", reason: .tooManyAttempts)
        }
        let hash = Self.hash(OneTimeCodeText.normalized(code), userID: userID, purpose: purpose, key: codeKey)
        // Constant-time comparison: the time does not tell how much of the hash matched.
        var difference: UInt8 = hash.count == stored.hash.count ? 0 : 1
        for (a, b) in zip(hash, stored.hash) { difference |= a ^ b }
        guard difference == 0, stored.address == address else {
            throw Self.invalidCode
        }
        guard try await storage.consumeOneTimeCode(userID: userID, purpose: purpose, hash: hash) else { throw Self.invalidCode }
    }

    static func hash(_ code: String, userID: UserID, purpose: OneTimeCodePurpose, key: SymmetricKey) -> [UInt8] {
        let message = Data("\(purpose.rawValue)\n\(userID.rawValue)\n\(code)".utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }

    /// A hash that matches nothing, checked for unknown accounts.
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
