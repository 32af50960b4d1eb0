import Crypto
import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import NIOCore
import WebAuthn

/// The browser half of the Kratos face: flows a custom UI on one of the relying party's web
/// origins renders as a form, with a CSRF token in a cookie and in the form, and the
/// session in the `ory_kratos_session` cookie.
struct KratosBrowser {
    let services: KratosServices

    /// Starts a browser flow, reusing the browser's CSRF cookie when it has a sound one.
    func start(_ kind: InteractiveFlow.Kind, _ request: Request, userID: UserID? = nil) async throws -> Response {
        let existing = Cookies.value(KratosServices.csrfCookie, in: request).flatMap { $0.utf8.count == 43 && Base64URL.decode($0) != nil ? $0 : nil }
        let csrf = existing ?? Base64URL.encode(services.random.bytes(32))
        let flow = try await services.flows.start(kind, isBrowser: true, userID: userID, csrfToken: csrf, requestURL: services.requestURL(request))
        let body: KratosFlowBody
        if kind == .settings, let userID {
            body = try await KratosSettings(services: services).body(flow, userID: userID)
        } else {
            body = services.renderer.body(flow, options: try services.flows.options(of: flow))
        }
        var response = JSONResponse.make(body)
        if existing == nil {
            response.headers.append(HTTPField(
                name: .setCookie, value: Cookies.setCookie(KratosServices.csrfCookie, csrf, maxAge: nil, sameSite: "Lax", secure: services.secureCookies)
            ))
        }
        return response
    }

    /// Kratos's CSRF rule for browser flows: the form's `csrf_token` must equal the flow's,
    /// and the browser must carry the same token in its cookie; a page on another origin
    /// can set neither. An `Origin` that is not one of the relying party's web origins is
    /// refused too.
    static func checkCSRF(_ flow: InteractiveFlow, _ submission: KratosSubmission, _ request: Request, services: KratosServices) throws {
        let violation = KratosError.csrfViolation
        if let origin = request.headers[.origin], !services.browserOrigins.contains(origin.lowercased()) { throw violation }
        guard let expected = flow.csrfToken, let form = submission["csrf_token"], let cookie = Cookies.value(KratosServices.csrfCookie, in: request),
            sameSecret(form, expected), sameSecret(cookie, expected)
        else {
            throw violation
        }
    }

    /// A finished browser flow: the session cookie, and either the JSON a script asked for
    /// or a redirect to the flow's `return_to` for a plain form post.
    static func signedIn(_ flow: InteractiveFlow, _ request: Request, token: String, json: some Encodable, services: KratosServices) -> Response {
        let cookie = Cookies.setCookie(KratosServices.sessionCookie, token, maxAge: Int(services.sessions.lifetime), sameSite: "Lax", secure: services.secureCookies)
        return finished(flow, request, json: json, services: services, setCookie: cookie)
    }

    /// A browser flow that succeeded: JSON for a script (it asked with `Accept` or sent
    /// JSON), else a `303` to the flow's `return_to`, as a form post needs.
    static func finished(_ flow: InteractiveFlow, _ request: Request, json: some Encodable, services: KratosServices, setCookie: String? = nil) -> Response {
        var response: Response
        if wantsJSON(request) {
            response = JSONResponse.make(json)
        } else {
            response = Response(status: .seeOther, headers: [.location: returnTo(flow.requestURL, services: services), .cacheControl: "no-store"])
        }
        if let setCookie { response.headers.append(HTTPField(name: .setCookie, value: setCookie)) }
        return response
    }

    static func wantsJSON(_ request: Request) -> Bool {
        (request.headers[.accept] ?? "").contains("application/json") || (request.headers[.contentType] ?? "").hasPrefix("application/json")
    }

    /// Where a finished flow sends the browser: the `return_to` of the URL that started it,
    /// when that is on one of the relying party's web origins, else the public URL. Never
    /// an open redirect.
    static func returnTo(_ requestURL: String, services: KratosServices) -> String {
        let fallback = services.publicURL + "/"
        guard let query = URLComponents(string: requestURL)?.queryItems, let target = query.first(where: { $0.name == "return_to" })?.value,
            let components = URLComponents(string: target), let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(),
            scheme == "https" || scheme == "http", components.user == nil, components.password == nil,
            !target.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else { return fallback }
        let origin = scheme + "://" + host + (components.port.map { ":\($0)" } ?? "")
        return services.browserOrigins.contains(origin) ? target : fallback
    }

    /// `GET /self-service/logout/browser`: the URL that ends this browser's session. Its
    /// token is derived from the session cookie, so another site cannot forge the URL, and
    /// nothing more needs storing.
    func logoutURL(session token: String) -> KratosLogoutURL {
        let logoutToken = Self.logoutToken(for: token)
        return KratosLogoutURL(logout_url: services.publicURL + "/self-service/logout?token=" + logoutToken, logout_token: logoutToken)
    }

    /// `GET /self-service/logout?token=…`: ends the session whose cookie the browser sends
    /// when the token belongs to it, clears the cookie, and returns to `return_to`.
    func logout(_ request: Request, origin: RequestOrigin?) async throws -> Response {
        let token = Cookies.value(KratosServices.sessionCookie, in: request)
        guard let token, try await services.sessions.session(token: token) != nil else { throw KratosError.sessionInactive }
        guard let given = request.uri.queryParameters.get("token"), Self.sameSecret(String(given), Self.logoutToken(for: token)) else {
            throw KratosError(status: .forbidden, id: "forbidden", reason: "The logout token does not belong to this browser's session.", message: "The requested action was forbidden")
        }
        try await services.sessions.end(token: token, origin: origin)
        let cleared = Cookies.setCookie(KratosServices.sessionCookie, "", maxAge: 0, sameSite: "Lax", secure: services.secureCookies)
        var response: Response
        if Self.wantsJSON(request) {
            response = Response(status: .noContent, headers: [.cacheControl: "no-store"])
        } else {
            let target = Self.returnTo(services.requestURL(request), services: services)
            response = Response(status: .seeOther, headers: [.location: target, .cacheControl: "no-store"])
        }
        response.headers.append(HTTPField(name: .setCookie, value: cleared))
        return response
    }

    private static func logoutToken(for sessionToken: String) -> String {
        Base64URL.encode(TokenService.hash("kratos-logout:" + sessionToken))
    }

    /// Compares secrets by their digests, so the time a comparison takes says nothing
    /// about how much of a guess was right.
    static func sameSecret(_ a: String, _ b: String) -> Bool {
        TokenService.hash(a) == TokenService.hash(b)
    }
}

/// `GET /self-service/logout/browser`'s body.
struct KratosLogoutURL: Encodable {
    let logout_url, logout_token: String
}

/// `/.well-known/ory/webauthn.js`, read from the bundle once.
enum KratosScript {
    static let bytes: [UInt8]? = {
        guard let url = Bundle.module.url(forResource: "webauthn", withExtension: "js"), let data = try? Data(contentsOf: url) else { return nil }
        return Array(data)
    }()

    /// The script's `sha512-…` subresource integrity, as the script node carries it.
    static let integrity: String = "sha512-" + Data(SHA512.hash(data: bytes ?? [])).base64EncodedString()

    static func response() -> Response {
        guard let bytes else { return Response(status: .notFound) }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/javascript; charset=utf-8", .cacheControl: "public, max-age=300",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                // Custom UIs load it from their own origin with crossorigin="anonymous".
                .accessControlAllowOrigin: "*",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
