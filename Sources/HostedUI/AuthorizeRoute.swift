import FaceFrame
import Foundation
import Hummingbird
import IdentityCore
import Localization

extension RouterGroup where Context == HostedPageContext {
    /// Added to an authorization request sent to sign in again for its `acr_values`: the
    /// second time short of them, the client is told instead of asking again.
    static var stepUpMarker: String { "latchkey_step_up" }

    /// The authorization endpoint (OAuth 2.1 §4.1.1). A signed-in person is sent straight back
    /// to a first-party client, or to one they allowed these scopes before, with a code;
    /// for any other client they are asked first on a consent page (`prompt=none` gets
    /// `consent_required` instead). Anyone else signs in on the hosted login page first and
    /// returns here. Errors the client can be trusted with go back to its redirect URI; the
    /// rest (unknown client, unregistered redirect URI) are shown on an error page.
    func addAuthorizationEndpoint(_ pages: HostedPages) {
        get("/authorize") { request, context in
            let t = pages.strings(for: request)
            let parameters: [String: String]
            do {
                parameters = try QueryString.parameters(of: request, reader: pages.body)
            } catch let error as IdentityError {
                let words = FailureWords.of(code: "invalid_request", reason: error.reason, message: error.message, t)
                return PageResponses.errorPage(
                    pages, request, title: t("error.title.sign_in_link_broken"), message: words.message, code: "invalid_request", details: words.details,
                    status: .badRequest
                )
            }
            let authorization = pages.authorization
            let validated: ValidatedAuthorization
            do throws(AuthorizationFailure) {
                validated = try authorization.validate(AuthorizationRequest(parameters: parameters))
            } catch {
                if let location = authorization.errorRedirect(error) { return PageResponses.redirect(location) }
                let words = FailureWords.of(code: error.error, reason: nil, message: error.description, t)
                return PageResponses.errorPage(
                    pages, request, title: t("error.title.sign_in_link_invalid"), message: words.message, code: error.error, details: words.details,
                    status: .badRequest
                )
            }
            let session = context.identity
            switch (validated.prompt, session) {
            case (.none?, nil):
                return PageResponses.redirect(authorization.loginRequiredRedirect(validated))
            case (.login?, _):
                // Come back without prompt=login, so the fresh sign-in is not asked for again.
                let query = (request.uri.query ?? "").split(separator: "&").filter { !$0.hasPrefix("prompt=") }.joined(separator: "&")
                return PageResponses.redirect(ReturnTo.loginURL(returningTo: "/authorize?" + query) + "&reauthenticate=1")
            case (_, nil):
                return PageResponses.redirect(ReturnTo.loginURL(returningTo: "/authorize?" + (request.uri.query ?? "")))
            case (let prompt, let session?):
                if let asked = validated.acr, !asked.isMet(by: try await authorization.level(of: session)) {
                    // A stronger sign-in, once: back here still short of it, the client hears so.
                    if prompt == ValidatedAuthorization.Prompt.none || parameters[Self.stepUpMarker] != nil {
                        return PageResponses.redirect(authorization.unmetRequirementsRedirect(validated))
                    }
                    let query = (request.uri.query ?? "") + "&\(Self.stepUpMarker)=1"
                    return PageResponses.redirect(
                        ReturnTo.loginURL(returningTo: "/authorize?" + query) + "&reauthenticate=1&step_up=\(asked.minimumLevel.rawValue)"
                    )
                }
                guard try await authorization.needsConsent(validated, userID: session.userID) else {
                    return PageResponses.redirect(try await authorization.issueCode(validated, session: session))
                }
                if prompt == ValidatedAuthorization.Prompt.none { return PageResponses.redirect(authorization.consentRequiredRedirect(validated)) }
                return pages.render(
                    request, t, title: t("consent.title", ["app": validated.client.name]), page: "consent",
                    body: Pages.consent(t, clientName: validated.client.name, scopes: validated.scopes, request: request.uri.query ?? ""),
                    signedIn: true
                )
            }
        }
    }
}
