import FaceFrame
import Foundation
import Hummingbird
import IdentityCore
import Localization
import LatchkeyWire

/// `POST /ui/recovery/start`'s body.
struct RecoveryStart: Decodable {
    let email: String?
}

/// `POST /ui/recovery`'s body: the address and one of the two codes.
struct RecoveryFinish: Decodable {
    let email, code, recovery_code: String?
}

/// `POST /ui/enroll`'s body: an enrollment link's account and code.
struct EnrollmentLinkUse: Decodable {
    let user_id, code: String?
}

/// The account page's answer to a verified code.
struct VerifiedAnswer: Encodable {
    let email: String
    let email_verified: Bool
}

extension Router where Context == FaceRequestContext {
    /// The hosted pages' recovery calls ("Lost your passkey?" and "Use a recovery code" on
    /// the sign-in side; recovery codes and email verification on the account page).
    func addRecoveryActions(
        _ pages: HostedPages, starts: RouterGroup<HostedPageContext>, finishes: RouterGroup<HostedPageContext>, account: RouterGroup<HostedPageContext>,
        accountStarts: RouterGroup<HostedPageContext>
    ) {
        starts.post("recovery/start") { request, _ in
            let body = try await pages.body.json(RecoveryStart.self, from: request)
            guard let email = body.email?.trimmingCharacters(in: .whitespaces), !email.isEmpty else {
                throw MissingField(field: "email", words: "recover.enter_email")
            }
            try await pages.recovery.startRecovery(email: email)
            return JSONResponse.make(["message": pages.strings(for: request)("recover.sent", count: Int(pages.recovery.settings.codeLifetime / 60))])
        }
        finishes.post("recovery") { request, context in
            let body = try await pages.body.json(RecoveryFinish.self, from: request)
            guard let email = body.email?.trimmingCharacters(in: .whitespaces), !email.isEmpty else {
                throw MissingField(field: "email", words: "recover.enter_email")
            }
            let user = try await pages.recovery.recover(email: email, code: body.code, recoveryCode: body.recovery_code, clientID: OAuthClient.hostedPages.clientID, origin: context.origin)
            let (token, session) = try await pages.sessions.startAfterRecovery(for: user)
            return try await Self.signedIn(pages, request, token: token, session: session, ["redirect_to": "/account/passkeys/new?recovered=1"], origin: context.origin)
        }
        finishes.post("enroll") { request, context in
            let body = try await pages.body.json(EnrollmentLinkUse.self, from: request)
            guard let userID = body.user_id?.trimmingCharacters(in: .whitespaces), !userID.isEmpty, let code = body.code, !code.isEmpty else {
                throw MissingField(field: body.user_id?.isEmpty == false ? "code" : "user_id", words: "recover.enter_link")
            }
            let user = try await pages.recovery.redeemEnrollmentLink(userID: UserID(rawValue: userID), code: code, clientID: OAuthClient.hostedPages.clientID, origin: context.origin)
            let (token, session) = try await pages.sessions.startAfterRecovery(for: user)
            return try await Self.signedIn(pages, request, token: token, session: session, ["redirect_to": "/account/passkeys/new?recovered=1"], origin: context.origin)
        }
        // What sends mail or runs slow hashes counts as a start against the address's limit.
        accountStarts.post("recovery-codes") { _, context in
            let codes = try await pages.recovery.createRecoveryCodes(by: try context.caller().signIn, origin: context.origin)
            return JSONResponse.make(["recovery_codes": codes])
        }
        accountStarts.post("email-verification") { request, context in
            try await pages.recovery.sendEmailVerification(userID: try context.caller().userID)
            return JSONResponse.make(["message": pages.strings(for: request)("account.email.code_sent")])
        }
        accountStarts.post("profile/email") { request, context in
            let body = try await pages.body.json(RecoveryStart.self, from: request)
            guard let email = body.email?.trimmingCharacters(in: .whitespaces), !email.isEmpty else {
                throw MissingField(field: "email", words: "account.email.enter_new")
            }
            let pending = try await pages.recovery.requestEmailChange(by: try context.caller().signIn, to: email)
            return JSONResponse.make(["pending_email": pending, "message": pages.strings(for: request)("account.email.code_sent_to", ["email": pending])])
        }
        account.post("email-verification/verify") { request, context in
            let body = try await pages.body.json(VerificationCodeRequest.self, from: request)
            guard let code = body.code, !code.isEmpty else { throw MissingField(field: "code", words: "account.email.enter_code") }
            let user = try await pages.recovery.verifyEmail(userID: try context.caller().userID, code: code, origin: context.origin)
            return JSONResponse.make(VerifiedAnswer(email: user.profile.email ?? "", email_verified: user.isEmailVerified))
        }
    }
}
