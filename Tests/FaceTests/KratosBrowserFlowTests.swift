import Authenticator
import Crypto
import Foundation
import HTTPTypes
import Testing
import WebAuthn

/// The Kratos face's browser flows over HTTP, in process: the CSRF cookie and token, the
/// session cookie, where a finished flow may send the browser, the browser logout URL and
/// credentialed CORS for the custom UI's origin.
@Suite("Kratos browser flows in process")
struct KratosBrowserFlowTests {
    static let ui = "http://localhost:3000"
    static let yaml = "relying_party: { id: localhost, name: Example, origins: [\"http://localhost:8080\", \"\(ui)\"] }"

    /// A browser on the custom UI's origin: it keeps the cookies Latchkey sets and sends
    /// forms the way `form.submit()` does.
    struct Browser {
        let client: RouterClient
        var cookies: [String: String] = [:]
        var authenticator = SoftwareAuthenticator()
        var credentials: [SoftwareCredential] = []

        var cookieHeader: String { cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }

        mutating func send(_ method: HTTPRequest.Method, _ path: String, form: [(String, String)]? = nil, headers: HTTPFields = [:]) async throws -> RouterClient.Reply {
            var fields = headers
            if !cookies.isEmpty, fields[.cookie] == nil { fields[.cookie] = cookieHeader }
            var body: String?
            if let form {
                body = Self.encode(form)
                if fields[.contentType] == nil { fields[.contentType] = "application/x-www-form-urlencoded" }
                if fields[.origin] == nil { fields[.origin] = KratosBrowserFlowTests.ui }
            }
            let reply = try await client.send(method, path, body: body, headers: fields)
            for value in reply.headers[values: .setCookie] {
                let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard pair.count == 2 else { continue }
                if pair[1].isEmpty || value.contains("Max-Age=0") { cookies[pair[0]] = nil } else { cookies[pair[0]] = pair[1] }
            }
            return reply
        }

        /// Starts a browser flow as a custom UI's `fetch` does.
        mutating func start(_ kind: String, returnTo: String? = nil) async throws -> [String: Any] {
            let query = returnTo.map { "?return_to=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") } ?? ""
            let reply = try await send(.get, "/self-service/\(kind)/browser" + query, headers: [.accept: "application/json", .origin: KratosBrowserFlowTests.ui])
            #expect(reply.status == .ok, "\(kind) browser flow: \(reply.text.prefix(300))")
            return reply.json
        }

