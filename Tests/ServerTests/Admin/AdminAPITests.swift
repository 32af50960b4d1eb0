import Foundation
import IdentityCore
import LatchkeyClient
import Testing
import WebAuthn

/// The Admin API against the real process: every operation refused without a key, with a
/// revoked one and without its scope (nothing written); bad input answered with problem
/// details; the user directory, passkeys, sessions and the audit trail; an account turned
/// off in every face.
@Suite("Admin API", .serialized, .timeLimit(.minutes(10)))
struct AdminAPITests {
    /// Every operation of the document, with the scope it needs.
    static let operations: [(method: String, path: String, scope: String, body: [String: String]?)] = [
        ("GET", "/users", "users:read", nil),
        ("POST", "/users", "users:write", ["email": "refused@example.com"]),
        ("GET", "/users/{id}", "users:read", nil),
        ("PATCH", "/users/{id}", "users:write", ["name": "Refused"]),
        ("DELETE", "/users/{id}", "users:write", nil),
        ("POST", "/users/{id}/disable", "users:write", nil),
        ("POST", "/users/{id}/enable", "users:write", nil),
        ("POST", "/users/{id}/enrollment-links", "credentials:write", nil),
        ("GET", "/users/{id}/credentials", "credentials:read", nil),
        ("DELETE", "/users/{id}/credentials/{credential}", "credentials:write", nil),
        ("POST", "/users/{id}/credentials/{credential}/disable", "credentials:write", nil),
        ("POST", "/users/{id}/credentials/{credential}/enable", "credentials:write", nil),
        ("GET", "/users/{id}/sessions", "sessions:read", nil),
        ("DELETE", "/users/{id}/sessions", "sessions:write", nil),
        ("DELETE", "/users/{id}/sessions/{session}", "sessions:write", nil),
        ("GET", "/events", "events:read", nil),
        ("GET", "/events/export", "events:read", nil),
        ("GET", "/stats", "events:read", nil),
        ("GET", "/webhooks/endpoints", "webhooks:read", nil),
        ("POST", "/webhooks/endpoints/ep_000000000000/enable", "webhooks:write", nil),
        ("GET", "/webhooks/deliveries", "webhooks:read", nil),
        ("POST", "/webhooks/deliveries/msg_1_ep_x/resend", "webhooks:write", nil),
        ("GET", "/metadata", "clients:read", nil),
        ("GET", "/clients", "clients:read", nil),
        ("POST", "/imports?format=kratos&dry_run=true", "users:write", nil),
    ]

    /// An operation's request with `key`: JSON bodies as the list gives them, and an import
    /// file (one Kratos identity per line) for `/imports`.
    static func call(_ admin: AdminAPIFixture, _ method: String, _ path: String, key: String?, json: [String: String]?, headers: [String: String] = [:]) async throws -> RawHTTP.Reply {
        guard path.hasPrefix("/imports") else { return try await admin.call(method, path, key: key, json: json, headers: headers) }
        var headers = headers
        if let key { headers["Authorization"] = "Bearer " + key }
        let line = #"{"id": "9b3a1c2e-5d4f-4e6a-8b7c-0d1e2f3a4b5c", "traits": {"email": "imported@example.com"}}"#
        return try await admin.http.send(method, "/admin/v1" + path, body: Data(line.utf8), contentType: "application/x-ndjson", headers: headers)
    }

    @Test func everyOperationRefusesAMissingRevokedOrNarrowKeyAndWritesNothing() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        var ada = PasskeyUser(admin.server)
        let tokens = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        let full = try await admin.key("users:write,credentials:write,sessions:write,events:read,webhooks:write,clients:read")
        let revoked = try await admin.key("users:write,credentials:write,sessions:write,events:read,webhooks:write,clients:read", name: "leaked")
        #expect(try await admin.cli(["keys", "revoke", revoked.id]).status == 0)
        #expect(try await admin.cli(["keys", "revoke", revoked.id]).status != 0, "a key is revoked once")
        let users = try await admin.call("GET", "/users?identifier=ada@example.com", key: full.key)
        let userID = try #require(((users.json["users"] as? [[String: Any]])?.first)?["id"] as? String)
        let credentialID = Base64URL.encode(ada.credentials[0].credentialID)
        let sessions = try await admin.call("GET", "/users/\(userID)/sessions", key: full.key)
        let sessionID = try #require(((sessions.json["sessions"] as? [[String: Any]])?.first)?["id"] as? String)
        let before = try await admin.call("GET", "/events?page_size=500", key: full.key).json["events"] as? [[String: Any]]

