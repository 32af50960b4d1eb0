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
        let requestURL = services.publicURL + request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
        let flow = try await services.flows.start(kind, isBrowser: true, userID: userID, csrfToken: csrf, requestURL: requestURL)
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
        let violation = KratosError(
            status: .forbidden, id: "security_csrf_violation",
            reason: "Please retry the flow and optionally clear your cookies. The request was rejected to protect you from Cross-Site-Request-Forgery (CSRF) which could cause account takeover, leaking personal information, and other serious security issues.",
            message: "the request was rejected to protect you from Cross-Site-Request-Forgery"
        )
        if let origin = request.headers[.origin], !services.browserOrigins.contains(origin.lowercased()) { throw violation }
        guard let expected = flow.csrfToken, submission["csrf_token"] == expected, Cookies.value(KratosServices.csrfCookie, in: request) == expected else {
            throw violation
        }
    }

    /// A finished browser flow: the session cookie, and either the JSON a script asked for
    /// or a redirect to the flow's `return_to` for a plain form post.
    static func signedIn(_ flow: InteractiveFlow, _ request: Request, token: String, json: some Encodable, services: KratosServices) -> Response {
        let cookie = HTTPField(
            name: .setCookie,
            value: Cookies.setCookie(KratosServices.sessionCookie, token, maxAge: Int(services.sessions.lifetime), sameSite: "Lax", secure: services.secureCookies)
        )
        let accept = request.headers[.accept] ?? ""
        let isScript = accept.contains("application/json") || (request.headers[.contentType] ?? "").hasPrefix("application/json")
        if isScript {
            var response = JSONResponse.make(json)
            response.headers.append(cookie)
            return response
        }
        return Response(status: .seeOther, headers: [.location: returnTo(flow, services: services), .cacheControl: "no-store", .setCookie: cookie.value])
    }

    /// Where a finished flow sends the browser: its `return_to`, when that is on one of the
    /// relying party's web origins, else the public URL. Never an open redirect.
    static func returnTo(_ flow: InteractiveFlow, services: KratosServices) -> String {
        let fallback = services.publicURL + "/"
        guard let query = URLComponents(string: flow.requestURL)?.queryItems, let target = query.first(where: { $0.name == "return_to" })?.value,
            let components = URLComponents(string: target), let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(),
            scheme == "https" || scheme == "http", components.user == nil, components.password == nil,
            !target.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else { return fallback }
        let origin = scheme + "://" + host + (components.port.map { ":\($0)" } ?? "")
        return services.browserOrigins.contains(origin) ? target : fallback
    }
}

/// `/.well-known/ory/webauthn.js`, read from the bundle once.
enum KratosScript {
    static let bytes: [UInt8]? = {
        guard let url = Bundle.module.url(forResource: "webauthn", withExtension: "js"), let data = try? Data(contentsOf: url) else { return nil }
        return Array(data)
    }()

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
