import FaceFrame
import Foundation
public import IdentityCore
public import Localization

/// What the hosted pages need: the core services they call, browser sessions, and the
/// relying party's names. Built once by the composition root.
public struct HostedPages: Sendable {
    /// Passkey ceremonies.
    public let passkeys: PasskeyService
    /// The signed-in user's account and passkeys.
    public let accounts: AccountService
    /// Where the account is signed in, and what happened to it.
    public let accountCenter: AccountCenter
    /// Password sign-in, for accounts that still have one, and removing it.
    public let passwords: PasswordService
    /// Signing out at an app's request (RP-Initiated Logout, Auth0's `/v2/logout`).
    public let logout: LogoutService
    /// The authorization code flow.
    public let authorization: AuthorizationService
    /// Email verification, recovery codes and recovery.
    public let recovery: AccountRecoveryService
    /// Provider names by AAGUID.
    public let authenticatorNames: AuthenticatorNames
    /// The public base URL, without a trailing slash.
    public let publicURL: String
    let body: RequestBodyReader
    public let sessions: BrowserSessionService
    /// Password sign-in and sign-up, each starting a session in one call.
    var passwordSignIns: BrowserPasswordSignIn {
        BrowserPasswordSignIn(passwords: passwords, sessions: sessions, passkeys: passkeys, accounts: accounts)
    }
    /// The RP ID, for the Signal API calls.
    public let relyingPartyID: String
    /// The name people see.
    public let relyingPartyName: String
    /// Which identifiers sign-up asks for.
    public let signupIdentifiers: Set<ProfileValidation.IdentifierKind>
    /// The region whose country code a national phone number gets.
    public let defaultRegion: String?
    /// The operator's brand.
    public let branding: Branding
    /// The pages' words in every language.
    public let catalog: StringCatalog
    /// Each language with its own name, as the picker lists them.
    let languageNames: [(language: Language, name: String)]
    /// The languages there are words for.
    let languages: [Language]
    /// The scripts' messages of each language, as JSON: made once, served as a script.
    let scriptMessages: [Language: String]

    /// Where a language's messages for the scripts are served.
    static func messagesPath(_ language: Language) -> String { "/ui/assets/messages/\(language.tag).js" }
    /// The product's name on the pages: the brand's, else the relying party's.
    var siteName: String { branding.name ?? relyingPartyName }
    /// The origin of the public URL, which every state-changing request must come from.
    let publicOrigin: String
    /// Randomness for CSRF tokens.
    let random: any RandomSource

    /// Drops a trailing slash from `publicURL`, lowercases `publicOrigin`, and caps request
    /// bodies at `maximumBodyBytes`.
    /// - Parameter catalog: The pages' and scripts' words (the built-in languages, with the
    ///   operator's `branding.strings_dir` laid over them).
    public init(
        passkeys: PasskeyService, accounts: AccountService, accountCenter: AccountCenter, passwords: PasswordService, authorization: AuthorizationService, logout: LogoutService,
        recovery: AccountRecoveryService, authenticatorNames: AuthenticatorNames, publicURL: String, maximumBodyBytes: Int,
        sessions: BrowserSessionService, relyingPartyID: String, relyingPartyName: String,
        signupIdentifiers: Set<ProfileValidation.IdentifierKind>,
        defaultRegion: String? = nil,
        branding: Branding = Branding(),
        catalog: StringCatalog = .shared,
        publicOrigin: String,
        random: any RandomSource = SystemRandom()
    ) {
        self.defaultRegion = defaultRegion
        self.branding = branding
        self.catalog = catalog
        self.languageNames = catalog.languages.map { ($0, catalog.strings($0)("language.name")) }
        self.languages = catalog.languages
        self.scriptMessages = Dictionary(uniqueKeysWithValues: catalog.languages.map { ($0, HTML.jsonScript(catalog.strings($0).scriptMessages)) })
        self.publicOrigin = publicOrigin.lowercased()
        self.random = random
        self.passkeys = passkeys
        self.accounts = accounts
        self.accountCenter = accountCenter
        self.passwords = passwords
        self.authorization = authorization
        self.logout = logout
        self.recovery = recovery
        self.authenticatorNames = authenticatorNames
        self.publicURL = PublicURL.trimmed(publicURL)
        self.body = RequestBodyReader(maximumBytes: maximumBodyBytes)
        self.sessions = sessions
        self.relyingPartyID = relyingPartyID
        self.relyingPartyName = relyingPartyName
        self.signupIdentifiers = signupIdentifiers
    }

    /// Cookies are `Secure` (and `__Host-` prefixed, so no subdomain can set them) when the
    /// public URL is https. Over http on localhost browsers would drop a `Secure` cookie.
    var secureCookies: Bool { publicURL.lowercased().hasPrefix("https://") }

    var sessionCookie: String { secureCookies ? "__Host-latchkey_session" : "latchkey_session" }
    var csrfCookie: String { secureCookies ? "__Host-latchkey_csrf" : "latchkey_csrf" }

}