        for operation in Self.operations {
            let path = operation.path.replacingOccurrences(of: "{id}", with: userID).replacingOccurrences(of: "{credential}", with: credentialID)
                .replacingOccurrences(of: "{session}", with: sessionID)
            let label = "\(operation.method) \(operation.path)"
            let missing = try await Self.call(admin, operation.method, path, key: nil, json: operation.body)
            expectProblem(missing, 401, "missing_key")
            #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(label)")
            expectProblem(try await Self.call(admin, operation.method, path, key: revoked.key, json: operation.body), 401, "invalid_key")
            expectProblem(try await Self.call(admin, operation.method, path, key: "lk_admin_" + String(repeating: "A", count: 43), json: operation.body), 401, "invalid_key")
            expectProblem(try await Self.call(admin, operation.method, path, key: nil, json: operation.body, headers: ["Authorization": "Basic YTpi"]), 401, "invalid_key")
            // A key with every scope but this one's resource (reading it, for a write).
            let resource = String(operation.scope.split(separator: ":")[0])
            let others = ["users:write", "credentials:write", "sessions:write", "events:read", "webhooks:write", "clients:read"].filter { !$0.hasPrefix(resource) }
            let scopes = operation.scope.hasSuffix(":write") ? others + ["\(resource):read"] : others
            let narrow = try await admin.key(scopes.joined(separator: ","), name: "narrow")
            expectProblem(try await Self.call(admin, operation.method, path, key: narrow.key, json: operation.body), 403, "insufficient_scope")
        }
        // Nothing was written: the user, the passkey and the session are as they were.
        let after = try await admin.call("GET", "/users/\(userID)", key: full.key)
        #expect(after.status == 200 && after.json["disabled"] as? Bool == false && after.json["name"] == nil)
        let credentials = try await admin.call("GET", "/users/\(userID)/credentials", key: full.key).json["credentials"] as? [[String: Any]]
        #expect(credentials?.count == 1 && credentials?.first?["disabled"] as? Bool == false)
        _ = try await ada.client.refresh(refreshToken: try #require(tokens.refreshToken))
        #expect((try await admin.call("GET", "/users?identifier=refused@example.com", key: full.key).json["users"] as? [Any])?.isEmpty == true)
        // The refusals wrote no domain event; only the calls themselves were recorded.
        let events = try await admin.call("GET", "/events?page_size=500", key: full.key).json["events"] as? [[String: Any]] ?? []
        let new = events.filter { event in !(before ?? []).contains { $0["id"] as? String == event["id"] as? String } }
        #expect(new.allSatisfy { ["admin_request", "admin_key_created", "token_refreshed"].contains($0["type"] as? String) }, "\(new.map { $0["type"] ?? "" })")
        // Every call with a live key is recorded under the key's ID.
        let calls = new.filter { $0["type"] as? String == "admin_request" }
        #expect(calls.contains { ($0["actor"] as? [String: Any])?["id"] as? String == full.id })
        let listed = try await admin.cli(["keys", "list"])
        #expect(listed.output.contains("\(revoked.id)  leaked") && listed.output.contains("revoked"), "\(listed.output)")
        #expect(listed.output.contains("\(full.id)  test") && listed.output.contains("last used"), "\(listed.output)")
    }

    @Test func theUserDirectory() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let key = try await admin.key("users:write,events:read").key

