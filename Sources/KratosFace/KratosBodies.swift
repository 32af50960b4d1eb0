import FaceFrame
import Foundation
import IdentityCore
import WebAuthn

/// A flow as Kratos clients read it (`selfservice/flow/{login,registration,settings}/flow.go`).
struct KratosFlowBody: Encodable, Sendable {
    let id, type, expires_at, issued_at: String
    let request_url: String
    var active: String?
    var ui: KratosUI
    var state: String
    // Login flows only.
    var refresh: Bool?
    var requested_aal, created_at, updated_at: String?
    // Settings flows only.
    var identity: KratosIdentityBody?
    // Recovery flows only: what to do after a successful recovery.
    var continue_with: [KratosContinueWith]?
}

/// One `continue_with` item: a session token to keep, or a flow to show next.
struct KratosContinueWith: Encodable, Sendable {
    /// A flow named by a `show_*_ui` item.
    struct FlowReference: Encodable, Sendable {
        let id: String
        /// For `show_verification_ui`: the address being verified.
        var verifiable_address, url: String?
    }

    let action: String
    var ory_session_token: String?
    var flow: FlowReference?

    static func sessionToken(_ token: String) -> KratosContinueWith { KratosContinueWith(action: "set_ory_session_token", ory_session_token: token) }
    static func show(_ action: String, flow id: String, url: String?) -> KratosContinueWith {
        KratosContinueWith(action: action, flow: FlowReference(id: id, url: url))
    }
}

/// An identity (`identity/identity.go`): a Latchkey user under Kratos's names.
struct KratosIdentityBody: Encodable, Sendable {
    struct Address: Encodable, Sendable {
        let id, value: String
        let verified: Bool?
        let via: String
        let status: String?
        let created_at, updated_at: String
        /// When a verifiable address was verified (Kratos's `verified_at`); absent otherwise.
        var verified_at: String? = nil
    }

    let id, schema_id, schema_url, state: String
    let traits: [String: String]
    let verifiable_addresses, recovery_addresses: [Address]
    let created_at, updated_at: String
    /// An imported identity's `metadata_public`, kept as Kratos had it.
    let metadata_public: JSONNode?

    init(_ user: User, publicURL: String) {
        id = KratosIDs.identity(user.id)
        schema_id = "default"
        schema_url = publicURL + "/schemas/ZGVmYXVsdA"
        state = "active"
        var traits: [String: String] = [:]
        traits["email"] = user.profile.email
        traits["phone"] = user.profile.phoneNumber
        traits["username"] = user.profile.username
        traits["name"] = user.profile.name
        self.traits = traits
        let created = WireTime.text(user.createdAt)
        let updated = WireTime.text(user.updatedAt)
        let emails = user.profile.email.map { [$0] } ?? []
        verifiable_addresses = emails.map {
            Address(
                id: KratosIDs.derived("verifiable", $0), value: $0, verified: user.isEmailVerified, via: "email",
                status: user.isEmailVerified ? "completed" : "pending", created_at: created, updated_at: updated,
                verified_at: user.emailVerifiedAt.map(WireTime.text)
            )
        }
        recovery_addresses = emails.map {
            Address(id: KratosIDs.derived("recovery", $0), value: $0, verified: nil, via: "email", status: nil, created_at: created, updated_at: updated)
        }
        created_at = created
        updated_at = updated
        metadata_public = user.metadata.flatMap(JSONNode.init(text:))
    }

    private enum CodingKeys: String, CodingKey {
        case id, schema_id, schema_url, state, traits, verifiable_addresses, recovery_addresses, metadata_public, created_at, updated_at
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(schema_id, forKey: .schema_id)
        try container.encode(schema_url, forKey: .schema_url)
        try container.encode(state, forKey: .state)
        try container.encode(traits, forKey: .traits)
        try container.encode(verifiable_addresses, forKey: .verifiable_addresses)
        try container.encode(recovery_addresses, forKey: .recovery_addresses)
        // Kratos writes `null` here when there is none, not an absent member.
        if let metadata_public { try container.encode(metadata_public, forKey: .metadata_public) } else { try container.encodeNil(forKey: .metadata_public) }
        try container.encode(created_at, forKey: .created_at)
        try container.encode(updated_at, forKey: .updated_at)
    }
}

