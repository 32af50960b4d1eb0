import Authenticator
import Foundation
import WebAuthn

/// What a browser does on the hosted pages, over plain HTTP: it keeps cookies, reads the
/// CSRF token from each page, and runs ceremonies with a software authenticator. For the
/// tests of the pages' server side; `HostedPagesBrowserTests` drives a real browser.
final class BrowserAgent: @unchecked Sendable {
    let http: RawHTTP
    let origin: String
    var cookies: [String: String] = [:]
    var csrfToken = ""
    var authenticator = SoftwareAuthenticator()
    var credentials: [SoftwareCredential] = []
    /// Sent with every request, as a browser sends its `User-Agent`.
    var extraHeaders: [String: String] = [:]

    struct Ceremony<Options: Decodable>: Decodable {
        let options: Options
        let auth_session: String
    }

    init(server: URL, origin: String = "http://localhost:8080") {
        http = RawHTTP(baseURL: server)
        self.origin = origin
    }

    /// A browser at `server`, reached the way the server is reached.
    init(_ server: some TestServer, origin: String = "http://localhost:8080") {
        http = RawHTTP(server)
        self.origin = origin
    }

    /// Loads a page, keeping its cookies and CSRF token.
    @discardableResult
    func get(_ path: String) async throws -> RawHTTP.Reply {
        let reply = try await http.send("GET", path, contentType: nil, headers: cookieHeader.merging(extraHeaders) { $1 })
        keepCookies(reply)
        if let range = reply.text.range(of: "<meta name=\"latchkey-csrf\" content=\"") {
            csrfToken = String(reply.text[range.upperBound...].prefix { $0 != "\"" })
        }
        return reply
    }

    /// A JSON call from the page, with the CSRF header and cookies a same-origin fetch sends.
    func call(_ method: String, _ path: String, _ body: [String: Any] = [:], headers: [String: String] = [:]) async throws -> RawHTTP.Reply {
        var all = cookieHeader.merging(["X-CSRF-Token": csrfToken, "Origin": origin, "Sec-Fetch-Site": "same-origin"]) { $1 }.merging(extraHeaders) { $1 }
        all.merge(headers) { $1 }
        let reply = try await http.json(method, path, body, headers: all)
        keepCookies(reply)
        return reply
    }

    /// Signs up on the hosted pages and returns the `/ui/session` reply.
    func signUp(email: String, name: String? = nil, returnTo: String? = nil) async throws -> RawHTTP.Reply {
        try await get("/signup")
        var body: [String: Any] = ["email": email]
        if let name { body["name"] = name }
        let start = try await call("POST", "/ui/signup", body)
        guard start.status == 200 else { throw TestFailure("sign-up start: \(start.status) \(start.text)") }
        let ceremony = try JSONDecoder().decode(Ceremony<PublicKeyCredentialCreationOptionsJSON>.self, from: start.body)
        let (response, credential) = try authenticator.makeCredential(ceremony.options, origin: origin)
        credentials.append(credential)
        return try await finish(ceremony.auth_session, .registration(response), returnTo: returnTo)
    }

    /// Signs in on the hosted login page with the passkey at `index`.
    func signIn(index: Int = 0, returnTo: String? = nil) async throws -> RawHTTP.Reply {
        try await get("/login")
        let start = try await call("POST", "/ui/login")
        guard start.status == 200 else { throw TestFailure("sign-in start: \(start.status) \(start.text)") }
        let ceremony = try JSONDecoder().decode(Ceremony<PublicKeyCredentialRequestOptionsJSON>.self, from: start.body)
        let response = try authenticator.getAssertion(ceremony.options, origin: origin, credential: &credentials[index])
        return try await finish(ceremony.auth_session, .authentication(response), returnTo: returnTo)
    }

    private func finish(_ authSession: String, _ response: PublicKeyCredentialResponse, returnTo: String?) async throws -> RawHTTP.Reply {
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(response))
        var body: [String: Any] = ["auth_session": authSession, "response": encoded]
        if let returnTo { body["return_to"] = returnTo }
        return try await call("POST", "/ui/session", body)
    }

    var cookieHeader: [String: String] {
        cookies.isEmpty ? [:] : ["Cookie": cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")]
    }

    /// The raw `Set-Cookie` values of a reply (URLSession joins several with ", ").
    static func setCookies(_ reply: RawHTTP.Reply) -> [String] {
        guard let joined = reply.header("Set-Cookie") else { return [] }
        return joined.components(separatedBy: ", ").filter { $0.contains("=") && !$0.hasPrefix(" ") }
    }

    private func keepCookies(_ reply: RawHTTP.Reply) {
        for cookie in Self.setCookies(reply) {
            let pair = cookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            let name = String(pair[0]).trimmingCharacters(in: .whitespaces)
            if pair[1].isEmpty || cookie.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = String(pair[1]) }
        }
    }
}
