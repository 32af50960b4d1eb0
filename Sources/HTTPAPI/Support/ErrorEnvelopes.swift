import Foundation
public import Hummingbird
public import IdentityCore
public import Logging

/// The Authentication API's error body, as Auth0 and its SDKs read it, with Latchkey's
/// machine-readable additions.
package struct AuthenticationAPIErrorBody: Encodable {
    package init(error: String, error_description: String, reason: String?, credential_id: String?) {
        self.error = error
        self.error_description = error_description
        self.reason = reason
        self.credential_id = credential_id
    }

    let error: String
    let error_description: String
    /// A stable detail, for example `unknown_credential` or a WebAuthn code such as `challenge_mismatch`.
    let reason: String?
    /// The credential the error is about, for example one the app should signal as unknown.
    let credential_id: String?
}

/// The My Account API's error body (RFC 9457 problem details, in Auth0's shape).
struct MyAccountErrorBody: Encodable {
    struct ValidationError: Encodable {
        let detail: String
        let field: String
        let pointer: String
    }

    let type: String
    let status: Int
    let title: String
    let detail: String
    let reason: String?
    let validation_errors: [ValidationError]?
}

/// The Authentication API's envelope (Auth0's `{error, error_description}`), also used by
/// the hosted pages' JSON calls.
public struct AuthenticationAPIErrors: FaceErrorRenderer {
    /// Creates the renderer.
    public init() {}

    public func response(for failure: IdentityError) -> Response {
        var headers: HTTPFields = [:]
        if let challenge = failure.bearerChallenge { headers[.wwwAuthenticate] = challenge }
        return JSONResponse.make(
            AuthenticationAPIErrorBody(
                error: failure.code.rawValue, error_description: failure.message, reason: failure.reason?.rawValue, credential_id: failure.credentialID
            ),
            status: failure.status,
            headers: headers
        )
    }

    public func unexpected(_ error: any Error, logger: Logger) -> Response {
        logger.error("unexpected error", metadata: ["error": "\(error)"])
        return JSONResponse.make(
            AuthenticationAPIErrorBody(error: "server_error", error_description: "the server could not complete the request", reason: nil, credential_id: nil),
            status: .internalServerError
        )
    }
}

/// The My Account API's envelope: RFC 9457 problem details in Auth0's shape.
public struct MyAccountErrors: FaceErrorRenderer {
    /// Creates the renderer.
    public init() {}

    public func response(for failure: IdentityError) -> Response {
        var headers: HTTPFields = [:]
        if let challenge = failure.bearerChallenge { headers[.wwwAuthenticate] = challenge }
        let validation = failure.field.map { field in
            [MyAccountErrorBody.ValidationError(detail: failure.message, field: field, pointer: "/" + field.replacingOccurrences(of: ".", with: "/"))]
        }
        return JSONResponse.make(
            MyAccountErrorBody(
                type: "urn:latchkey:error:\(failure.code.rawValue)", status: Int(failure.status.code),
                title: failure.status.reasonPhrase, detail: failure.message, reason: failure.reason?.rawValue, validation_errors: validation
            ),
            status: failure.status,
            headers: headers
        )
    }

    public func unexpected(_ error: any Error, logger: Logger) -> Response {
        logger.error("unexpected error", metadata: ["error": "\(error)"])
        return JSONResponse.make(
            MyAccountErrorBody(
                type: "urn:latchkey:error:server_error", status: 500, title: "Internal Server Error",
                detail: "the server could not complete the request", reason: nil, validation_errors: nil
            ),
            status: .internalServerError
        )
    }
}
