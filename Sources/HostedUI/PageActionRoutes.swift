import Foundation
import HTTPAPI
import HTTPTypes
import Hummingbird
import IdentityCore
import NIOCore
import WebAuthn

/// The bodies of the hosted pages' JSON calls.
struct SignupStart: Decodable {
    let email: String?
    let phone_number: String?
    let name: String?
}

struct LoginStart: Decodable {
    let username: String?
}

struct CeremonyFinish: Decodable {
    let auth_session: String
    let response: PublicKeyCredentialResponse
    let return_to: String?
}

struct EnrollmentFinish: Decodable {
    let auth_session: String
    let response: RegistrationResponseJSON
}

struct NameChange: Decodable {
    let name: String?
}

struct CeremonyOptions<Options: Encodable>: Encodable {
    let options: Options
    let auth_session: String
}

extension Router {
    /// The hosted pages' JSON calls. Each checks CSRF first; the account calls then require
    /// a live browser session. Errors use the Authentication API's envelope.
    func addHostedPageActions(_ pages: HostedPages) {
        let client = OAuthClient.hostedPages
        action(pages, .post, "/ui/signup") { request, _ in
            let body = try await pages.api.body.json(SignupStart.self, from: request)
            let profile = UserProfile(email: Self.nonEmpty(body.email), phoneNumber: Self.nonEmpty(body.phone_number), name: Self.nonEmpty(body.name))
            let challenge = try await pages.api.passkeys.startSignup(client: client, profile: profile)
            return JSONResponse.make(CeremonyOptions(options: challenge.options, auth_session: challenge.authSession))
        }
        action(pages, .post, "/ui/login") { request, _ in
            let body = try await pages.api.body.json(LoginStart.self, from: request)
            let challenge = try await pages.api.passkeys.startLogin(client: client, username: Self.nonEmpty(body.username))
            return JSONResponse.make(CeremonyOptions(options: challenge.options, auth_session: challenge.authSession))
        }
        action(pages, .post, "/ui/session") { request, _ in
            let body = try await pages.api.body.json(CeremonyFinish.self, from: request)
            let signedIn = try await pages.api.passkeys.finishCeremony(client: client, authSession: body.auth_session, response: body.response)
            let (token, _) = try await pages.sessions.start(signedIn, replacing: Cookies.value(pages.sessionCookie, in: request))
            var response = JSONResponse.make(["redirect_to": ReturnTo.validated(body.return_to)])
            response.headers.append(HTTPField(
                name: .setCookie,
                value: Cookies.setCookie(pages.sessionCookie, token, maxAge: Int(pages.sessions.lifetime), sameSite: "Lax", secure: pages.secureCookies)
            ))
            return response
        }
        action(pages, .post, "/ui/logout") { request, _ in
            try await pages.sessions.end(token: Cookies.value(pages.sessionCookie, in: request))
            var response = JSONResponse.make(["redirect_to": "/login"])
            response.headers.append(HTTPField(
                name: .setCookie, value: Cookies.setCookie(pages.sessionCookie, "", maxAge: 0, sameSite: "Lax", secure: pages.secureCookies)
            ))
            return response
        }
        action(pages, .post, "/ui/passkeys/options") { request, _ in
            let session = try await pages.requireSession(request)
            let challenge = try await pages.api.passkeys.startEnrollment(userID: session.userID, clientID: client.clientID)
            return JSONResponse.make(CeremonyOptions(options: challenge.options, auth_session: challenge.authSession))
        }
        action(pages, .post, "/ui/passkeys") { request, _ in
            let session = try await pages.requireSession(request)
            let body = try await pages.api.body.json(EnrollmentFinish.self, from: request)
            let credential = try await pages.api.passkeys.finishEnrollment(
                userID: session.userID, clientID: client.clientID, authSession: body.auth_session, response: body.response
            )
            return JSONResponse.make(["id": Base64URL.encode(credential.credentialID)], status: .created)
        }
        action(pages, .patch, "/ui/passkeys/:id") { request, context in
            let session = try await pages.requireSession(request)
            let body = try await pages.api.body.json(NameChange.self, from: request)
            let credential = try await pages.api.accounts.rename(of: session.userID, methodID: Self.methodID(context), to: body.name)
            return JSONResponse.make(["id": Base64URL.encode(credential.credentialID), "name": pages.api.authenticatorNames.displayName(of: credential)])
        }
        action(pages, .delete, "/ui/passkeys/:id") { request, context in
            let session = try await pages.requireSession(request)
            try await pages.api.accounts.delete(of: session.userID, methodID: Self.methodID(context))
            return try await Self.signalData(pages, session.userID)
        }
        action(pages, .patch, "/ui/profile") { request, _ in
            let session = try await pages.requireSession(request)
            let body = try await pages.api.body.json(NameChange.self, from: request)
            _ = try await pages.api.accounts.updateName(of: session.userID, to: body.name)
            return try await Self.signalData(pages, session.userID)
        }
    }

    /// What the page passes to the Signal API after a change: the account's names and the
    /// passkeys it still accepts.
    private static func signalData(_ pages: HostedPages, _ userID: UserID) async throws -> Response {
        let user = try await pages.api.accounts.user(userID)
        let passkeys = try await pages.api.accounts.passkeys(of: userID)
        return JSONResponse.make(pages.accountData(user, passkeys))
    }

    private func action(
        _ pages: HostedPages,
        _ method: HTTPRequest.Method,
        _ path: String,
        _ handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) {
        on(RouterPath(path), method: method) { request, context in
            await Self.respond(context) {
                try pages.checkCSRF(request)
                return try await handler(request, context)
            }
        }
    }

    private static func methodID(_ context: Context) -> String {
        "passkey|" + (context.parameters.get("id") ?? "")
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }
}
