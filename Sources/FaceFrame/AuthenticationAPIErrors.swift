import Foundation
import LatchkeyWire
public import Hummingbird
public import IdentityCore
public import Logging

/// The Authentication API's envelope (Auth0's `{error, error_description}`), also used by
/// the hosted pages' JSON calls.
public struct AuthenticationAPIErrors: FaceErrorRenderer {
    public init() {}

    public func response(for failure: IdentityError) -> Response {
        var headers: HTTPFields = [:]
        if let challenge = failure.bearerChallenge { headers[.wwwAuthenticate] = challenge }
        return JSONResponse.make(
            OAuthErrorBody(error: failure.code.rawValue, errorDescription: failure.message(.authenticationAPI), reason: failure.reason?.rawValue, credentialID: failure.credentialID),
            status: failure.status,
            headers: headers
        )
    }

    public func unexpected(_ error: any Error, logger: Logger) -> Response {
        logger.error("unexpected error", metadata: ["error": "\(error)"])
        return JSONResponse.make(
            OAuthErrorBody(error: "server_error", errorDescription: "the server could not complete the request"),
            status: .internalServerError
        )
    }
}

extension IdentityError.FieldNaming {
    /// Auth0's names, for the Authentication and My Account APIs: a sign-up's `user_profile`
    /// and its members, a ceremony's `auth_session`.
    public static let authenticationAPI = IdentityError.FieldNaming(profile: "user_profile", memberPrefix: "user_profile.", ceremony: "auth_session")
}
