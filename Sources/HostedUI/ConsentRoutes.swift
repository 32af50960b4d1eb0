import FaceFrame
import Foundation
import Hummingbird
import IdentityCore
import NIOCore

/// The consent call's body: the authorization request as its query string, and the
/// person's answer.
struct ConsentDecision: Decodable {
    let request, decision: String
}

struct ConsentRevocation: Decodable {
    let client_id: String?
}

extension RouterGroup where Context == HostedPageContext {
    /// The consent page's answer (`POST /ui/consent`) and withdrawing a consent from the
    /// account page (`POST /ui/consents/revoke`), on the group of signed-in calls behind the
    /// hosted pages' CSRF check.
    func addConsentActions(_ pages: HostedPages) {
        post("consent") { request, context in
            let session = try context.caller()
            let body = try await pages.body.json(ConsentDecision.self, from: request)
            guard body.decision == "allow" || body.decision == "deny" else {
                throw IdentityError(.invalidRequest, "decision must be allow or deny", field: "decision")
            }
            // The request is checked again as it was on the consent page: nothing the page
            // carried is trusted beyond what /authorize itself would accept.
            let parameters = try pages.body.form(from: ByteBuffer(string: body.request))
            let validated: ValidatedAuthorization
            do throws(AuthorizationFailure) {
                validated = try pages.authorization.validate(AuthorizationRequest(parameters: parameters))
            } catch {
                if let location = pages.authorization.errorRedirect(error) { return JSONResponse.make(["redirect_to": location]) }
                throw IdentityError(.invalidRequest, error.description, field: "request")
            }
            guard body.decision == "allow" else {
                return JSONResponse.make(["redirect_to": pages.authorization.deniedRedirect(validated)])
            }
            try await pages.authorization.grantConsent(validated, userID: session.userID, origin: context.origin)
            return JSONResponse.make(["redirect_to": try await pages.authorization.issueCode(validated, session: session)])
        }
        post("consents/revoke") { request, context in
            let session = try context.caller()
            let body = try await pages.body.json(ConsentRevocation.self, from: request)
            guard let clientID = body.client_id, !clientID.isEmpty else { throw IdentityError(.invalidRequest, "client_id is required", field: "client_id") }
            try await pages.authorization.revokeConsent(userID: session.userID, clientID: clientID, origin: context.origin)
            return JSONResponse.make(["revoked": clientID])
        }
    }
}