        // Made ahead of the first sign-in; identifiers are normalized as at sign-up.
        let made = try await admin.call("POST", "/users", key: key, json: ["email": "Grace@Example.COM", "name": "Grace", "email_verified": true])
        #expect(made.status == 201, "\(made.text)")
        #expect(made.json["email"] as? String == "grace@example.com" && made.json["email_verified"] as? Bool == true && made.json["disabled"] as? Bool == false)
        let grace = try #require(made.json["id"] as? String)
        expectProblem(try await admin.call("POST", "/users", key: key, json: ["email": "grace@example.com"]), 409, "user_exists")
        // Bad input: a clear problem, nothing written.
        expectProblem(try await admin.call("POST", "/users", key: key, json: ["name": "No address"]), 400, "invalid_request")
        expectProblem(try await admin.call("POST", "/users", key: key, json: ["email": "not an address"]), 400, "invalid_request")
        expectProblem(try await admin.call("POST", "/users", key: key, json: ["email": "x@example.com", "role": "admin"]), 400, "invalid_request")
        expectProblem(try await admin.call("POST", "/users", key: key, json: ["email": 42]), 400, "invalid_request")
        let notJSON = try await admin.http.send("POST", "/admin/v1/users", body: Data("{".utf8), headers: ["Authorization": "Bearer " + key])
        expectProblem(notJSON, 400, "invalid_request")
        let wrongType = try await admin.http.send("POST", "/admin/v1/users", body: Data("email=x".utf8), contentType: "text/plain", headers: ["Authorization": "Bearer " + key])
        #expect(wrongType.status == 415 || wrongType.status == 400, "\(wrongType.status) \(wrongType.text)")
        #expect(wrongType.problemCode != nil)
        expectProblem(try await admin.call("GET", "/users?page_size=0", key: key), 400, "invalid_request")
        expectProblem(try await admin.call("GET", "/users?page_size=many", key: key), 400, "invalid_request")
        expectProblem(try await admin.call("GET", "/users?page_token=forged", key: key), 400, "invalid_request")
        expectProblem(try await admin.call("GET", "/users/nobody", key: key), 404, "user_not_found")
        expectProblem(try await admin.call("GET", "/users/%00", key: key), 404, "user_not_found")
        expectProblem(try await admin.call("GET", "/nothing-here", key: key), 404, "not_found")
        #expect((try await admin.call("GET", "/users", key: key).json["users"] as? [Any])?.count == 1, "nothing half-written")

        // Pages by keyset, with an RFC 8288 link to the next; every user once, oldest first.
        var emails = ["grace@example.com"]
        for index in 0..<6 {
            let email = "user\(index)%_@example.com"
            #expect(try await admin.call("POST", "/users", key: key, json: ["email": email]).status == 201)
            emails.append(email)
        }
        var seen: [String] = []
        var path = "/users?page_size=3"
        var pages = 0
        while true {
            let page = try await admin.call("GET", path, key: key)
            #expect(page.status == 200, "\(page.text)")
            seen += (page.json["users"] as? [[String: Any]] ?? []).compactMap { $0["email"] as? String }
            pages += 1
            guard let next = page.json["next_page_token"] as? String else {
                #expect(page.header("Link") == nil)
                break
            }
            let link = try #require(page.header("Link"))
            #expect(link.hasSuffix("rel=\"next\"") && link.contains("page_size=3"), "\(link)")
            path = String(link.dropFirst("</admin/v1".count).prefix { $0 != ">" })
            #expect(path.contains(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_"))) ?? next))
        }
        #expect(seen == emails && pages == 3, "\(seen)")
        // By identifier: exactly, and by a prefix whose % and _ mean themselves.
        let exact = try await admin.call("GET", "/users?identifier=user3%25_@example.com", key: key)
        #expect((exact.json["users"] as? [[String: Any]])?.map { $0["email"] as? String } == ["user3%_@example.com"])
        let prefix = try await admin.call("GET", "/users?identifier_prefix=user1%25", key: key)
        #expect((prefix.json["users"] as? [[String: Any]])?.count == 1, "\(prefix.text)")
        #expect((try await admin.call("GET", "/users?identifier_prefix=user_", key: key).json["users"] as? [Any])?.count == 0)

        // Changing a profile; an address is marked verified, never unverified.
        let renamed = try await admin.call("PATCH", "/users/\(grace)", key: key, json: ["name": "Grace H."])
        #expect(renamed.status == 200 && renamed.json["name"] as? String == "Grace H.", "\(renamed.text)")
        #expect(try await admin.call("PATCH", "/users/\(grace)", key: key, json: ["name": ""]).json["name"] == nil)
        expectProblem(try await admin.call("PATCH", "/users/\(grace)", key: key, json: ["email_verified": false]), 400, "invalid_request")
        expectProblem(try await admin.call("PATCH", "/users/\(grace)", key: key, json: ["name": String(repeating: "x", count: 500)]), 400, "invalid_request")

