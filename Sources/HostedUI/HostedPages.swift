import Foundation
public import HTTPAPI
public import IdentityCore

/// What the hosted pages need: the API services they share with every other face, browser
/// sessions, and the relying party's names. Built once by the composition root.
public struct HostedPages: Sendable {
    /// The services of the JSON APIs.
    public let api: APIServices
    /// Browser sessions.
    public let sessions: BrowserSessionService
    /// The RP ID, for the Signal API calls.
    public let relyingPartyID: String
    /// The name people see.
    public let relyingPartyName: String
    /// Which identifiers sign-up asks for.
    public let signupIdentifiers: Set<ProfileValidation.IdentifierKind>
    /// Randomness for CSRF tokens.
    let random: any RandomSource

    /// Creates the set.
    public init(
        api: APIServices, sessions: BrowserSessionService, relyingPartyID: String, relyingPartyName: String,
        signupIdentifiers: Set<ProfileValidation.IdentifierKind>,
        random: any RandomSource = SystemRandom()
    ) {
        self.random = random
        self.api = api
        self.sessions = sessions
        self.relyingPartyID = relyingPartyID
        self.relyingPartyName = relyingPartyName
        self.signupIdentifiers = signupIdentifiers
    }

    /// Cookies are `Secure` (and `__Host-` prefixed, so no subdomain can set them) when the
    /// public URL is https. Over http on localhost browsers would drop a `Secure` cookie.
    var secureCookies: Bool { api.publicURL.lowercased().hasPrefix("https://") }

    var sessionCookie: String { secureCookies ? "__Host-latchkey_session" : "latchkey_session" }
    var csrfCookie: String { secureCookies ? "__Host-latchkey_csrf" : "latchkey_csrf" }

    /// The origin of the public URL, which every state-changing request must come from.
    var publicOrigin: String {
        // The public URL is validated at start-up as scheme://host[:port] with an optional path.
        let afterScheme = api.publicURL.range(of: "://").map { api.publicURL[$0.upperBound...] } ?? Substring(api.publicURL)
        let authority = afterScheme.prefix { $0 != "/" }
        let scheme = api.publicURL.prefix { $0 != ":" }
        return "\(scheme.lowercased())://\(authority.lowercased())"
    }
}
