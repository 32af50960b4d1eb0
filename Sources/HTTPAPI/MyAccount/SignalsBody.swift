import IdentityCore
import WebAuthn

/// `GET /me/v1/signals`, and the `signals` member of responses that change what it holds.
struct SignalsBody: Encodable {
    let rp_id: String
    /// The user handle, base64url, as `userId` in the WebAuthn signal methods.
    let user_id: String
    let all_accepted_credential_ids: [String]
    let name: String
    let display_name: String
    let unused_password: UnusedPasswordBody?

    struct UnusedPasswordBody: Encodable {
        let domain: String
        let username: String
    }

    init(_ signals: AccountSignals) {
        rp_id = signals.relyingPartyID
        user_id = Base64URL.encode(signals.userHandle)
        all_accepted_credential_ids = signals.acceptedCredentialIDs.map(Base64URL.encode)
        name = signals.name
        display_name = signals.displayName
        unused_password = signals.unusedPassword.map { UnusedPasswordBody(domain: $0.domain, username: $0.username) }
    }

    private enum CodingKeys: CodingKey {
        case rp_id, user_id, all_accepted_credential_ids, name, display_name, unused_password
    }

    /// Written by hand so that `unused_password` is `null` rather than absent: the contract
    /// names the member either way.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rp_id, forKey: .rp_id)
        try container.encode(user_id, forKey: .user_id)
        try container.encode(all_accepted_credential_ids, forKey: .all_accepted_credential_ids)
        try container.encode(name, forKey: .name)
        try container.encode(display_name, forKey: .display_name)
        try container.encode(unused_password, forKey: .unused_password)
    }
}

/// A response that changed what credential managers hold: its `signals`.
struct SignalsEnvelope: Encodable {
    let signals: SignalsBody
}

/// `PATCH /me/v1/profile` body.
struct UpdateProfileRequest: Decodable {
    let name: String?
    let email: String?
}

/// `PATCH /me/v1/profile {"email"}`'s answer: the address a code was sent to.
struct PendingEmailBody: Encodable {
    let pending_email: String
}
