import Foundation
import LatchkeyWire

/// What the account page shows a person beyond their passkeys: where the account is signed
/// in (each browser session and app session, with the device that started it), what happened
/// to it lately, and signing out one of those places or every one but this.
public struct AccountCenter: Sendable {
    /// What it reads and changes: sessions and the audit trail.
    public typealias Storage = AdministrationStore & AuditLog

    private let storage: any Storage
    private let clock: any WallClock
    private let sensitiveActions: SensitiveActions

    public init(storage: any Storage, clock: any WallClock, sensitiveActions: SensitiveActions) {
        self.storage = storage
        self.clock = clock
        self.sensitiveActions = sensitiveActions
    }

    /// A place where the account is signed in.
    public struct SignedInPlace: Sendable, Hashable {
        public let session: SessionSummary
        /// The `User-Agent` of the sign-in that started it, when the audit trail still has it.
        public let userAgent: String?
        /// The address it signed in from, likewise.
        public let address: String?
        /// Whether it is the session of the request asking.
        public let isCurrent: Bool
    }

    /// The sign-ins that start a session, whose request says which device it was.
    private static let startingKinds: Set<AuditEvent.Kind> = [.signup, .login, .accountRecovered]

    /// How many of the account's recent events are searched for each session's sign-in.
    private static let eventsSearched = 500

    /// The account's live sessions, newest first, the current one marked. Each session's
    /// device comes from the sign-in event written with it (same passkey, same moment).
    /// - Parameter currentID: The asking session's ID (``SessionSummary/id``).
    public func places(of userID: UserID, currentID: String?) async throws -> [SignedInPlace] {
        let now = clock.now()
        let sessions = try await storage.sessions(userID: userID).filter { $0.isActive(at: now) }
        guard !sessions.isEmpty else { return [] }
        let starts = try await storage.events(userID: userID, limit: Self.eventsSearched).filter { Self.startingKinds.contains($0.kind) }
        // Each session's sign-in is the event closest to its start (within seconds, with the
        // same passkey) that no other session claimed: two sign-ins a moment apart with one
        // synced passkey each keep their own device.
        var claimed = Set<Int>()
        return sessions.map { session in
            let credential = session.credentialID.map { Base64URL.encode($0) }
            let start = starts.indices
                .filter { index in
                    let event = starts[index]
                    return !claimed.contains(index) && abs(event.time.timeIntervalSince(session.startedAt)) <= 5
                        && (credential == nil || event.credentialID == nil || event.credentialID == credential)
                }
                .min { abs(starts[$0].time.timeIntervalSince(session.startedAt)) < abs(starts[$1].time.timeIntervalSince(session.startedAt)) }
            if let start { claimed.insert(start) }
            let origin = start.flatMap { starts[$0].origin }
            return SignedInPlace(session: session, userAgent: origin?.userAgent, address: origin?.ip, isCurrent: session.id == currentID)
        }
    }

    /// What a person wants to see of their account's history: sign-ins and failed ones,
    /// passkeys and passwords coming and going, recoveries, sessions ended; newest first.
    public func activity(of userID: UserID, limit: Int = 20) async throws -> [AuditEvent] {
        Array(try await storage.events(userID: userID, limit: Self.eventsSearched).lazy.filter { Self.shownKinds.contains($0.kind) }.prefix(limit))
    }

    /// The events ``activity(of:limit:)`` shows.
    public static let shownKinds: Set<AuditEvent.Kind> = [
        .signup, .login, .loginFailed, .enrollment, .credentialDeleted, .credentialRenamed, .credentialDisabled, .credentialEnabled, .passwordRemoved,
        .signedOutEverywhere, .sessionRevoked, .accountRecovered, .recoveryFailed, .emailVerified, .recoveryCodesCreated, .signCountRegressed,
        .userDisabled, .userEnabled, .consentRevoked,
    ]

    /// Ends one of the account's sessions. Needs a recent sign-in, so that someone who took
    /// over a session cannot sign the owner out elsewhere.
    /// - Throws: `not_found` when the account has no such live session.
    public func endSession(id: String, by signIn: SignIn, clientID: String, origin: RequestOrigin?) async throws {
        try sensitiveActions.requireRecent(signIn, for: "Signing out another device")
        let now = clock.now()
        guard try await storage.revokeSession(id: id, userID: signIn.userID, at: now) else {
            throw IdentityError(.notFound, "no session of your account has this ID, or it has already ended")
        }
        try await storage.record(AuditEvent(time: now, kind: .sessionRevoked, userID: signIn.userID, clientID: clientID, detail: "session \(id) ended by its owner", origin: origin))
    }

    /// Ends every live session of the account except `currentID`.
    /// - Returns: How many ended.
    public func endOtherSessions(keeping currentID: String, by signIn: SignIn, clientID: String, origin: RequestOrigin?) async throws -> Int {
        try sensitiveActions.requireRecent(signIn, for: "Signing out everywhere else")
        let now = clock.now()
        var ended = 0
        for session in try await storage.sessions(userID: signIn.userID) where session.id != currentID && session.isActive(at: now) {
            if try await storage.revokeSession(id: session.id, userID: signIn.userID, at: now) { ended += 1 }
        }
        try await storage.record(AuditEvent(
            time: now, kind: .sessionRevoked, userID: signIn.userID, clientID: clientID, detail: "\(ended) other session(s) ended by their owner", origin: origin
        ))
        return ended
    }
}
