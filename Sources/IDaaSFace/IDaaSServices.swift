import Foundation
public import FaceFrame
public import Hummingbird
public import HummingbirdAuth
public import IdentityCore

/// What the IDaaS face calls.
public struct IDaaSServices: Sendable {
    /// Enrollment and sign-in ceremonies: the one pipeline.
    public let passkeys: PasskeyService
    /// Accounts and their passkeys.
    public let accounts: AccountService
    /// Administration applications and their tokens.
    public let administration: AdministrationService
    /// Signed-in users' tokens (`idaas_st_…`).
    public let sessions: BrowserSessionService
    /// Authentication API applications: the configured clients.
    public let clients: ClientRegistry
    /// The relying party ID a request's `rpId` must name.
    public let relyingPartyID: String
    /// Provider names by AAGUID, for `authenticatorModel`.
    public let authenticatorNames: AuthenticatorNames
    let clock: any WallClock
    package let body: RequestBodyReader

    /// Caps request bodies at `maximumBodyBytes`.
    public init(
        passkeys: PasskeyService, accounts: AccountService, administration: AdministrationService, sessions: BrowserSessionService,
        clients: ClientRegistry, relyingPartyID: String, authenticatorNames: AuthenticatorNames, clock: any WallClock, maximumBodyBytes: Int
    ) {
        self.passkeys = passkeys
        self.accounts = accounts
        self.administration = administration
        self.sessions = sessions
        self.clients = clients
        self.relyingPartyID = relyingPartyID
        self.authenticatorNames = authenticatorNames
        self.clock = clock
        self.body = RequestBodyReader(maximumBytes: maximumBodyBytes)
    }

    /// The prefix of signed-in users' tokens; it also keeps them from passing as any other
    /// kind of session.
    public static let sessionTokenPrefix = "idaas_st_"
    /// The ceremony client of passkeys users add to their own account.
    static let selfServiceClientID = "latchkey:idaas-self"

    /// The ceremony client of passkeys an administration application enrolls: only it can
    /// finish what it started.
    static func adminClientID(_ application: AdminApplication) -> String { "latchkey:idaas-admin:" + application.id }

    /// An Authentication API application: a configured client that may use passkeys.
    func application(_ id: String) throws -> OAuthClient {
        guard !id.isEmpty, let client = clients.client(id: id), client.grantTypes.contains(.webauthn) else {
            throw IDaaSError(
                status: .badRequest, code: "application_not_found",
                message: "applicationId names no Authentication API application here (a configured client allowed the webauthn grant)",
                parameters: [.init(name: "field", value: "applicationId")]
            )
        }
        return client
    }

    /// Refuses a request `rpId` other than the configured relying party ID.
    func checkRelyingPartyID(_ rpId: String?) throws {
        guard let rpId, !rpId.isEmpty else { return }
        guard rpId.lowercased() == relyingPartyID else {
            throw IDaaSError.invalidRequest("rpId \(rpId.prefix(100)) is not this server's relying party ID (\(relyingPartyID))", field: "rpId")
        }
    }
}

/// The token an IDaaS call carries: the raw `Authorization` value, as Entrust's SDKs send
/// it, or `Bearer <token>`.
enum IDaaSAuthorization {
    static func token(_ request: Request) -> String? {
        guard let header = request.headers[.authorization]?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        return BearerToken.from(request) ?? header
    }
}

/// The request context of Administration API routes: the authenticator puts the
/// administration application here.
public typealias IDaaSAdminContext = AuthenticatedRequestContext<AdminApplication>

/// Refuses Administration API calls without a live administration token (`401 invalid_token`).
/// A signed-in user's token is never one: the two live in different stores.
public struct IDaaSAdminAuthenticator: AuthenticatorMiddleware {
    public typealias Context = IDaaSAdminContext
    let administration: AdministrationService

    @concurrent public func authenticate(request: Request, context: Context) async throws -> AdminApplication? {
        try await administration.application(token: IDaaSAuthorization.token(request))
    }
}

/// The request context of the signed-in user's routes: the authenticator puts the session here.
public typealias IDaaSUserContext = AuthenticatedRequestContext<BrowserSession>

/// Refuses self-service calls without a live sign-in token (`401 invalid_token`).
public struct IDaaSSessionAuthenticator: AuthenticatorMiddleware {
    public typealias Context = IDaaSUserContext
    let sessions: BrowserSessionService

    @concurrent public func authenticate(request: Request, context: Context) async throws -> BrowserSession? {
        guard let session = try await sessions.session(token: IDaaSAuthorization.token(request)) else {
            throw IdentityError(.invalidToken, "the token from a completed sign-in is required in Authorization; it is missing, expired or signed out")
        }
        return session
    }
}
