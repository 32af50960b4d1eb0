import FaceFrame
import Foundation
import Hummingbird
import IdentityCore
import WebAuthn

/// Passkey sign-in as the Authentication API does it: a challenge with a transaction token,
/// then the flat `fidoResponse` with that token in `Authorization`. The transaction token
/// is the ceremony itself: single use, bound to its application and challenge, and gone
/// when the ceremony expires.
struct IDaaSAuthentication {
    let services: IDaaSServices

    /// The authenticators whose sign-in is a passkey assertion.
    enum Authenticator: String {
        /// Usernameless: no `userId`, any discoverable passkey.
        case passkey = "PASSKEY"
        /// A known user's registered passkeys.
        case fido = "FIDO"

        init(_ request: Request, context: some RequestContext) throws {
            let name = context.parameters.get("authenticator") ?? ""
            guard let authenticator = Self(rawValue: name.uppercased()) else {
                throw IDaaSError(
                    status: .badRequest, code: "authenticator_not_supported",
                    message: "authenticator \(name.prefix(40)) is not served here; use PASSKEY or FIDO",
                    parameters: [.init(name: "authenticator", value: String(name.prefix(40)))]
                )
            }
            self = authenticator
        }
    }

    /// `POST /api/web/v2/authentication/users/authenticate/{authenticator}`.
    func challenge(_ request: Request, _ authenticator: Authenticator) async throws -> Response {
        let body = try await services.body.json(IDaaSUserChallengeParameters.self, from: request)
        let client = try services.application(body.applicationId)
        try services.checkRelyingPartyID(body.rpId)
        let userID = body.userId.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        if authenticator == .fido, userID == nil {
            throw IDaaSError.invalidRequest("userId is required for the FIDO authenticator; use PASSKEY to sign in without one", field: "userId")
        }
        let started: RequestChallenge
        do {
            started = try await services.passkeys.startLogin(client: client, username: userID)
        } catch let failure as IdentityError where failure.reason == .malformedIdentifier {
            throw IDaaSError.invalidRequest("userId is not a valid email, phone number or username", field: "userId")
        }
        let now = services.clock.now()
        let timeout = started.options.timeout ?? 60000
        let challenge = IDaaSFIDOChallenge(
            challenge: started.options.challenge.base64URL,
            allowCredentials: started.options.allowCredentials?.map(\.id.base64URL),
            timeout: timeout / 1000, timeoutMillis: timeout
        )
        return JSONResponse.make(IDaaSAuthenticatedResponse(
            authenticationCompleted: false, token: started.authSession, fidoChallenge: challenge,
            expires: WireTime.milliseconds(now.addingTimeInterval(Double(timeout) / 1000)), time: WireTime.milliseconds(now)
        ))
    }

    /// `POST /api/web/v1/authentication/users/authenticate/{authenticator}/complete`.
    func complete(_ request: Request, context: some OriginRequestContext) async throws -> Response {
        guard let transaction = IDaaSAuthorization.token(request) else { throw IDaaSError.transactionInvalid }
        let body = try await services.body.json(IDaaSUserAuthenticateParameters.self, from: request)
        let client = try services.application(body.applicationId)
        try services.checkRelyingPartyID(body.rpId)
        if body.cancel == true {
            throw IDaaSError.invalidRequest("cancel is not supported for passkey sign-in: the transaction ends on its own when it expires", field: "cancel")
        }
        guard let fido = body.fidoResponse else { throw IDaaSError.invalidRequest("fidoResponse is required", field: "fidoResponse") }
        if fido.credentialId == nil, fido.userHandle == nil {
            throw IDaaSError.invalidRequest("fidoResponse.credentialId is required when fidoResponse.userHandle is absent", field: "fidoResponse.credentialId")
        }
        // Without `credentialId` (the Android sample), the pipeline finds the passkey from the
        // user handle and the signature, after it has opened the transaction.
        let credentialID = fido.credentialId?.bytes ?? []
        let assertion = AuthenticationResponseJSON(
            id: Base64URL.encode(credentialID), rawId: Base64URLBytes(credentialID),
            response: .init(clientDataJSON: fido.clientDataJSON, authenticatorData: fido.authenticatorData, signature: fido.signature, userHandle: fido.userHandle)
        )
        // A request that names its user may only sign in that user, checked in the pipeline
        // before anything but the refusal is written. An unknown `userId` expects an ID no
        // account has, so it is refused exactly like another account's passkey.
        var expectedUserID: UserID?
        if let named = body.userId.flatMap({ $0.isEmpty ? nil : $0 }) {
            expectedUserID = try await services.accounts.user(identifiedBy: named)?.id ?? UserID(rawValue: "")
        }
        let (signedIn, (token, session)) = try await services.passkeys.finishCeremony(
            client: client, authSession: transaction, response: .authentication(assertion), expectedUserID: expectedUserID,
            findsUnnamedCredential: true, origin: context.origin, failureCheck: context.failureCheck, startSession: services.sessions.begin
        )
        let user = signedIn.user
        return JSONResponse.make(IDaaSAuthenticatedResponse(
            authenticationCompleted: true, token: token, expires: WireTime.milliseconds(session.expiresAt), time: WireTime.milliseconds(services.clock.now()),
            userId: user.accountName, id: user.id.uuid, firstName: user.profile.givenName, lastName: user.profile.familyName,
            userRegistrationRequired: false, userVerificationRequired: false
        ))
    }

    /// `POST /api/web/v1/authentication/logout`.
    func logout(_ request: Request, origin: RequestOrigin?) async throws -> Response {
        let token = IDaaSAuthorization.token(request)
        guard try await services.sessions.session(token: token) != nil else {
            throw IdentityError(.invalidToken, "the token is missing, expired or already signed out")
        }
        try await services.sessions.end(token: token, origin: origin)
        return Response(status: .ok, headers: [.cacheControl: "no-store"])
    }
}
