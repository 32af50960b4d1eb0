import Foundation
import LatchkeyWire
import WebAuthn

/// The Security Event Tokens (RFC 8417) a delivery becomes, as SSF 1.0 shapes them: `iss`,
/// `jti` (the delivery's ID: the same on every attempt, so a receiver drops a repeat), `iat`
/// (the audit event's time: a retry signs the same claims), `aud`, `txn` (the audit event's
/// position: one cause, one `txn`, across the events it causes), `sub_id`, and one event.
struct SecurityEventTokens: Sendable {
    let storage: any IdentityStorage
    let tokens: TokenService
    let issuer: String

    /// The signed token for `delivery`, or `nil` when it sends nothing: an audit event the
    /// type reports only sometimes (a change of name, not of email), or a subject the
    /// receiver removed.
    func token(for delivery: WebhookDelivery, type: SignalEventType, stream: SignalStream) async throws -> String? {
        let event = delivery.event.event
        let subject: [String: Any]
        var payload: [String: Any]
        if type == .verification {
            subject = ["format": "opaque", "id": stream.id]
            payload = Self.verificationState(event.detail).map { ["state": $0] } ?? [:]
        } else {
            guard let userID = event.userID, let made = try await self.subject(userID, stream: stream, type: type, event: event),
                let described = try await self.payload(type, event: event)
            else { return nil }
            subject = made
            payload = described
        }
        var claims: [String: Any] = [
            "iss": issuer, "jti": delivery.id, "iat": Int64(event.time.timeIntervalSince1970), "aud": stream.audience, "sub_id": subject,
            "events": [type.rawValue: payload],
        ]
        if type != .verification { claims["txn"] = "evt_\(delivery.event.id)" }
        let json = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        return try await tokens.securityEventToken(Array(json))
    }

    /// The audit detail of a verification a receiver asked for, and the state in it.
    static func verificationDetail(stream: String, state: String?) -> String {
        "ssf verification \(stream)" + (state.map { " state=\($0)" } ?? "")
    }

    static func verificationState(_ detail: String) -> String? {
        detail.range(of: " state=").map { String(detail[$0.upperBound...]) }
    }

    /// How the stream names the account (RFC 9493), or `nil` when the receiver removed it.
    private func subject(_ userID: UserID, stream: SignalStream, type: SignalEventType, event: AuditEvent) async throws -> [String: Any]? {
        let format: SignalStream.SubjectFormat
        switch stream.subjects[userID.rawValue] {
        case .excluded?: return nil
        case .included(let chosen)?: format = chosen
        case nil: format = stream.subjectFormat
        }
        // RISC §2.5: an identifier change names the subject by the old address.
        if type == .identifierChanged, let old = event.previousEmail { return ["format": "email", "email": old] }
        switch format {
        case .opaque: return ["format": "opaque", "id": userID.rawValue]
        case .email:
            if let email = try await storage.user(id: userID)?.profile.email { return ["format": "email", "email": email] }
            // An account without an address (or deleted) is named as in its ID tokens.
            return ["format": "iss_sub", "iss": issuer, "sub": userID.rawValue]
        case .issuerAndSubject: return ["format": "iss_sub", "iss": issuer, "sub": userID.rawValue]
        }
    }

    /// The event's own claims, with CAEP's common ones; `nil` when this audit event is not
    /// one the type reports.
    private func payload(_ type: SignalEventType, event: AuditEvent) async throws -> [String: Any]? {
        let timestamp = Int64(event.time.timeIntervalSince1970)
        let initiator: String = switch event.actorKind.type {
        case "admin_key", "operator", "cli": "admin"
        case "user": event.kind == .authenticatorStatusFlagged ? "policy" : "user"
        default: event.kind == .authenticatorStatusFlagged ? "policy" : "system"
        }
        let common: [String: Any] = [
            "event_timestamp": timestamp, "initiating_entity": initiator, "reason_admin": ["en": event.kind.rawValue.replacingOccurrences(of: "_", with: " ")],
        ]
        switch type {
        case .sessionRevoked:
            return common
        case .credentialChange:
            let change: String? = switch event.kind {
            case .signup, .enrollment: "create"
            case .credentialDeleted, .passwordRemoved: "delete"
            case .credentialDisabled: "revoke"
            case .credentialEnabled: "update"
            default: nil
            }
            guard let change else { return nil }
            var claims = common.merging(["change_type": change]) { $1 }
            if event.kind == .passwordRemoved || (event.kind == .signup && event.credentialID == nil) {
                claims["credential_type"] = "password"
            } else {
                let passkey = try await credential(event.credentialID)
                claims["credential_type"] = Self.credentialType(passkey)
                if let passkey, passkey.aaguid != AAGUID.zero { claims["fido2_aaguid"] = passkey.aaguid.uuidString.lowercased() }
            }
            return claims
        case .assuranceLevelChange:
            // A password gone leaves only passkeys: the account can no longer be entered
            // with one factor (NIST AAL1), only with a phishing-resistant one (AAL2).
            return common.merging([
                "namespace": "NIST-AAL", "current_level": "nist-aal2", "previous_level": "nist-aal1", "change_direction": "increase",
            ]) { $1 }
        case .accountDisabled, .accountEnabled, .accountPurged:
            return [:]
        case .identifierChanged:
            guard event.previousEmail != nil, let userID = event.userID, let email = try await storage.user(id: userID)?.profile.email else { return nil }
            return ["new-value": email]
        case .credentialCompromise:
            let passkey = try await credential(event.credentialID)
            return [
                "credential_type": Self.credentialType(passkey), "event_timestamp": timestamp,
                "reason_admin": ["en": "the authenticator model's FIDO metadata status is refused: \(event.detail)"],
            ]
        case .verification:
            return nil
        }
    }

    private func credential(_ encodedID: String?) async throws -> PasskeyCredential? {
        guard let encodedID, let id = Base64URL.decode(encodedID) else { return nil }
        return try await storage.credential(id: id)
    }

    /// CAEP's `credential_type` for a passkey: a synced one lives with the platform's
    /// account (`fido2-platform`); a device-bound one is a security key or the device's own
    /// (`fido2-roaming` when its transports say it travels). Unknown (deleted): the platform's.
    private static func credentialType(_ passkey: PasskeyCredential?) -> String {
        guard let passkey, !passkey.isBackupEligible else { return "fido2-platform" }
        let roams = passkey.transports.contains { ["usb", "nfc", "ble", "smart-card"].contains($0) }
        return roams ? "fido2-roaming" : "fido2-platform"
    }
}
