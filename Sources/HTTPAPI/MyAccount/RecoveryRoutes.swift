import FaceFrame
import Foundation
import Hummingbird
import IdentityCore
import LatchkeyWire

extension Router where Context == FaceRequestContext {
    /// My Account's verification and recovery-code routes: `POST /me/v1/email-verification`
    /// (send a code), `POST /me/v1/email-verification/verify`, and `GET|POST
    /// /me/v1/recovery-codes`.
    ///
    /// Sending a code counts as a ceremony start and checking one as a finish, so that a wrong
    /// code counts toward the address's failure limit.
    func addVerificationAndRecoveryCodes(
        _ me: RouterGroup<BearerRequestContext>, starts: RouterGroup<BearerRequestContext>, finishes: RouterGroup<BearerRequestContext>,
        services: MyAccountServices
    ) {
        starts.post("email-verification") { _, context in
            let grant = try context.grant(requiring: Scopes.updateProfile)
            try await services.recovery.sendEmailVerification(userID: grant.userID)
            return JSONResponse.make(EmptyObject(), status: .accepted)
        }
        finishes.post("email-verification/verify") { request, context in
            let grant = try context.grant(requiring: Scopes.updateProfile)
            let body = try await services.body.json(VerificationCodeRequest.self, from: request)
            guard let code = body.code, !code.isEmpty else { throw IdentityError(.invalidRequest, "code is required", reason: .required, field: "code") }
            let user = try await services.recovery.verifyEmail(userID: grant.userID, code: code, origin: context.origin)
            // The signals, so that an app can tell the credential manager the new account name
            // (`signalCurrentUserDetails`) when the code finished a change of address.
            let signals = try await services.accounts.signals(of: grant.userID, relyingPartyID: services.passkeys.relyingPartyID)
            return JSONResponse.make(EmailVerifiedResponse(email: user.profile.email ?? "", emailVerified: user.isEmailVerified, signals: LatchkeyWire.AccountSignals(signals)))
        }
        me.get("recovery-codes") { _, context in
            let grant = try context.grant(requiring: Scopes.readAuthenticationMethods)
            let status = try await services.recovery.recoveryCodeStatus(userID: grant.userID)
            return JSONResponse.make(RecoveryCodeStatus(remaining: status.remaining, createdAt: status.createdAt.map(WireTime.text)))
        }
        // Ten slow hashes: a start against the address's limit (and the account's own).
        starts.post("recovery-codes") { _, context in
            let grant = try context.grant(requiring: Scopes.createAuthenticationMethods)
            // A recovery token may enroll a passkey and nothing else (its person then signs in
            // with the new passkey and makes a new set).
            guard !grant.isRecovery else {
                throw IdentityError(.accessDenied, "a recovery token may only enroll a passkey; sign in with the new passkey, then create recovery codes")
            }
            let codes = try await services.recovery.createRecoveryCodes(by: grant.signIn, origin: context.origin)
            return JSONResponse.make(RecoveryCodesResponse(recoveryCodes: codes), status: .created)
        }
    }
}