/// A session (`session/session.go`).
struct KratosSessionBody: Encodable, Sendable {
    struct Method: Encodable, Sendable {
        let method, aal, completed_at: String
    }

    let id: String
    let active: Bool
    let expires_at, authenticated_at, authenticator_assurance_level: String
    let authentication_methods: [Method]
    let issued_at: String
    let identity: KratosIdentityBody
    let devices: [String]

    init(_ session: BrowserSession, user: User, publicURL: String) {
        id = KratosIDs.session(session.tokenHash)
        active = true
        expires_at = WireTime.text(session.expiresAt)
        authenticated_at = WireTime.text(session.authenticatedAt)
        // A passkey is one factor, whatever its user verification (Kratos counts it as aal1),
        // and so is a password.
        authenticator_assurance_level = "aal1"
        // A recovery's session says so, as Kratos's does (`code_recovery`): it proves a code.
        authentication_methods = [Method(method: session.isRecovery ? "code_recovery" : session.method.rawValue, aal: "aal1", completed_at: authenticated_at)]
        issued_at = authenticated_at
        identity = KratosIdentityBody(user, publicURL: publicURL)
        devices = []
    }
}

/// `successfulNativeLogin`; a browser login has no `session_token` (the cookie carries it).
struct KratosLoginSuccess: Encodable, Sendable {
    let session_token: String?
    let session: KratosSessionBody

    private enum CodingKeys: String, CodingKey { case session_token, session, continue_with }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(session_token, forKey: .session_token)
        try container.encode(session, forKey: .session)
        // `continue_with` has no omitempty in Kratos: an empty list is written as null.
        try container.encodeNil(forKey: .continue_with)
    }
}

/// `successfulNativeRegistration`, with the session the `session` hook starts.
struct KratosRegistrationSuccess: Encodable, Sendable {
    struct ContinueWith: Encodable, Sendable {
        let action, ory_session_token: String
    }

    let identity: KratosIdentityBody
    let session_token: String
    let session: KratosSessionBody
    let continue_with: [ContinueWith]
}

/// A browser registration's JSON answer: the session is in the cookie.
struct KratosBrowserRegistrationSuccess: Encodable, Sendable {
    let identity: KratosIdentityBody
    let session: KratosSessionBody
    let continue_with: [String] = []
}

/// Kratos's ids for Latchkey's values: UUID-shaped, stable, and revealing nothing secret.
enum KratosIDs {
    /// A user's identity ID: the user ID's 16 random bytes as a UUID, so the same account
    /// has the same ID in every face.
    static func identity(_ userID: UserID) -> String { userID.uuid }

    /// A session's ID, derived from its token's hash (the token itself is never stored).
    static func session(_ tokenHash: [UInt8]) -> String { uuid(Array(TokenService.hash("kratos-session:" + Base64URL.encode(tokenHash)).prefix(16))) }

    /// A stable ID derived from a label and a value.
    static func derived(_ label: String, _ value: String) -> String { uuid(Array(TokenService.hash(label + ":" + value).prefix(16))) }

    /// Derived IDs carry version 4's bits (RFC 9562), as strict UUID validators require.
    static func uuid(_ bytes: [UInt8]) -> String { UUIDText.random(bytes) }

    /// The credential ID as Kratos names it in `passkey_remove`: lower-case hex.
    static func hex(_ bytes: [UInt8]) -> String { UUIDText.hex(bytes) }

    /// Reads a `passkey_remove` value.
    static func bytes(hex: String) -> [UInt8]? { UUIDText.bytes(hex: hex) }
}