        // Deleting: the account goes, its events stay.
        #expect(try await admin.call("DELETE", "/users/\(grace)", key: key).status == 204)
        expectProblem(try await admin.call("GET", "/users/\(grace)", key: key), 404, "user_not_found")
        expectProblem(try await admin.call("DELETE", "/users/\(grace)", key: key), 404, "user_not_found")
        let events = try await admin.call("GET", "/events?user_id=\(grace)", key: key).json["events"] as? [[String: Any]] ?? []
        #expect(events.map { $0["type"] as? String } == ["user_deleted", "user_updated", "user_updated", "user_created"], "\(events)")
        #expect(events.allSatisfy { ($0["actor"] as? [String: Any])?["type"] as? String == "admin_key" })
    }

    @Test func anAccountTurnedOffCannotSignInAnywhereAndItsSessionsEnd() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let key = try await admin.key("users:write,sessions:read").key
        var ada = PasskeyUser(admin.server)
        let tokens = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        // The same person in the Kratos face: a session token.
        var kratos = KratosSampleApp(admin.server, platform: .iOS)
        let kratosToken = try #require(try await kratos.signUp(email: "kratos@example.com").json["session_token"] as? String)
        let whoami = { try await admin.http.send("GET", "/sessions/whoami", contentType: nil, headers: ["X-Session-Token": kratosToken]) }
        #expect(try await whoami().status == 200)
        let users = try await admin.call("GET", "/users", key: key).json["users"] as? [[String: Any]] ?? []
        let adaID = try #require(users.first { $0["email"] as? String == "ada@example.com" }?["id"] as? String)
        let kratosID = try #require(users.first { $0["email"] as? String == "kratos@example.com" }?["id"] as? String)

        for id in [adaID, kratosID] {
            let disabled = try await admin.call("POST", "/users/\(id)/disable", key: key)
            #expect(disabled.status == 200 && disabled.json["disabled"] as? Bool == true, "\(disabled.text)")
        }
        // Every session ended at once: refresh, My Account, Kratos's whoami.
        await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: try #require(tokens.refreshToken)) }
        await expectAPIError(status: 401) { try await ada.client.authenticationMethods(accessToken: tokens.accessToken) }
        #expect(try await whoami().status == 401)
        let sessions = try await admin.call("GET", "/users/\(adaID)/sessions", key: key).json["sessions"] as? [[String: Any]] ?? []
        #expect(!sessions.isEmpty && sessions.allSatisfy { $0["active"] as? Bool == false && $0["revoked_at"] != nil }, "\(sessions)")
        // And no sign-in works: a passkey in either face.
        let refused = await expectAPIError(status: 403) { try await ada.signIn() }
        #expect(refused?.reason == "account_disabled", "\(String(describing: refused))")
        let kratosRefused = try await kratos.signIn()
        #expect(kratosRefused.status >= 400 && kratosRefused.json["session_token"] == nil, "\(kratosRefused.text.prefix(300))")

        let kratosEvents = try await admin.call("GET", "/events?user_id=\(kratosID)&type=signup", key: try await admin.key("events:read").key).json["events"] as? [[String: Any]]
        #expect(kratosEvents?.first?["face"] as? String == "kratos", "\(kratosEvents ?? [])")

        // Turned on again, the person signs in.
        #expect(try await admin.call("POST", "/users/\(adaID)/enable", key: key).json["disabled"] as? Bool == false)
        _ = try await ada.signIn()
        #expect(try await admin.call("POST", "/users/\(kratosID)/enable", key: key).status == 200)
        #expect(try await kratos.signIn().json["session_token"] is String)
        expectProblem(try await admin.call("POST", "/users/nobody/disable", key: key), 404, "user_not_found")
    }

    @Test func passkeysAndSessions() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let key = try await admin.key("users:read,credentials:write,sessions:write").key
        var ada = PasskeyUser(admin.server)
        let first = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        _ = try await ada.enroll(accessToken: first.accessToken)
        let bySecond = try await ada.signIn(index: 1)
        let users = try await admin.call("GET", "/users", key: key).json["users"] as? [[String: Any]] ?? []
        let id = try #require(users.first?["id"] as? String)
        let listed = try await admin.call("GET", "/users/\(id)/credentials", key: key)
        let credentials = listed.json["credentials"] as? [[String: Any]] ?? []
        #expect(credentials.count == 2 && listed.json["password"] as? Bool == false, "\(listed.text)")
        #expect(credentials.allSatisfy { $0["provider"] is String && $0["aaguid"] is String && $0["backed_up"] is Bool })
        let firstID = Base64URL.encode(ada.credentials[0].credentialID)
        let secondID = Base64URL.encode(ada.credentials[1].credentialID)

        // Turning the second passkey off ends the session it started and stops its sign-ins.
        let off = try await admin.call("POST", "/users/\(id)/credentials/\(secondID)/disable", key: key)
        #expect(off.status == 200 && off.json["disabled"] as? Bool == true && off.json["disabled_by_admin"] as? Bool == true, "\(off.text)")
        await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: try #require(bySecond.refreshToken)) }
        _ = await expectAPIError(status: 403) { try await ada.signIn(index: 1) }
        #expect(try await admin.call("POST", "/users/\(id)/credentials/\(secondID)/enable", key: key).json["disabled"] as? Bool == false)
        _ = try await ada.signIn(index: 1)

        // Sessions: one ended by ID, then all.
        let sessions = try await admin.call("GET", "/users/\(id)/sessions", key: key).json["sessions"] as? [[String: Any]] ?? []
        let active = sessions.filter { $0["active"] as? Bool == true }
        #expect(active.count == 2, "\(sessions)")
        let firstSession = try #require(active.first { $0["credential_id"] as? String == firstID }?["id"] as? String)
        #expect(try await admin.call("DELETE", "/users/\(id)/sessions/\(firstSession)", key: key).status == 204)
        await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: try #require(first.refreshToken)) }
        expectProblem(try await admin.call("DELETE", "/users/\(id)/sessions/\(firstSession)", key: key), 404, "session_not_found")
        expectProblem(try await admin.call("DELETE", "/users/\(id)/sessions/bs_AAAA", key: key), 404, "session_not_found")
        let all = try await admin.call("DELETE", "/users/\(id)/sessions", key: key)
        #expect(all.status == 200 && all.json["revoked"] as? Int == 1, "\(all.text)")

        // Removing passkeys: not the last way to sign in.
        #expect(try await admin.call("DELETE", "/users/\(id)/credentials/\(firstID)", key: key).status == 204)
        expectProblem(try await admin.call("DELETE", "/users/\(id)/credentials/\(firstID)", key: key), 404, "credential_not_found")
        expectProblem(try await admin.call("DELETE", "/users/\(id)/credentials/\(secondID)", key: key), 409, "last_authentication_method")
        expectProblem(try await admin.call("DELETE", "/users/\(id)/credentials/%%%", key: key), 404, "credential_not_found")
        expectProblem(try await admin.call("GET", "/users/nobody/credentials", key: key), 404, "user_not_found")
        #expect((try await admin.call("GET", "/users/\(id)/credentials", key: key).json["credentials"] as? [Any])?.count == 1)
    }

    @Test func theAuditTrailFiltersAndPages() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let key = try await admin.key("events:read,users:read").key
        let start = Date().addingTimeInterval(-1)
        var ada = PasskeyUser(admin.server)
        _ = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        for _ in 0..<4 { _ = try await ada.signIn() }
        let logins = try await admin.call("GET", "/events?type=login&client_id=demo", key: key).json["events"] as? [[String: Any]] ?? []
        #expect(logins.count == 4 && logins.allSatisfy { ($0["actor"] as? [String: Any])?["type"] as? String == "user" })
        // Each carries the request it came from.
        #expect(logins.allSatisfy { $0["ip"] as? String == "127.0.0.1" && $0["face"] as? String == "authentication_api" && ($0["user_agent"] as? String)?.isEmpty == false }, "\(logins.first ?? [:])")
        #expect((try await admin.call("GET", "/events?type=login&ip=127.0.0.1", key: key).json["events"] as? [Any])?.count == 4)
        #expect((try await admin.call("GET", "/events?type=login&ip=198.51.100.9", key: key).json["events"] as? [Any])?.isEmpty == true)
        let calls = try await admin.call("GET", "/events?type=admin_request&page_size=1", key: key).json["events"] as? [[String: Any]]
        #expect(calls?.first?["face"] as? String == "admin_api", "\(calls ?? [])")
        let ids = logins.compactMap { Int($0["id"] as? String ?? "") }
        #expect(ids == ids.sorted(by: >), "newest first")
        var paged: [String] = []
        var token: String?
        repeat {
            let query = "/events?type=login&page_size=3" + (token.map { "&page_token=\($0)" } ?? "")
            let page = try await admin.call("GET", query, key: key)
            paged += (page.json["events"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            token = page.json["next_page_token"] as? String
        } while token != nil
        #expect(paged == logins.compactMap { $0["id"] as? String })
        let from = ISO8601DateFormatter().string(from: start)
        let to = ISO8601DateFormatter().string(from: start.addingTimeInterval(3600))
        let inRange = try await admin.call("GET", "/events?type=signup&from=\(from)&to=\(to)", key: key).json["events"] as? [Any]
        #expect(inRange?.count == 1)
        let before = try await admin.call("GET", "/events?type=signup&to=\(from)", key: key).json["events"] as? [Any]
        #expect(before?.count == 0)
        // The export: the same events, one JSON object per line, streamed.
        let export = try await admin.call("GET", "/events/export?type=login", key: key)
        #expect(export.status == 200 && export.header("Content-Type")?.hasPrefix("application/x-ndjson") == true, "\(export.text.prefix(300))")
        let lines = export.text.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.compactMap { $0?["id"] as? String } == logins.compactMap { $0["id"] as? String })
        let everything = try await admin.call("GET", "/events/export", key: key).text.split(separator: "\n")
        #expect(everything.count >= 6 && everything.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
        expectProblem(try await admin.call("GET", "/events/export?to=never", key: key), 400, "invalid_request")
        expectProblem(try await admin.call("GET", "/events?from=yesterday", key: key), 400, "invalid_request")
        expectProblem(try await admin.call("GET", "/events?type=coffee", key: key), 400, "invalid_request")
        #expect((try await admin.call("GET", "/events?from=\(to)&to=\(from)", key: key).json["events"] as? [Any])?.isEmpty == true, "an empty range")
        expectProblem(try await admin.call("GET", "/events?page_token=ZTp4", key: key), 400, "invalid_request")
    }

    @Test func onlyThisMachineUnlessPublicAndAListenerOfItsOwn() async throws {
        let admin = try await AdminAPIFixture.start(process: true)
        let key = try await admin.key("users:read").key
        let far = ["X-Forwarded-For": "203.0.113.9"]
        expectProblem(try await admin.call("GET", "/users", key: key, headers: far), 403, "address_not_allowed")
        #expect(try await admin.http.send("GET", "/admin/v1/openapi.json", contentType: nil, headers: far).status == 403)
        #expect(try await admin.call("GET", "/users", key: key).status == 200)
        admin.stop()

        // admin.public: true admits any address; the key still decides.
        let open = try await AdminAPIFixture.start(configuration: AdminAPIFixture.configuration + "\nadmin: { public: true }\n", process: true)
        let openKey = try await open.key("users:read").key
        #expect(try await open.call("GET", "/users", key: openKey, headers: far).status == 200)
        expectProblem(try await open.call("GET", "/users", key: nil, headers: far), 401, "missing_key")
        open.stop()

        // A listener of its own: the main one no longer serves it.
        let port = try freePort()
        let separate = try await AdminAPIFixture.start(configuration: AdminAPIFixture.configuration + "\nadmin: { host: 127.0.0.1, port: \(port) }\n", process: true)
        defer { separate.stop() }
        let separateKey = try await separate.key("users:read").key
        try await #require(separate.process).waitForOutput("Admin API on http://127.0.0.1:\(port)/admin/v1/")
        #expect(try await separate.call("GET", "/users", key: separateKey).status == 404)
        let listener = RawHTTP(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
        let reply = try await listener.send("GET", "/admin/v1/users", contentType: nil, headers: ["Authorization": "Bearer " + separateKey])
        #expect(reply.status == 200, "\(reply.text)")
        expectProblem(try await listener.send("GET", "/elsewhere", contentType: nil), 404, "not_found")
        // The console moves with it.
        #expect(try await listener.send("GET", "/console/login", contentType: nil).status == 200)
        #expect(try await separate.http.send("GET", "/console/login", contentType: nil).status == 404)
        // (From another address, with admin.public off, it refuses there too.)
        #expect(try await listener.send("GET", "/console/login", contentType: nil, headers: far).status == 403)
    }

    @Test func theDocumentIsServedAndListsWhatTheCodeDoes() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let reply = try await admin.http.send("GET", "/admin/v1/openapi.json", contentType: nil)
        #expect(reply.status == 200 && reply.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(reply.json["openapi"] as? String == "3.1.0")
        let schemas = (reply.json["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let eventTypes = (schemas?["EventType"] as? [String: Any])?["enum"] as? [String]
        #expect(eventTypes.map(Set.init) == Set(AuditEvent.Kind.allCases.map(\.rawValue)), "every event kind is in the document, and only those")
        // The committed generated code is the document's: every operation is in its protocol.
        let paths = reply.json["paths"] as? [String: [String: Any]] ?? [:]
        let operationIDs = paths.values.flatMap { $0.values.compactMap { ($0 as? [String: Any])?["operationId"] as? String } }
        let generated = try String(contentsOf: PostgresFixture.packageRoot.appendingPathComponent("Sources/AdminAPI/GeneratedSources/Types.swift"), encoding: .utf8)
        #expect(operationIDs.count == Self.operations.count)
        for id in operationIDs { #expect(generated.contains("func \(id)(_ input: Operations."), "\(id) is generated") }
    }

    @Test func theCommandLineWorksOnTheDatabase() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        var ada = PasskeyUser(admin.server)
        let tokens = try await ada.signUp(SignupProfile(email: "ada@example.com", name: "Ada"))
        let list = try await admin.cli(["users", "list", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any], "\(list.output)")
        let id = try #require(object["id"] as? String)
        #expect(object["email"] as? String == "ada@example.com" && object["disabled"] as? Bool == false)
        #expect(try await admin.cli(["users", "show", id]).output.contains("ada@example.com"))
        let passkeys = try await admin.cli(["passkeys", "list", id])
        #expect(passkeys.output.contains(Base64URL.encode(ada.credentials[0].credentialID)) && passkeys.output.contains("no password"), "\(passkeys.output)")
        #expect(try await admin.cli(["users", "disable", id]).output.contains("disabled"))
        await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: try #require(tokens.refreshToken)) }
        #expect(try await admin.cli(["users", "enable", id]).status == 0)
        // A credential ID is the authenticator's, and one in 64 begins with "-": after `--`.
        let last = try await admin.cli(["passkeys", "delete"], ids: [id, Base64URL.encode(ada.credentials[0].credentialID)])
        #expect(last.status != 0 && last.output.contains("last way to sign in"), "\(last.output)")
        let missing = try await admin.cli(["users", "show", "nobody"])
        #expect(missing.status != 0 && missing.output.contains("no user has this ID"), "\(missing.output)")
        let dashLed = try await admin.cli(["users", "show", "-Ab3dEf"])
        #expect(dashLed.status != 0 && dashLed.output.contains("\"-Ab3dEf\" begins with \"-\"") && dashLed.output.contains("after \"--\""), "\(dashLed.output)")
        // With an "h" in it, it reads as `-h`: the help screen, and the same hint.
        let readAsHelp = try await admin.cli(["users", "delete", "-Ab3hEf"])
        #expect(readAsHelp.output.contains("\"-Ab3hEf\" begins with \"-\""), "\(readAsHelp.output)")
        let afterTerminator = try await admin.cli(["users", "show"], ids: ["-Ab3dEf"])
        #expect(afterTerminator.status != 0 && afterTerminator.output.contains("no user has this ID"), "\(afterTerminator.output)")
        #expect(try await admin.cli(["users", "delete", id]).status == 0)
        let key = try await admin.key("events:read").key
        let events = try await admin.call("GET", "/events?user_id=\(id)&type=user_deleted", key: key).json["events"] as? [[String: Any]]
        #expect((events?.first?["actor"] as? [String: Any])?["type"] as? String == "cli")
        let badScope = try await admin.cli(["keys", "create", "--name", "x", "--scopes", "events:write"])
        #expect(badScope.status != 0 && badScope.output.contains("unknown scope"), "\(badScope.output)")
    }
}

extension AdminAPITests {
    /// An account made ahead of its first sign-in gets its first passkey through a one-use
    /// enrollment link on the hosted pages, without signing in; the link works once.
    @Test func anEnrollmentLinkAddsAPasskeyWithoutSigningIn() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let key = try await admin.key("users:write,credentials:write,enrollment:write,events:read").key
        let made = try await admin.call("POST", "/users", key: key, json: ["email": "grace@example.com", "name": "Grace"])
        let id = try #require(made.json["id"] as? String)
        expectProblem(try await admin.call("POST", "/users/\(id)/enrollment-links", key: key, json: ["expires_in": 10]), 400, "invalid_request")
        expectProblem(try await admin.call("POST", "/users/nobody/enrollment-links", key: key), 404, "user_not_found")
        let link = try await admin.call("POST", "/users/\(id)/enrollment-links", key: key, json: ["expires_in": 3600])
        #expect(link.status == 201, "\(link.text)")
        let url = try #require(link.json["url"] as? String)
        let code = try #require(link.json["code"] as? String)
        #expect(url == "http://localhost:8080/enroll#user=\(id)&code=\(code)" && code.count == 16 && code.allSatisfy(\.isNumber), "\(url)")
        #expect(link.json["expires_at"] is String)

        // The page, then the code traded for a session that may add a passkey.
        let browser = BrowserAgent(admin.server)
        let page = try await browser.get("/enroll")
        #expect(page.status == 200 && page.text.contains("Add a passkey to your account"))
        let wrong = try await browser.call("POST", "/ui/enroll", ["user_id": id, "code": "0000000000000000"])
        #expect(wrong.status >= 400 && wrong.json["redirect_to"] == nil, "\(wrong.text)")
        let used = try await browser.call("POST", "/ui/enroll", ["user_id": id, "code": code])
        #expect(used.status == 200 && used.json["redirect_to"] as? String == "/account/passkeys/new?recovered=1", "\(used.text)")
        try await browser.get("/account/passkeys/new?recovered=1")
        let options = try await browser.call("POST", "/ui/passkeys/options")
        let ceremony = try JSONDecoder().decode(BrowserAgent.Ceremony<PublicKeyCredentialCreationOptionsJSON>.self, from: options.body)
        let (response, credential) = try browser.authenticator.makeCredential(ceremony.options, origin: browser.origin)
        let added = try await browser.call(
            "POST", "/ui/passkeys", ["auth_session": ceremony.auth_session, "response": try JSONSerialization.jsonObject(with: JSONEncoder().encode(response))]
        )
        #expect((200...201).contains(added.status), "\(added.text)")

        // Once only; and the new passkey signs in anywhere.
        let again = try await BrowserAgent(admin.server).call("POST", "/ui/enroll", ["user_id": id, "code": code])
        #expect(again.status >= 400, "\(again.text)")
        var grace = PasskeyUser(admin.server)
        grace.authenticator = browser.authenticator
        grace.credentials = [credential]
        let tokens = try await grace.signIn()
        #expect(claims(of: tokens.accessToken)["sub"] as? String == id)
        let events = try await admin.call("GET", "/events?user_id=\(id)", key: key).json["events"] as? [[String: Any]] ?? []
        #expect(events.contains { $0["type"] as? String == "enrollment_link_created" && ($0["actor"] as? [String: Any])?["type"] as? String == "admin_key" })
        #expect(events.contains { $0["type"] as? String == "account_recovered" && ($0["details"] as? String)?.contains("enrollment link") == true })

        // Not for an account that is off.
        #expect(try await admin.call("POST", "/users/\(id)/disable", key: key).status == 200)
        expectProblem(try await admin.call("POST", "/users/\(id)/enrollment-links", key: key), 409, "account_disabled")
    }
}