        mutating func signUp(_ flow: [String: Any], email: String) throws -> [(String, String)] {
            let data = try #require(Self.node(flow, "passkey_create_data")?["value"] as? String)
            let wrapper = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
            let publicKey = try #require((wrapper["credentialOptions"] as? [String: Any])?["publicKey"])
            var options = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: JSONSerialization.data(withJSONObject: publicKey))
            options.user = .init(id: options.user.id, name: email, displayName: email)
            let (response, credential) = try authenticator.makeCredential(options, origin: KratosBrowserFlowTests.ui)
            credentials.append(credential)
            return [("csrf_token", Self.csrf(flow)), ("traits.email", email), ("passkey_register", try Self.json(response))]
        }

        mutating func signIn(_ flow: [String: Any]) throws -> [(String, String)] {
            let data = try #require(Self.node(flow, "passkey_challenge")?["value"] as? String)
            let wrapper = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
            let options = try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: JSONSerialization.data(withJSONObject: try #require(wrapper["publicKey"])))
            let response = try authenticator.getAssertion(options, origin: KratosBrowserFlowTests.ui, credential: &credentials[0])
            return [("csrf_token", Self.csrf(flow)), ("identifier", ""), ("passkey_login", try Self.json(response))]
        }

        static func node(_ flow: [String: Any], _ name: String) -> [String: Any]? {
            let nodes = ((flow["ui"] as? [String: Any])?["nodes"] as? [[String: Any]]) ?? []
            return nodes.compactMap { $0["attributes"] as? [String: Any] }.first { $0["name"] as? String == name }
        }

        static func csrf(_ flow: [String: Any]) -> String { node(flow, "csrf_token")?["value"] as? String ?? "" }

        static func action(_ flow: [String: Any]) -> String {
            let action = (flow["ui"] as? [String: Any])?["action"] as? String ?? ""
            return String(action.dropFirst("http://localhost:8080".count))
        }

        static func json(_ value: some Encodable) throws -> String {
            String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        }

        static func encode(_ form: [(String, String)]) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            return form.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
        }
    }

    private func errorID(_ reply: RouterClient.Reply) -> String? {
        (reply.json["error"] as? [String: Any])?["id"] as? String
    }

    @Test func browserFlowsCarryTheScriptAndTheCSRFToken() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        var browser = Browser(client: client)
        let flow = try await browser.start("registration")
        #expect(flow["type"] as? String == "browser")
        let cookie = try #require(browser.cookies["csrf_token_latchkey"])
        #expect(Browser.csrf(flow) == cookie, "the form and the cookie carry one token")
        #expect(Browser.node(flow, "passkey_register_trigger")?["onclick"] as? String == "window.oryPasskeyRegistration()")

        // The script node names the served script, with its integrity.
        let nodes = try #require((flow["ui"] as? [String: Any])?["nodes"] as? [[String: Any]])
        let script = try #require(nodes.first { $0["type"] as? String == "script" }?["attributes"] as? [String: Any])
        #expect(script["src"] as? String == "http://localhost:8080/.well-known/ory/webauthn.js")
        let served = try await client.send(.get, "/.well-known/ory/webauthn.js")
        #expect(served.status == .ok)
        #expect(served.headers[.contentType]?.hasPrefix("text/javascript") == true)
        for trigger in ["oryPasskeyLogin", "oryPasskeyLoginAutocompleteInit", "oryPasskeyRegistration", "oryPasskeySettingsRegistration"] {
            #expect(served.text.contains("\(trigger):"), "webauthn.js defines \(trigger)")
        }
        #expect(script["integrity"] as? String == "sha512-" + Data(SHA512.hash(data: served.body)).base64EncodedString())

        // A second flow in the same browser keeps the cookie it has.
        let second = try await browser.start("login")
        #expect(Browser.csrf(second) == cookie)
        #expect(Browser.node(second, "passkey_login")?["onload"] as? String == "window.oryPasskeyLoginAutocompleteInit()")
    }

    @Test func submissionsWithoutTheCSRFCookieAndTokenAreRefusedAndWriteNothing() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        var browser = Browser(client: client)
        let flow = try await browser.start("registration")
        let action = Browser.action(flow)
        var form = try browser.signUp(flow, email: "ada@example.com")
        let good = browser.cookieHeader

        var wrongToken = form
        wrongToken[0].1 = Base64URL.encode(Array(repeating: 7, count: 32))
        var noToken = form
        noToken.removeFirst()
        let refusals: [(String, [(String, String)], HTTPFields)] = [
            ("no cookie", form, [.cookie: "other=1"]),
            ("another cookie", form, [.cookie: "csrf_token_latchkey=" + Base64URL.encode(Array(repeating: 9, count: 32))]),
            ("two cookies", form, [.cookie: good + "; csrf_token_latchkey=" + Base64URL.encode(Array(repeating: 9, count: 32))]),
            ("wrong token", wrongToken, [:]),
            ("no token", noToken, [:]),
            ("foreign origin", form, [.origin: "https://evil.example"]),
        ]
        for (name, body, headers) in refusals {
            let reply = try await browser.send(.post, action, form: body, headers: headers)
            #expect(reply.status == .forbidden, "\(name): \(reply.status.code) \(reply.text.prefix(200))")
            #expect(errorID(reply) == "security_csrf_violation", "\(name)")
            #expect(browser.cookies["ory_kratos_session"] == nil, "\(name)")
        }

        // Nothing was written: the same submission, with its cookie and token, signs up.
        form = try browser.signUp(flow, email: "ada@example.com")
        let reply = try await browser.send(.post, action, form: form, headers: [.accept: "application/json"])
        #expect(reply.status == .ok, "\(reply.text.prefix(300))")
        #expect((reply.json["identity"] as? [String: Any]).flatMap { ($0["traits"] as? [String: Any])?["email"] as? String } == "ada@example.com")
        #expect(reply.json["session_token"] == nil, "a browser gets a cookie, not a token")
        let session = try #require(browser.cookies["ory_kratos_session"])
        #expect(session.hasPrefix("ory_st_"))
        let setCookie = reply.headers[values: .setCookie].first { $0.hasPrefix("ory_kratos_session=") } ?? ""
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax") && setCookie.contains("Path=/"))
        let whoami = try await browser.send(.get, "/sessions/whoami")
        #expect(whoami.status == .ok)
    }

    @Test func aFinishedFlowReturnsOnlyToTheRelyingPartysOrigins() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        var browser = Browser(client: client)
        let registration = try await browser.start("registration", returnTo: Self.ui + "/welcome?x=1")
        let signedUp = try await browser.send(.post, Browser.action(registration), form: try browser.signUp(registration, email: "ada@example.com"))
        #expect(signedUp.status == .seeOther)
        #expect(signedUp.headers[.location] == Self.ui + "/welcome?x=1")

        let targets: [(String, String)] = [
            (Self.ui + "/after", Self.ui + "/after"),
            ("http://localhost:8080/account", "http://localhost:8080/account"),
            ("https://evil.example/", "http://localhost:8080/"),
            ("//evil.example/", "http://localhost:8080/"),
            ("javascript:alert(1)", "http://localhost:8080/"),
            ("http://localhost:3000@evil.example/", "http://localhost:8080/"),
            ("http://localhost:30000/", "http://localhost:8080/"),
            ("http://localhost:3000/\u{0d}\u{0a}Set-Cookie: a=b", "http://localhost:8080/"),
        ]
        for (target, expected) in targets {
            let login = try await browser.start("login", returnTo: target)
            let reply = try await browser.send(.post, Browser.action(login), form: try browser.signIn(login))
            #expect(reply.status == .seeOther, "\(target): \(reply.text.prefix(200))")
            #expect(reply.headers[.location] == expected, "\(target.debugDescription)")
        }
    }

    @Test func theBrowserLogoutURLEndsOnlyItsOwnSession() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        var browser = Browser(client: client)
        let registration = try await browser.start("registration")
        _ = try await browser.send(.post, Browser.action(registration), form: try browser.signUp(registration, email: "ada@example.com"))
        var other = Browser(client: client)
        let otherRegistration = try await other.start("registration")
        _ = try await other.send(.post, Browser.action(otherRegistration), form: try other.signUp(otherRegistration, email: "grace@example.com"))

        let noCookie = try await client.send(.get, "/self-service/logout/browser")
        #expect(noCookie.status == .unauthorized)
        #expect(errorID(noCookie) == "session_inactive")
        let logout = try await browser.send(.get, "/self-service/logout/browser", headers: [.accept: "application/json"])
        #expect(logout.status == .ok)
        let url = try #require(logout.json["logout_url"] as? String)
        let token = try #require(logout.json["logout_token"] as? String)
        #expect(url == "http://localhost:8080/self-service/logout?token=" + token)

        // Another browser's session, or a guessed token, cannot use it.
        let stolen = try await other.send(.get, "/self-service/logout?token=" + token)
        #expect(stolen.status == .forbidden)
        #expect(try await other.send(.get, "/sessions/whoami").status == .ok)
        let guessed = try await browser.send(.get, "/self-service/logout?token=" + Base64URL.encode(Array(repeating: 1, count: 32)))
        #expect(guessed.status == .forbidden)
        #expect(try await browser.send(.get, "/sessions/whoami").status == .ok)

        let done = try await browser.send(.get, "/self-service/logout?token=\(token)&return_to=" + (Self.ui + "/bye").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        #expect(done.status == .seeOther)
        #expect(done.headers[.location] == Self.ui + "/bye")
        #expect(browser.cookies["ory_kratos_session"] == nil, "the cookie is cleared")
        let after = try await client.send(.get, "/sessions/whoami", headers: [.cookie: "ory_kratos_session=" + (other.cookies["ory_kratos_session"] ?? "")])
        #expect(after.status == .ok, "the other browser stays signed in")
        let again = try await client.send(.get, "/self-service/logout?token=" + token)
        #expect(again.status == .unauthorized)
    }

    @Test func settingsInTheBrowserRedirectAfterAFormPost() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        var browser = Browser(client: client)
        let registration = try await browser.start("registration")
        _ = try await browser.send(.post, Browser.action(registration), form: try browser.signUp(registration, email: "ada@example.com"))

        let anonymous = try await client.send(.get, "/self-service/settings/browser")
        #expect(anonymous.status == .unauthorized)
        let settings = try await browser.start("settings", returnTo: Self.ui + "/account")
        let remove = try #require(Browser.node(settings, "passkey_remove"))
        #expect(remove["disabled"] as? Bool == true)
        let refused = try await browser.send(.post, Browser.action(settings), form: [("csrf_token", Browser.csrf(settings)), ("passkey_remove", remove["value"] as? String ?? "")])
        #expect(refused.status == .badRequest)

        // Add one: a form post returns to the UI; the flow then lists both.
        let data = try #require(Browser.node(settings, "passkey_create_data")?["value"] as? String)
        let wrapper = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        let options = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: JSONSerialization.data(withJSONObject: try #require(wrapper["publicKey"])))
        let (response, _) = try SoftwareAuthenticator().makeCredential(options, origin: Self.ui)
        let added = try await browser.send(.post, Browser.action(settings), form: [("csrf_token", Browser.csrf(settings)), ("passkey_settings_register", try Browser.json(response))])
        #expect(added.status == .seeOther, "\(added.text.prefix(300))")
        #expect(added.headers[.location] == Self.ui + "/account")
        let after = try await browser.start("settings")
        let removable = ((after["ui"] as? [String: Any])?["nodes"] as? [[String: Any]] ?? []).filter {
            ($0["attributes"] as? [String: Any])?["name"] as? String == "passkey_remove" && ($0["attributes"] as? [String: Any])?["disabled"] as? Bool == false
        }
        #expect(removable.count == 2)
    }

    @Test func onlyTheRelyingPartysOriginsGetCredentialedCORS() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        for (origin, allowed) in [(Self.ui, true), ("https://evil.example", false), ("http://localhost:3001", false)] {
            let preflight = try await client.send(.options, "/self-service/login/browser", headers: [.origin: origin, .accessControlRequestMethod: "GET"])
            #expect(preflight.headers[.accessControlAllowOrigin] == (allowed ? origin : nil), "\(origin)")
            #expect(preflight.headers[.accessControlAllowCredentials] == (allowed ? "true" : nil), "\(origin)")
            let whoami = try await client.send(.get, "/sessions/whoami", headers: [.origin: origin])
            #expect(whoami.headers[.accessControlAllowOrigin] == (allowed ? origin : nil), "\(origin)")
        }
    }
}
