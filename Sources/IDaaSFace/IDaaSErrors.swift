import Foundation
import WebAuthn
public import FaceFrame
public import Hummingbird
public import IdentityCore
public import Logging

/// IDaaS's error body on every failure: `{"errorCode", "errorMessage", "parameters"}`.
struct IDaaSErrorInfo: Encodable {
    /// One detail of an error: the request member at fault, the WebAuthn check that failed.
    struct Parameter: Encodable, Equatable {
        let name, value: String
    }

    let errorCode, errorMessage: String
    let parameters: [Parameter]
}

/// A failure of the IDaaS face, with its stable `errorCode` (listed in the README).
struct IDaaSError: Error {
    let status: HTTPResponse.Status
    let code, message: String
    var parameters: [IDaaSErrorInfo.Parameter] = []

    static func invalidRequest(_ message: String, field: String? = nil) -> IDaaSError {
        IDaaSError(status: .badRequest, code: "invalid_request", message: message, parameters: field.map { [.init(name: "field", value: $0)] } ?? [])
    }

    static let userNotFound = IDaaSError(status: .notFound, code: "user_not_found", message: "no user has this ID")
    static let tokenNotFound = IDaaSError(status: .notFound, code: "fido_token_not_found", message: "no FIDO token has this ID")
    static let transactionInvalid = IDaaSError(
        status: .unauthorized, code: "transaction_invalid",
        message: "the transaction token is missing, unknown, expired, already used, or belongs to another application; request a new challenge"
    )
}

/// Renders what the IDaaS face's handlers throw as `ErrorInfo`. Never a stack trace, and
/// never a 5xx for anything a client sent.
public struct IDaaSErrors: FaceErrorRenderer {
    public init() {}

    public func response(for failure: IdentityError) -> Response {
        render(Self.error(for: failure))
    }

    public func faceResponse(for error: any Error) -> Response? {
        (error as? IDaaSError).map(render)
    }

    public func unexpected(_ error: any Error, logger: Logger) -> Response {
        logger.error("unexpected error", metadata: ["error": "\(error)"])
        return render(IDaaSError(status: .internalServerError, code: "internal_error", message: "the server could not complete the request"))
    }

    func render(_ failure: IDaaSError) -> Response {
        var response = JSONResponse.make(IDaaSErrorInfo(errorCode: failure.code, errorMessage: failure.message, parameters: failure.parameters), status: failure.status)
        if failure.status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        return response
    }

    /// The IDaaS error for a core failure. Sign-in failures name what the app should act
    /// on: the credential to signal unknown, the check that failed.
    static func error(for failure: IdentityError) -> IDaaSError {
        var parameters: [IDaaSErrorInfo.Parameter] = []
        if let field = failure.fieldName(.idaas) { parameters.append(.init(name: "field", value: field)) }
        if let credentialID = failure.credentialID { parameters.append(.init(name: "credentialId", value: credentialID)) }
        func error(_ status: HTTPResponse.Status, _ code: String) -> IDaaSError {
            IDaaSError(status: status, code: code, message: failure.message(.idaas), parameters: parameters)
        }
        switch (failure.code, failure.reason) {
        case (_, .bodyTooLarge): return error(.contentTooLarge, "body_too_large")
        // Before invalid_token: the token is good, the sign-in behind it too old.
        case (_, .insufficientUserAuthentication?): return error(.forbidden, "reauthentication_required")
        case (_, .disabledByAdministrator?): return error(.forbidden, "fido_token_disabled_by_administrator")
        case (_, .unsupportedMediaType): return error(.unsupportedMediaType, "unsupported_media_type")
        case (.invalidClient, _): return error(.unauthorized, "admin_authentication_failed")
        case (.invalidToken, _): return error(.unauthorized, "invalid_token")
        case (.invalidGrant, .invalidAuthSession?): return IDaaSError.transactionInvalid
        case (.invalidGrant, .unknownCredential?): return error(.unauthorized, "fido_token_unknown")
        case (.invalidGrant, .credentialDisabled?): return error(.unauthorized, "fido_token_disabled")
        case (.invalidGrant, .userMismatch?):
            parameters.append(.init(name: "field", value: "userId"))
            return error(.unauthorized, "authentication_failed")
        case (.invalidGrant, .verification(let check)?):
            parameters.append(.init(name: "check", value: check.rawValue))
            return error(.unauthorized, "authentication_failed")
        case (.invalidGrant, _): return error(.unauthorized, "authentication_failed")
        case (.notFound, _): return error(.notFound, "not_found")
        case (.conflict, .credentialNameTaken?): return error(.conflict, "fido_token_name_exists")
        case (.conflict, .lastAuthenticationMethod?): return error(.conflict, "last_fido_token")
        case (.conflict, _): return error(.conflict, "fido_token_already_registered")
        case (.accessDenied, _), (.unauthorizedClient, _), (.insufficientScope, _): return error(.forbidden, "forbidden")
        case (.invalidRequest, _), (.unsupportedGrantType, _), (.invalidPassword, _), (.invalidScope, _): return error(.badRequest, "invalid_request")
        case (.temporarilyUnavailable, _): return error(.serviceUnavailable, "service_unavailable")
        case (.tooManyRequests, _): return error(.tooManyRequests, "too_many_requests")
        case (.methodNotAllowed, _): return error(.methodNotAllowed, "method_not_allowed")
        }
    }
}

extension IdentityError.FieldNaming {
    /// IDaaS's names: it takes no sign-up profile, and a ceremony is its transaction.
    package static let idaas = IdentityError.FieldNaming(profile: "user", memberPrefix: "", ceremony: "transaction")
}

extension Face {
    /// The Entrust IDaaS face.
    public static let idaas = Face(name: "idaas", prefixes: ["/api/web/"], renderer: IDaaSErrors())
}
