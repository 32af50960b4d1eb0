import FaceFrame
import Foundation
import Hummingbird
import IdentityCore
import WebAuthn

/// Adding a passkey to an account, by an administration application on the user's behalf or
/// by the signed-in user: `FIDORegisterChallenge` out, `FIDORegisterResponse` in. The
/// finishing request names no ceremony, so the ceremony is found from the challenge in the
/// client data; it stays bound to its account and to whoever started it.
struct IDaaSEnrollment {
    let services: IDaaSServices

    /// Starts an enrollment for `user`: by the signed-in owner (whose sign-in must be
    /// recent) or by an administration application for them.
    func start(for user: User, clientID: String, by actor: Actor) async throws -> Response {
        let started: CreationChallenge
        switch actor {
        case .owner(let signIn):
            started = try await services.passkeys.startEnrollment(for: signIn, clientID: clientID, addressedByChallenge: true)
        case .administrator:
            started = try await services.passkeys.startEnrollment(userID: user.id, clientID: clientID, addressedByChallenge: true)
        }
        let existing = try await services.accounts.passkeys(of: user.id)
        return JSONResponse.make(IDaaSFIDORegisterChallenge(started, existing: existing, names: services.authenticatorNames))
    }

    /// Finishes an enrollment for `user` from the request body.
    /// - Parameter actor: The signed-in owner, or the administration application acting for them.
    func complete(_ request: Request, for user: User, clientID: String, by actor: Actor, origin: RequestOrigin?) async throws -> Response {
        let body = try await services.body.json(IDaaSFIDORegisterResponse.self, from: request)
        try services.checkRelyingPartyID(body.rpId)
        guard let authSession = PasskeyService.ceremonyID(clientDataJSON: body.clientDataJSON.bytes) else {
            throw IDaaSError.invalidRequest("clientDataJSON is not client data with a challenge", field: "clientDataJSON")
        }
        let attested: AttestationObject
        do {
            attested = try AttestationObject(bytes: body.attestationObject.bytes)
        } catch {
            throw Self.registrationFailed(error.reason, check: error.code.rawValue)
        }
        guard let credentialID = attested.authenticatorData.attestedCredentialData?.credentialID else {
            throw Self.registrationFailed("the attestation object's authenticator data has no attested credential", check: WebAuthnError.Code.malformedAuthenticatorData.rawValue)
        }
        // The flat body has no credential envelope; the ID is the attested one.
        let response = RegistrationResponseJSON(
            id: Base64URL.encode(credentialID), rawId: Base64URLBytes(credentialID),
            response: .init(clientDataJSON: body.clientDataJSON, attestationObject: body.attestationObject, transports: body.transports)
        )
        let credential: PasskeyCredential
        do {
            credential = try await services.passkeys.finishEnrollment(
                userID: user.id, clientID: clientID, authSession: authSession, response: response, name: body.name, by: actor, origin: origin
            )
        } catch let failure as IdentityError where failure.code == .invalidGrant {
            if failure.reason == .invalidAuthSession {
                throw IDaaSError(
                    status: .badRequest, code: "fido_challenge_invalid",
                    message: "the challenge in clientDataJSON is unknown, expired, already used, or was started for another user or caller; start the registration again"
                )
            }
            throw Self.registrationFailed(failure.message, check: failure.reason?.rawValue)
        }
        return JSONResponse.make(IDaaSFIDOToken(credential, user: user, names: services.authenticatorNames))
    }

    private static func registrationFailed(_ message: String, check: String?) -> IDaaSError {
        IDaaSError(status: .badRequest, code: "fido_registration_failed", message: message, parameters: check.map { [.init(name: "check", value: $0)] } ?? [])
    }
}

/// Reading, renaming, turning off and deleting passkeys by their `fidoid`.
struct IDaaSTokenManagement {
    let services: IDaaSServices

    /// The passkey a `fidoid` names, optionally only among one user's.
    func credential(_ request: Request, context: some RequestContext, owner: UserID? = nil) async throws -> (PasskeyCredential, User) {
        guard let fidoid = context.parameters.get("fidoid"), let credential = try await services.accounts.passkey(recordID: fidoid),
            owner == nil || credential.userID == owner, let user = try await services.accounts.existingUser(credential.userID)
        else { throw IDaaSError.tokenNotFound }
        return (credential, user)
    }

    func read(_ found: (PasskeyCredential, User)) -> Response {
        JSONResponse.make(IDaaSFIDOToken(found.0, user: found.1, names: services.authenticatorNames))
    }

    /// `PUT`: `FIDOTokenParms` with a new `name`, a new `state` (`ACTIVE` or `INACTIVE`), or both.
    func update(_ request: Request, _ found: (PasskeyCredential, User), by actor: Actor, origin: RequestOrigin?) async throws -> Response {
        let parms = try await services.body.json(IDaaSFIDOTokenParms.self, from: request)
        var disabled: Bool?
        switch parms.state?.uppercased() {
        case nil: disabled = nil
        case "ACTIVE": disabled = false
        case "INACTIVE": disabled = true
        case let other?: throw IDaaSError.invalidRequest("state must be ACTIVE or INACTIVE, not \(other.prefix(40))", field: "state")
        }
        guard parms.name != nil || disabled != nil else { throw IDaaSError.invalidRequest("give a name, a state, or both", field: "name") }
        var credential = found.0
        if let name = parms.name {
            guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw IDaaSError.invalidRequest("name must not be empty", field: "name") }
            credential = try await services.accounts.rename(credential, to: name, actor: actor.administratorID, origin: origin)
        }
        if let disabled {
            credential = try await services.accounts.setDisabled(credential, disabled, by: actor, origin: origin)
        }
        return JSONResponse.make(IDaaSFIDOToken(credential, user: found.1, names: services.authenticatorNames))
    }

    /// `DELETE`: removes the passkey, unless it is the account's last.
    func delete(_ found: (PasskeyCredential, User), by actor: Actor, origin: RequestOrigin?) async throws -> Response {
        try await services.accounts.delete(found.0, by: actor, origin: origin)
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }
}
