import Crypto
public import Foundation
import WebAuthn

/// An application allowed to call administration operations (the IDaaS face's
/// Administration API applications), configured with a shared secret.
public struct AdminApplication: Sendable, Hashable {
    /// The application's ID, as it authenticates.
    public let id: String
    /// A name for logs and audit events.
    public let name: String
    /// SHA-256 of the shared secret. Comparing digests of equal length, in constant time,
    /// takes the same time for any guess, whatever its length.
    let secretDigest: [UInt8]

    /// Keeps only the SHA-256 of `sharedSecret`.
    public init(id: String, name: String, sharedSecret: String) {
        self.id = id
        self.name = name
        self.secretDigest = Array(SHA256.hash(data: Array(sharedSecret.utf8)))
    }
}

/// Authenticates administration applications and checks their tokens. A token is random,
/// stored only as its SHA-256, expires, and names the application it was issued to; it is
/// looked up in its own store, so no user's token can ever pass as one.
public struct AdministrationService: Sendable {
    private let applications: [String: AdminApplication]
    private let store: any AdminTokenStore
    private let audit: any AuditLog
    private let clock: any WallClock
    private let random: any RandomSource
    /// How long a token lasts.
    public let tokenLifetime: TimeInterval

    /// When two applications share an ID, the first one listed is used.
    public init(applications: [AdminApplication], store: any AdminTokenStore, audit: any AuditLog, clock: any WallClock, random: any RandomSource, tokenLifetime: TimeInterval) {
        self.applications = Dictionary(applications.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.store = store
        self.audit = audit
        self.clock = clock
        self.random = random
        self.tokenLifetime = tokenLifetime
    }

    /// The prefix of every administration token.
    static let tokenPrefix = "lk_admin_"

    /// Issues a token to an application that proves its shared secret.
    /// - Throws: `invalid_client` when the application is unknown or the secret is wrong;
    ///   both answer the same, so the response does not reveal which application IDs exist.
    public func authenticate(applicationID: String, sharedSecret: String, origin: RequestOrigin?) async throws -> (token: String, record: AdminToken) {
        let digest = Array(SHA256.hash(data: Array(sharedSecret.utf8)))
        guard let application = applications[applicationID], Bytes.constantTimeEqual(digest, application.secretDigest) else {
            try await audit.record(AuditEvent(
                time: clock.now(), kind: .adminAuthenticationFailed, clientID: String(applicationID.prefix(128)), detail: "unknown application or wrong shared secret", origin: origin
            ))
            throw IdentityError(.invalidClient, "the application ID or shared secret is wrong")
        }
        let now = clock.now()
        let token = Self.tokenPrefix + Base64URL.encode(random.bytes(32))
        let record = AdminToken(tokenHash: TokenService.hash(token), applicationID: application.id, createdAt: now, expiresAt: now.addingTimeInterval(tokenLifetime))
        try await store.saveAdminToken(record)
        try await audit.record(AuditEvent(time: now, kind: .adminAuthenticated, clientID: application.id, detail: "administration token issued to \(application.name)", origin: origin))
        return (token, record)
    }

    /// The application a live token was issued to.
    /// - Throws: `invalid_token` when the token is missing, unknown, expired, or its
    ///   application is no longer configured.
    public func application(token: String?) async throws -> AdminApplication {
        guard let token, token.hasPrefix(Self.tokenPrefix), token.utf8.count <= 128,
            let record = try await store.adminToken(hash: TokenService.hash(token), at: clock.now()),
            let application = applications[record.applicationID]
        else {
            throw IdentityError(.invalidToken, "an administration token from /api/web/v1/adminapi/authenticate is required in Authorization")
        }
        return application
    }
}
