/// The events the Shared Signals transmitter sends (OpenID CAEP 1.0, RISC 1.0, SSF 1.0),
/// each with the audit events that cause it.
///
/// One audit event can cause several (a deleted passkey is a `credential-change` and a
/// `session-revoked`); each is a delivery of its own, written by the audit trail's trigger
/// in the change's transaction, with the audit event's ID as their shared `txn`.
public enum SignalEventType: String, Sendable, Hashable, CaseIterable {
    case sessionRevoked = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"
    case credentialChange = "https://schemas.openid.net/secevent/caep/event-type/credential-change"
    case assuranceLevelChange = "https://schemas.openid.net/secevent/caep/event-type/assurance-level-change"
    case accountDisabled = "https://schemas.openid.net/secevent/risc/event-type/account-disabled"
    case accountEnabled = "https://schemas.openid.net/secevent/risc/event-type/account-enabled"
    case accountPurged = "https://schemas.openid.net/secevent/risc/event-type/account-purged"
    case identifierChanged = "https://schemas.openid.net/secevent/risc/event-type/identifier-changed"
    case credentialCompromise = "https://schemas.openid.net/secevent/risc/event-type/credential-compromise"
    /// SSF's own: sent when a receiver asks (SSF §8.1.4), whatever the stream delivers.
    case verification = "https://schemas.openid.net/secevent/ssf/event-type/verification"

    /// The events a receiver may ask for (`events_supported`): all but verification, which
    /// every stream gets on request.
    public static let supported = allCases.filter { $0 != .verification }

    /// The last part of the URI: what a delivery's endpoint ID ends with.
    public var name: String { String(rawValue.split(separator: "/").last ?? "") }

    /// The audit events that cause it. Some are sent for only some of them: an
    /// `identifier-changed` for a profile change of the email address, not of the name.
    public var auditKinds: Set<AuditEvent.Kind> {
        switch self {
        case .sessionRevoked: [.signedOut, .signedOutEverywhere, .sessionRevoked, .credentialDeleted, .credentialDisabled, .passwordRemoved, .consentRevoked]
        case .credentialChange: [.signup, .enrollment, .credentialDeleted, .credentialDisabled, .credentialEnabled, .passwordRemoved]
        case .assuranceLevelChange: [.passwordRemoved]
        case .accountDisabled: [.userDisabled]
        case .accountEnabled: [.userEnabled]
        case .accountPurged: [.userDeleted]
        case .identifierChanged: [.profileUpdated]
        case .credentialCompromise: [.authenticatorStatusFlagged]
        case .verification: []
        }
    }

    /// Every audit event some stream event reports.
    public static let auditKinds = allCases.reduce(into: Set<AuditEvent.Kind>()) { $0.formUnion($1.auditKinds) }

    /// The outbox's endpoint ID for this event on `stream`: `ssf:<stream>:<name>`.
    public func endpoint(stream: String) -> String { SignalStream.endpointPrefix(of: stream) + name }

    /// The stream and event an outbox endpoint ID names, or `nil` for a webhook's.
    public static func parse(endpoint: String) -> (stream: String, type: SignalEventType)? {
        guard endpoint.hasPrefix(SignalStream.endpointPrefix) else { return nil }
        let rest = endpoint.dropFirst(SignalStream.endpointPrefix.count)
        guard let colon = rest.lastIndex(of: ":"), let type = allCases.first(where: { $0.name == rest[rest.index(after: colon)...] }) else { return nil }
        return (String(rest[..<colon]), type)
    }
}
