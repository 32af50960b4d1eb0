import IdentityCore
import Logging

/// One structured log line per security event: sign-ups, logins and their failures (with the
/// failed check's code), enrollments, revocations, refreshes and refresh-token reuse, and
/// administrative actions. The line's message is the event kind; the rest is metadata, so
/// that `logging.format: json` gives a collector one object per event.
enum SecurityEventLog {
    static func attach(_ feed: SecurityEventFeed, to logger: Logger) {
        feed.watch { event in
            var metadata: Logger.Metadata = ["event": .string(event.kind.rawValue)]
            if let userID = event.userID { metadata["user"] = .string(userID.rawValue) }
            if let clientID = event.clientID { metadata["client"] = .string(clientID) }
            if let credentialID = event.credentialID { metadata["credential"] = .string(credentialID) }
            if !event.detail.isEmpty {
                // A failure's detail starts with the failed check's stable code ("bad_signature: …").
                if let code = event.detail.split(separator: ":", maxSplits: 1).first, code.allSatisfy({ $0.isLowercase || $0 == "_" }), code.contains("_") {
                    metadata["reason"] = .string(String(code))
                }
                metadata["detail"] = .string(String(event.loggedDetail.prefix(512)))
            }
            logger.log(level: level(of: event.kind), "\(event.kind.rawValue)", metadata: metadata, source: "security")
        }
    }

    /// Refusals an operator should notice are warnings; the rest is information.
    private static func level(of kind: AuditEvent.Kind) -> Logger.Level {
        switch kind {
        case .loginFailed, .adminAuthenticationFailed, .signCountRegressed, .refreshTokenReused, .authorizationCodeReused, .authenticatorStatusFlagged:
            return .warning
        default:
            return .info
        }
    }
}
