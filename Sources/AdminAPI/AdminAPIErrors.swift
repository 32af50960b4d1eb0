import Foundation
import LatchkeyWire
import OpenAPIRuntime
public import FaceFrame
public import Hummingbird
public import IdentityCore
public import Logging

/// A refusal of the Admin API's own, before any handler runs: the caller's address or key.
struct AdminAPIProblem: Error, Sendable {
    let status: HTTPResponse.Status
    let code: String
    let detail: String
    /// The methods the path has, for a `405`.
    var allow: String? = nil

    static let missingKey = AdminAPIProblem(
        status: .unauthorized, code: "missing_key", detail: "this endpoint needs an admin API key: Authorization: Bearer lk_admin_…"
    )
    static let invalidKey = AdminAPIProblem(status: .unauthorized, code: "invalid_key", detail: "the admin API key is unknown or revoked")
    static let addressNotAllowed = AdminAPIProblem(
        status: .forbidden, code: "address_not_allowed",
        detail: "the Admin API answers callers on this machine only; set admin.public: true to open it to other addresses"
    )

    static func notAcceptable(_ mediaType: String) -> AdminAPIProblem {
        AdminAPIProblem(
            status: .notAcceptable, code: "not_acceptable",
            detail: "this operation answers with \(mediaType), which the Accept header does not admit; nothing was changed"
        )
    }

    static func insufficientScope(_ scope: AdminScope) -> AdminAPIProblem {
        AdminAPIProblem(status: .forbidden, code: "insufficient_scope", detail: "this admin API key lacks the scope \(scope)")
    }
}

/// The Admin API's envelope: RFC 9457 problem details (`application/problem+json`) with a
/// stable `code`, for every refusal, whether IdentityCore's, the generated server's (a body
/// or parameter that does not match the document) or the router's.
public struct AdminAPIErrors: FaceErrorRenderer {
    public init() {}

    public func response(for error: IdentityError) -> Response {
        let (status, code) = Self.statusAndCode(error)
        return Self.problem(status, code: code, detail: error.message(.adminAPI), field: error.fieldName(.adminAPI))
    }

    public func unexpected(_ error: any Error, logger: Logger) -> Response {
        logger.error("admin API: unexpected failure", metadata: ["error": "\(String(reflecting: error).prefix(400))"])
        return Self.problem(.internalServerError, code: "internal_error", detail: "the request failed; the server's log says why")
    }

    public func faceResponse(for error: any Error) -> Response? {
        switch error {
        case let problem as AdminAPIProblem:
            var response = Self.problem(problem.status, code: problem.code, detail: problem.detail)
            if problem.status == .unauthorized { response.headers[.wwwAuthenticate] = #"Bearer realm="latchkey-admin""# }
            if let allow = problem.allow { response.headers[.allow] = allow }
            return response
        case let error as ServerError:
            // What a handler threw comes back wrapped: answer it as itself.
            if error.operationInput != nil || error.underlyingError is IdentityError || error.underlyingError is AdminAPIProblem
                || error.underlyingError is StorageUnavailable
            {
                return nil
            }
            // The request did not match the document (a malformed body, a parameter of the
            // wrong type): the generated server refused it before any handler ran.
            let status = error.httpStatus.code >= 400 && error.httpStatus.code < 500 ? error.httpStatus : .badRequest
            let code = status == .unsupportedMediaType ? "unsupported_media_type" : status == .notAcceptable ? "not_acceptable" : "invalid_request"
            return Self.problem(status, code: code, detail: Self.describe(error))
        default:
            return nil
        }
    }

    /// Unwraps what the generated server wrapped, so that ``render(_:logger:)`` sees the
    /// handler's own error.
    static func unwrapped(_ error: any Error) -> any Error {
        if let error = error as? ServerError, error.operationInput != nil || error.underlyingError is IdentityError
            || error.underlyingError is AdminAPIProblem || error.underlyingError is StorageUnavailable
        {
            return error.underlyingError
        }
        return error
    }

    /// Says what did not match without naming Swift types.
    private static func describe(_ error: ServerError) -> String {
        if let decoding = error.underlyingError as? DecodingError {
            return "the request body does not match the document: \(DecodingErrorDescription.describe(decoding))"
        }
        let cause = error.causeDescription
        // The runtime's own descriptions name the parameter; keep them short.
        return "the request does not match the document: \(cause.prefix(200))"
    }

    static func statusAndCode(_ error: IdentityError) -> (HTTPResponse.Status, String) {
        switch error.reason {
        case .userNotFound?, .credentialNotFound?, .sessionNotFound?, .deliveryNotFound?, .endpointNotFound?:
            return (.notFound, error.reason!.rawValue)
        case .userExists?, .lastAuthenticationMethod?, .accountDisabled?:
            return (.conflict, error.reason!.rawValue)
        default:
            break
        }
        switch error.code {
        case .notFound: return (.notFound, "not_found")
        case .conflict: return (.conflict, "conflict")
        case .methodNotAllowed: return (.methodNotAllowed, "method_not_allowed")
        case .tooManyRequests: return (.tooManyRequests, "too_many_requests")
        case .temporarilyUnavailable: return (.serviceUnavailable, "unavailable")
        case .invalidToken: return (.unauthorized, "invalid_key")
        case .insufficientScope: return (.forbidden, "insufficient_scope")
        default: return (.badRequest, "invalid_request")
        }
    }

    static func problem(_ status: HTTPResponse.Status, code: String, detail: String, field: String? = nil) -> Response {
        var object: [String: Any] = ["type": ProblemDetails.typePrefix + code, "title": status.reasonPhrase, "status": status.code, "code": code, "detail": detail]
        if let field { object["field"] = field }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Response(status: status, headers: [.contentType: "application/problem+json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension Face {
    public static let adminAPI = Face(name: "admin_api", prefixes: ["/admin/"], renderer: AdminAPIErrors())
}

extension IdentityError.FieldNaming {
    /// The Admin API's names: a profile's members are the body's own.
    static let adminAPI = IdentityError.FieldNaming(profile: "user_profile", memberPrefix: "", ceremony: "auth_session")
}
