import Foundation
public import FaceFrame
public import Hummingbird
public import IdentityCore
public import Logging

/// Kratos's generic error envelope (`ory/herodot`'s `DefaultError`), with the extra
/// top-level members some errors carry.
struct KratosErrorBody: Encodable {
    struct Detail: Encodable {
        let id: String?
        let code: Int
        let status: String
        let reason: String?
        let message: String
        /// Free-form details (`continue_with` for a replaced recovery flow).
        var details: Details?
    }

    struct Details: Encodable {
        var continue_with: [KratosContinueWith]?
    }

    var error: Detail
    var use_flow_id, expired_at: String?
    var since: Int64?
    var redirect_browser_to: String?
}

/// A submission Kratos answers with the flow itself and its messages (usually 400).
struct KratosFlowRejection: Error {
    let status: HTTPResponse.Status
    let flow: KratosFlowBody
}

/// A Kratos error with its own id, status and extra members.
struct KratosError: Error {
    let status: HTTPResponse.Status
    let id: String?
    let reason, message: String
    var extra: @Sendable (KratosErrorBody) -> KratosErrorBody = { $0 }

    static let sessionInactive = KratosError(
        status: .unauthorized, id: "session_inactive", reason: "No valid session credentials found in the request.", message: "request does not have a valid authentication session"
    )

    /// A browser request that failed the CSRF checks (`x/nosurf.go`'s `ErrInvalidCSRFToken`).
    static let csrfViolation = KratosError(
        status: .forbidden, id: "security_csrf_violation",
        reason: "Please retry the flow and optionally clear your cookies. The request was rejected to protect you from Cross-Site-Request-Forgery (CSRF) which could cause account takeover, leaking personal information, and other serious security issues.",
        message: "the request was rejected to protect you from Cross-Site-Request-Forgery"
    )

    /// A privileged settings change with a session older than a sensitive action allows
    /// (`selfservice/flow/settings`'s `FlowNeedsReAuth`): sign in again, with `refresh=true`,
    /// then submit the flow again. `redirectTo` is where a browser goes for that.
    static func sessionRefreshRequired(redirectTo: String?) -> KratosError {
        var error = KratosError(
            status: .forbidden, id: "session_refresh_required",
            reason: "The login session is too old and thus not allowed to update these fields. Please re-authenticate.",
            message: "The requested action was forbidden"
        )
        if let redirectTo {
            error.extra = { body in
                var body = body
                body.redirect_browser_to = redirectTo
                return body
            }
        }
        return error
    }
}

/// Renders what the Kratos face's handlers throw: flows with messages, Kratos's own errors,
/// and the core's typed errors, in Kratos's envelope. Never a 500 with a stack trace.
public struct KratosErrors: FaceErrorRenderer {
    public init() {}

    public func response(for failure: IdentityError) -> Response {
        if case .insufficientUserAuthentication = failure.reason { return render(KratosError.sessionRefreshRequired(redirectTo: nil)) }
        switch failure.code {
        case .invalidToken: return render(KratosError.sessionInactive)
        case .notFound:
            return render(KratosError(status: .notFound, id: "not_found", reason: failure.message(.kratos), message: "The requested resource could not be found"))
        case .accessDenied, .insufficientScope, .unauthorizedClient:
            return render(KratosError(status: .forbidden, id: "forbidden", reason: failure.message(.kratos), message: "The requested action was forbidden"))
        case .methodNotAllowed:
            return render(KratosError(status: .methodNotAllowed, id: "method_not_allowed", reason: failure.message(.kratos), message: "The requested method is not allowed"))
        default:
            return render(KratosError(status: failure.status, id: failure.reason?.rawValue ?? "bad_request", reason: failure.message(.kratos), message: "The request was malformed or contained invalid parameters"))
        }
    }

    public func faceResponse(for error: any Error) -> Response? {
        if let rejection = error as? KratosFlowRejection { return JSONResponse.make(rejection.flow, status: rejection.status) }
        if let failure = error as? KratosError { return render(failure) }
        if let refusal = error as? InteractiveFlowService.Refusal { return render(Self.error(for: refusal)) }
        return nil
    }

    public func unexpected(_ error: any Error, logger: Logger) -> Response {
        logger.error("unexpected error", metadata: ["error": "\(error)"])
        return render(KratosError(status: .internalServerError, id: "internal_server_error", reason: "the server could not complete the request", message: "An internal server error occurred, please contact the system administrator"))
    }

    func render(_ failure: KratosError) -> Response {
        let body = KratosErrorBody(error: .init(id: failure.id, code: Int(failure.status.code), status: failure.status.reasonPhrase, reason: failure.reason, message: failure.message))
        return JSONResponse.make(failure.extra(body), status: failure.status)
    }

    static func error(for refusal: InteractiveFlowService.Refusal) -> KratosError {
        switch refusal {
        case .unknown:
            return KratosError(status: .notFound, id: "not_found", reason: "The flow could not be found; it may never have existed or it was deleted long after it expired.", message: "The requested resource could not be found")
        case .expired(let flow, let replacement):
            let now = replacement.issuedAt
            let ago = max(0, now.timeIntervalSince(flow.expiresAt))
            var error = KratosError(
                status: .gone, id: "self_service_flow_expired",
                reason: String(format: "The self-service flow expired %.2f minutes ago, initialize a new one.", ago / 60),
                message: "self-service flow expired"
            )
            error.extra = { body in
                var body = body
                body.use_flow_id = replacement.id
                body.expired_at = WireTime.text(flow.expiresAt)
                body.since = Int64(ago * 1_000_000_000)
                return body
            }
            return error
        case .completed:
            return KratosError(
                status: .badRequest, id: "self_service_flow_completed",
                reason: "This flow was already completed and accepts no further submissions; initialize a new one.", message: "self-service flow completed"
            )
        case .wrongOwner:
            return KratosError(
                status: .forbidden, id: "security_identity_mismatch",
                reason: "The flow belongs to another identity or session.", message: "The request was malformed or contained invalid parameters"
            )
        }
    }
}

extension IdentityError.FieldNaming {
    /// Kratos's names: a profile is the identity's traits, a ceremony lives in its flow.
    package static let kratos = IdentityError.FieldNaming(profile: "traits", memberPrefix: "traits.", ceremony: "flow")
}

extension Face {
    /// The Ory Kratos face.
    public static let kratos = Face(name: "kratos", prefixes: ["/self-service/", "/sessions"], renderer: KratosErrors())
}
