/// The parameters of an authorization request, as received (OAuth 2.1 §4.1.1, OpenID
/// Connect Core §3.1.2.1). ``AuthorizationService/validate(_:)`` checks them.
public struct AuthorizationRequest: Sendable, Hashable {
    public var clientID: String?
    public var redirectURI: String?
    public var responseType: String?
    public var scope: String?
    public var state: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var prompt: String?
    public var audience: String?
    /// `acr_values`: the authentication context classes asked for, space-separated.
    public var acrValues: String?

    /// Reads the request from query parameters.
    public init(parameters: [String: String]) {
        clientID = parameters["client_id"]
        redirectURI = parameters["redirect_uri"]
        responseType = parameters["response_type"]
        scope = parameters["scope"]
        state = parameters["state"]
        nonce = parameters["nonce"]
        codeChallenge = parameters["code_challenge"]
        codeChallengeMethod = parameters["code_challenge_method"]
        prompt = parameters["prompt"]
        audience = parameters["audience"]
        acrValues = parameters["acr_values"]
    }
}

/// An authorization request that passed validation.
public struct ValidatedAuthorization: Sendable {
    /// What the client asked the person to be asked again for.
    public enum Prompt: String, Sendable {
        /// Never show a page: fail with `login_required` when nobody is signed in.
        case none
        /// Sign in again even when a session exists.
        case login
    }

    public let client: OAuthClient
    public let redirectURI: String
    public let scopes: [String]
    public let audience: String
    public let state: String?
    public let nonce: String?
    public let codeChallenge: String
    public let prompt: Prompt?
    /// The `acr_values` this server knows, when the request named any.
    public let acr: ACRRequest?
}

/// Why an authorization request failed, and whether the person may be sent back to the
/// client with the error (OAuth 2.1 §4.1.2.1). When the client or its redirect URI cannot
/// be trusted, the person sees an error page instead, so that the authorization server
/// cannot be used as an open redirector.
public struct AuthorizationFailure: Error, Sendable {
    /// Where the error can be delivered.
    public struct Redirect: Sendable {
        public let uri: String
        public let state: String?
    }

    /// The OAuth error code: `invalid_request`, `unauthorized_client`,
    /// `unsupported_response_type`, `invalid_scope`, `login_required`, `access_denied`.
    public let error: String
    /// A sentence for the developer, and for the person's error page.
    public let description: String
    /// Where to send the person, or `nil` when the error page must be shown.
    public let redirect: Redirect?
}
