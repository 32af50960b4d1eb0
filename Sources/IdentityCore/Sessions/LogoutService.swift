import Foundation

/// Signing out at an app's request: OpenID Connect RP-Initiated Logout 1.0 (the discovery
/// document's `end_session_endpoint`) and Auth0's `GET /v2/logout`. It decides where the
/// browser may go afterwards; the face ends the browser's session. Nothing here redirects to
/// an address a client did not register, so logout is never an open redirect.
public struct LogoutService: Sendable {
    private let clients: ClientRegistry
    private let tokens: TokenService

    /// Decides with the registered clients, and reads hints with the token service's keys.
    public init(clients: ClientRegistry, tokens: TokenService) {
        self.clients = clients
        self.tokens = tokens
    }

    /// An RP-Initiated Logout request, as its parameters arrived.
    public struct Request: Sendable {
        public var idTokenHint: String?
        public var clientID: String?
        public var postLogoutRedirectURI: String?
        public var state: String?

        /// Reads the parameters by their names (a query or a form).
        public init(_ parameters: [String: String]) {
            func value(_ name: String) -> String? { parameters[name].flatMap { $0.isEmpty ? nil : $0 } }
            idTokenHint = value("id_token_hint")
            clientID = value("client_id")
            postLogoutRedirectURI = value("post_logout_redirect_uri")
            state = value("state")
        }
    }

    /// What to do with a request.
    public struct Decision: Sendable, Hashable {
        /// The client the request comes from, when the hint or `client_id` names one.
        public let clientName: String?
        /// Its ID, which a confirmation carries back when the hint named it.
        public let clientID: String?
        /// Whose session the hint says it ends; `nil` without a hint.
        public let userID: UserID?
        /// Where to send the browser once signed out (with `state`), or `nil` to show that it is.
        public let redirect: String?
        /// Whether the person must confirm first: the specification requires it when no
        /// valid `id_token_hint` says who is asking.
        public let needsConfirmation: Bool
    }

    /// Why a request is refused: shown on a page, never redirected (§4).
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// Decides an RP-Initiated Logout request (§2–§3): the hint must be an ID token this
    /// server issued (expired or not), `client_id` must agree with it, and
    /// `post_logout_redirect_uri` must be one the client registered, matched exactly.
    public func decide(_ request: Request) async throws -> Decision {
        var hint: (userID: UserID, clientID: String, sessionID: String)?
        if let token = request.idTokenHint {
            guard let read = try await tokens.idTokenHint(token) else {
                throw Refusal(description: "The id_token_hint is not an ID token this server issued.")
            }
            hint = read
        }
        if let hinted = hint?.clientID, let named = request.clientID, named != hinted {
            throw Refusal(description: "The client_id does not match the client the id_token_hint was issued to.")
        }
        let client = (hint?.clientID ?? request.clientID).flatMap(clients.client(id:))
        if (hint?.clientID ?? request.clientID) != nil, client == nil {
            throw Refusal(description: "No client is registered with this client_id.")
        }
        var redirect: String?
        if let uri = request.postLogoutRedirectURI {
            guard let client else { throw Refusal(description: "A post_logout_redirect_uri needs an id_token_hint or a client_id naming its client.") }
            guard client.postLogoutRedirectURIs.contains(uri) else {
                throw Refusal(description: "The post_logout_redirect_uri is not one of the client's post_logout_redirect_uris.")
            }
            redirect = request.state.map { AuthorizationService.url(uri, adding: [("state", $0)]) } ?? uri
        }
        return Decision(clientName: client?.name, clientID: client?.clientID, userID: hint?.userID, redirect: redirect, needsConfirmation: hint == nil)
    }

    /// Where Auth0's `/v2/logout` sends the browser: `returnTo` when the client (or, without
    /// `client_id`, any client) allows it; the client's first allowed URL without `returnTo`;
    /// else nowhere (`nil`: the page says the person is signed out).
    /// - Throws: ``Refusal`` for a `returnTo` nobody allows, or an unknown `client_id`.
    public func auth0ReturnTo(_ returnTo: String?, clientID: String?) throws(Refusal) -> String? {
        let candidates: [OAuthClient]
        if let clientID, !clientID.isEmpty {
            guard let client = clients.client(id: clientID) else { throw Refusal(description: "No client is registered with this client_id.") }
            candidates = [client]
        } else {
            candidates = clients.all
        }
        guard let returnTo, !returnTo.isEmpty else { return clientID == nil ? nil : candidates.first?.allowedLogoutURLs.first }
        guard candidates.contains(where: { $0.allowedLogoutURLs.contains { Self.allows($0, returnTo) } }) else {
            throw Refusal(description: "The \"returnTo\" querystring parameter \"\(returnTo.prefix(200))\" is not defined as a valid URL in \"Allowed Logout URLs\".")
        }
        return returnTo
    }

    /// Auth0's rule: scheme and host compared without case, the path exactly, the query and
    /// fragment of `returnTo` ignored, and a `*.` host label standing for one subdomain.
    static func allows(_ allowed: String, _ returnTo: String) -> Bool {
        guard let pattern = URLComponents(string: allowed), let target = URLComponents(string: returnTo),
            let scheme = target.scheme?.lowercased(), scheme == pattern.scheme?.lowercased(),
            let host = target.host?.lowercased(), let allowedHost = pattern.host?.lowercased(), target.port == pattern.port,
            target.percentEncodedPath == pattern.percentEncodedPath || (target.percentEncodedPath.isEmpty && pattern.percentEncodedPath == "/")
                || (pattern.percentEncodedPath.isEmpty && target.percentEncodedPath == "/")
        else { return false }
        if allowedHost.hasPrefix("*.") {
            let suffix = allowedHost.dropFirst(1)
            return host.hasSuffix(suffix) && !host.dropLast(suffix.count).contains(".") && host.count > suffix.count
        }
        return host == allowedHost
    }

}
