import FaceFrame
import Foundation
import Hummingbird
import IdentityCore
import WebAuthn

extension ConsoleRoutes {
    /// What an admin changes. Each answers with the page it was made on (a redirect, so that
    /// reloading does not repeat it), except where something is shown once. Destructive
    /// changes (disable, delete, revoke, resend) need a recent passkey sign-in first.
    static func addChanges(_ changes: RouterGroup<ConsoleContext>, _ console: OperatorConsole) {
        addUserChanges(changes, console)
        changes.post("webhooks/deliveries/:id/resend") { _, context in
            let identity = try context.caller()
            try console.requireRecentSignIn(identity)
            _ = try await console.admin.resendWebhookDelivery(id: try context.parameters.require("id"))
            return back("/webhooks", done: "resent")
        }
        changes.post("webhooks/endpoints/:id/enable") { _, context in
            let id = try context.parameters.require("id")
            guard console.webhookEndpoints.contains(where: { $0.id == id }) else {
                throw IdentityError(.notFound, "no configured webhook endpoint has this ID", reason: .endpointNotFound)
            }
            _ = try await console.admin.enableWebhookEndpoint(id: id)
            return back("/webhooks", done: "enabled")
        }
        changes.post("keys") { request, context in
            let form = try context.caller().form
            let scopes = Set(form.keys.compactMap(AdminScope.init))
            guard !scopes.isEmpty else { throw IdentityError(.invalidRequest, "choose at least one scope", field: "scopes") }
            let made = try await console.admin.createKey(name: form["name"] ?? "", scopes: scopes, origin: context.origin)
            return try await console.keysPage(request, context, createdKey: made.key)
        }
        changes.post("keys/:id/revoke") { _, context in
            try console.requireRecentSignIn(try context.caller())
            guard try await console.admin.revokeKey(id: try context.parameters.require("id"), origin: context.origin) else {
                throw IdentityError(.notFound, "there is no live admin API key with this ID")
            }
            return back("/keys", done: "revoked")
        }
    }

    private static func addUserChanges(_ changes: RouterGroup<ConsoleContext>, _ console: OperatorConsole) {
        let admin = console.admin
        /// The user a change is about, and who makes it.
        @Sendable func target(_ context: ConsoleContext, destructive: Bool) throws -> (UserID, ConsoleOperator) {
            let identity = try context.caller()
            if destructive { try console.requireRecentSignIn(identity) }
            return (UserID(rawValue: try context.parameters.require("id")), identity)
        }
        changes.post("users/:id/disable") { _, context in
            let (user, identity) = try target(context, destructive: true)
            _ = try await admin.setUserDisabled(id: user, disabled: true, by: identity.actor, origin: context.origin)
            return back(userPath(user), done: "disabled")
        }
        changes.post("users/:id/enable") { _, context in
            let (user, identity) = try target(context, destructive: false)
            _ = try await admin.setUserDisabled(id: user, disabled: false, by: identity.actor, origin: context.origin)
            return back(userPath(user), done: "enabled")
        }
        changes.post("users/:id/delete") { _, context in
            let (user, identity) = try target(context, destructive: true)
            try requireConfirmation(identity)
            try await admin.deleteUser(id: user, by: identity.actor, origin: context.origin)
            return back("/users", done: "deleted")
        }
        changes.post("users/:id/enrollment-link") { request, context in
            let (user, identity) = try target(context, destructive: false)
            let made = try await console.recovery.createEnrollmentLink(userID: user, lifetime: 86_400, by: identity.actor, origin: context.origin)
            var account = try await console.account(user.rawValue)
            account.enrollmentLink = (AccountRecoveryService.enrollmentURL(publicURL: console.publicURL, userID: user, code: made.code), made.expiresAt)
            return try console.userPage(request, context, account)
        }
        changes.post("users/:id/sessions/revoke") { _, context in
            let (user, identity) = try target(context, destructive: true)
            guard let id = identity.form["id"], !id.isEmpty else { throw IdentityError(.invalidRequest, "id is required: the session to revoke", field: "id") }
            try await admin.revokeSession(userID: user, id: id, by: identity.actor, origin: context.origin)
            return back(userPath(user), done: "revoked")
        }
        changes.post("users/:id/sessions/revoke-all") { _, context in
            let (user, identity) = try target(context, destructive: true)
            _ = try await admin.revokeSessions(userID: user, by: identity.actor, origin: context.origin)
            return back(userPath(user), done: "revoked")
        }
        for (action, destructive) in [("disable", true), ("enable", false), ("delete", true)] {
            changes.post(RouterPath("users/:id/passkeys/:credential/\(action)")) { _, context in
                let (user, identity) = try target(context, destructive: destructive)
                guard let credential = Base64URL.decode(try context.parameters.require("credential")), !credential.isEmpty else {
                    throw IdentityError(.notFound, "this user has no passkey with this ID", reason: .credentialNotFound)
                }
                if action == "delete" {
                    try requireConfirmation(identity)
                    try await admin.deleteCredential(userID: user, credentialID: credential, by: identity.actor, origin: context.origin)
                } else {
                    _ = try await admin.setCredentialDisabled(userID: user, credentialID: credential, disabled: action == "disable", by: identity.actor, origin: context.origin)
                }
                return back(userPath(user), done: action == "delete" ? "deleted" : action + "d")
            }
        }
    }

    private static func requireConfirmation(_ identity: ConsoleOperator) throws {
        guard identity.form["confirm"] == "on" else {
            throw IdentityError(.invalidRequest, "tick the box to confirm the deletion", field: "confirm")
        }
    }

    private static func userPath(_ user: UserID) -> String {
        "/users/" + (user.rawValue.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? user.rawValue)
    }

    /// Back to the page a change was made on, saying what was done (one of a fixed set of
    /// words, so that no link can make the console say something else).
    private static func back(_ path: String, done: String) -> Response {
        PageResponses.redirect(OperatorConsole.path + path + "?done=" + done, status: .seeOther)
    }

    /// The sentence a page shows for `?done=`.
    static func notice(_ query: [String: String]) -> String? {
        switch query["done"] {
        case "disabled": "Disabled."
        case "enabled": "Enabled."
        case "deleted": "Deleted."
        case "revoked": "Revoked."
        case "resent": "The delivery is due again; the sender will post it shortly."
        default: nil
        }
    }
}
