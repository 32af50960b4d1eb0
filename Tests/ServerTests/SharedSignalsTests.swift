import Foundation
import LatchkeyClient
import Testing

/// The Shared Signals transmitter from a real server process to a receiver that verifies
/// every SET with authlib against the JWKS: the metadata, streams made and changed through
/// the management API, each listed event after the action that causes it (pushed, and
/// polled), nothing for a change that was refused, and each `jti` once across a restart.
@Suite("Shared Signals: a real server process and a receiver", .serialized, .timeLimit(.minutes(10)))
struct SharedSignalsTests {
    static let issuer = "http://localhost:8080/"
    static let configuration = EndToEndTests.configuration + """

        webhooks: { allow_private_networks: [127.0.0.1/32] }
        """
    static let caep = "https://schemas.openid.net/secevent/caep/event-type/"
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let everyEvent = ["session-revoked", "credential-change", "assurance-level-change"].map { caep + $0 }
        + ["account-disabled", "account-enabled", "account-purged", "identifier-changed", "credential-compromise"].map { risc + $0 }

    /// A call of the management API with `key` as the bearer.
    static func call(_ admin: AdminAPIFixture, _ method: String, _ path: String, key: String?, json: [String: Any]? = nil) async throws -> RawHTTP.Reply {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        return try await admin.http.send(method, path, body: body, contentType: body == nil ? nil : "application/json", headers: key.map { ["Authorization": "Bearer " + $0] } ?? [:])
    }

    @Test func pushedEventsFollowTheirActionsOnceEachAcrossARestart() async throws {
        var admin = try await AdminAPIFixture.start(configuration: Self.configuration, process: true)
        defer { admin.stop() }
        let receiverKey = try await admin.key("ssf:write", name: "receiver").key
        let operatorKey = try await admin.key("users:write").key
        // The receiver's first post fails: that event waits in the outbox for its retry, 5 s on,
        // which comes from the server before the restart or after it. (One failure only: a
        // second one of the same delivery would put its next try 5 minutes off.)
        let receiver = try await SSFReceiver.push(issuer: Self.issuer, authorization: "Bearer receiver-s3cret", failFirst: 1)
        defer { receiver.stop() }
        try receiver.expect(jwksURI: admin.server.baseURL.absoluteString + "/oauth/jwks")

        // The metadata names every endpoint under the issuer.
        let metadata = try await Self.call(admin, "GET", "/.well-known/ssf-configuration", key: nil)
        #expect(metadata.status == 200 && metadata.json["issuer"] as? String == Self.issuer && metadata.json["spec_version"] as? String == "1_0")
        #expect(metadata.json["delivery_methods_supported"] as? [String] == ["urn:ietf:rfc:8935", "urn:ietf:rfc:8936"])
        #expect(metadata.json["configuration_endpoint"] as? String == Self.issuer + "ssf/streams", "\(metadata.json)")

        let created = try await Self.call(admin, "POST", "/ssf/streams", key: receiverKey, json: [
            "delivery": ["method": "urn:ietf:rfc:8935", "endpoint_url": receiver.url, "authorization_header": "Bearer receiver-s3cret"],
            "events_requested": Self.everyEvent + ["urn:example:not-an-event"], "description": "Relying party A",
        ])
        #expect(created.status == 201, "\(created.text)")
        let stream = try #require(created.json["stream_id"] as? String)
        let audience = try #require(created.json["aud"] as? String)
        #expect(created.json["iss"] as? String == Self.issuer)
        #expect(created.json["events_delivered"] as? [String] == Self.everyEvent, "only what is both requested and supported")
        try receiver.expect(audience: audience)

        // A verification carries its state back, named by the stream.
        #expect(try await Self.call(admin, "POST", "/ssf/verify", key: receiverKey, json: ["stream_id": stream, "state": "first"]).status == 204)
        // (How often is the service's test's, on a clock of its own: here a loaded machine can
        // take seconds between two requests.)
        #expect(created.json["min_verification_interval"] as? Int == 5)

        // A person's life: sign up, add a passkey, remove it, rename themselves, sign out everywhere.
        var ada = PasskeyUser(server: admin.server.baseURL)
        let signup = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        let idToken = try #require(signup.idToken)
        let userID = try #require(claims(of: idToken)["sub"] as? String)
        let tokens = try await ada.signIn()
        let added = try await ada.enroll(accessToken: tokens.accessToken)
        try await ada.client.deleteAuthenticationMethod(id: added.id, accessToken: tokens.accessToken)
        _ = try await ada.client.updateProfile(name: "Ada L.", accessToken: tokens.accessToken)
        // Refused (the last way in): rolled back, so nothing is sent for it.
        let last = try #require(try await ada.client.authenticationMethods(accessToken: tokens.accessToken).first?.id)
        await #expect(throws: LatchkeyAPIError.self) {
            try await ada.client.deleteAuthenticationMethod(id: last, accessToken: tokens.accessToken)
        }
        try await ada.client.signOutEverywhere(accessToken: tokens.accessToken)

        // The server stops with deliveries still owed, and a new one takes over.
        try await receiver.waitFor(1)
        admin.process?.stop()
        let restarted = try await ServerProcess.start(configuration: Self.configuration, in: admin.directory)
        admin = AdminAPIFixture(directory: admin.directory, server: restarted)
        try receiver.expect(jwksURI: restarted.baseURL.absoluteString + "/oauth/jwks")
        for action in ["disable", "enable"] {
            #expect(try await Self.call(admin, "POST", "/admin/v1/users/\(userID)/\(action)", key: operatorKey).status == 200)
        }
        #expect(try await Self.call(admin, "DELETE", "/admin/v1/users/\(userID)", key: operatorKey).status == 204)

        // A delivery the stopped server had claimed waits out its lease (a minute) before the
        // new one takes it, as it would after a crash.
        let sets: [SSFReceiver.SET]
        do {
            sets = try await receiver.waitFor(9, timeout: 150)
        } catch {
            // What the outbox says of each of the stream's deliveries, to tell why one is missing.
            let outbox = try await ExternalCommand.run("/usr/bin/sqlite3", [
                admin.directory.path("latchkey.sqlite"), "SELECT endpoint_id, status, attempts, last_status, last_error FROM webhook_deliveries",
            ])
            throw TestFailure("\(error); the outbox: \(outbox.output)")
        }
        try await Task.sleep(for: .seconds(2))
        let all = receiver.sets()
        #expect(Set(all.map(\.jti)).count == all.count, "each jti once: \(all.map(\.jti))")
        #expect(receiver.rejected().isEmpty, "\(receiver.rejected())")
        let names = all.map(\.name).sorted()
        #expect(names == [
            "account-disabled", "account-enabled", "account-purged", "credential-change", "credential-change", "credential-change", "session-revoked",
            "session-revoked", "verification",
        ], "\(names)")
        let verification = try #require(sets.first { $0.name == "verification" })
        #expect(verification.event.payload["state"] as? String == "first" && verification.subject["id"] as? String == stream)
        for set in all where set.name != "verification" {
            #expect(set.subject["format"] as? String == "iss_sub" && set.subject["sub"] as? String == userID && set.subject["iss"] as? String == Self.issuer)
            #expect(set.claims["aud"] as? String == audience && (set.claims["txn"] as? String)?.hasPrefix("evt_") == true)
        }
        let changes = all.filter { $0.name == "credential-change" }.map { $0.event.payload["change_type"] as? String ?? "" }.sorted()
        #expect(changes == ["create", "create", "delete"], "\(changes)")
        // The passkey's deletion is one cause of two events, with one txn.
        let deletion = try #require(all.first { $0.name == "credential-change" && $0.event.payload["change_type"] as? String == "delete" })
        #expect(all.contains { $0.name == "session-revoked" && $0.claims["txn"] as? String == deletion.claims["txn"] as? String })
        #expect(all.allSatisfy { ($0.event.payload["reason_admin"] as? [String: String])?["en"] != nil || $0.name.hasPrefix("account") || $0.name == "verification" })
    }

    @Test func polledEventsWaitUntilAcknowledgedAndOnlyTheirKeySeesThem() async throws {
        let admin = try await AdminAPIFixture.start(configuration: Self.configuration, process: true)
        defer { admin.stop() }
        let receiverKey = try await admin.key("ssf:write", name: "poller").key
        let otherKey = try await admin.key("ssf:write", name: "someone else").key
        let readerKey = try await admin.key("users:read").key
        let jwks = admin.server.baseURL.absoluteString + "/oauth/jwks"

        // Without a delivery, a stream is polled, at the transmitter's URL.
        let created = try await Self.call(admin, "POST", "/ssf/streams", key: receiverKey, json: [
            "events_requested": [Self.caep + "session-revoked"], "subject_format": "email",
        ])
        #expect(created.status == 201, "\(created.text)")
        let stream = try #require(created.json["stream_id"] as? String)
        let audience = try #require(created.json["aud"] as? String)
        let delivery = try #require(created.json["delivery"] as? [String: Any])
        #expect(delivery["method"] as? String == "urn:ietf:rfc:8936")
        let pollURL = try #require(delivery["endpoint_url"] as? String).replacingOccurrences(of: "http://localhost:8080", with: admin.server.baseURL.absoluteString)

        var ada = PasskeyUser(server: admin.server.baseURL)
        try await ada.signUp(SignupProfile(email: "ada@example.com"))
        let tokens = try await ada.signIn()
        try await ada.client.signOutEverywhere(accessToken: tokens.accessToken)

        let first = try await SSFReceiver.poll(endpoint: pollURL, token: receiverKey, jwksURI: jwks, issuer: Self.issuer, audience: audience)
        #expect(first.status == 200 && first.rejected.isEmpty, "\(first)")
        let revoked = try #require(first.sets.first)
        #expect(first.sets.count == 1 && revoked.name == "session-revoked")
        #expect(revoked.subject["format"] as? String == "email" && revoked.subject["email"] as? String == "ada@example.com")
        // Not acknowledged: it comes again; acknowledged: it is gone.
        let again = try await SSFReceiver.poll(endpoint: pollURL, token: receiverKey, jwksURI: jwks, issuer: Self.issuer, audience: audience)
        #expect(again.sets.map(\.jti) == [revoked.jti])
        let acknowledged = try await SSFReceiver.poll(
            endpoint: pollURL, token: receiverKey, jwksURI: jwks, issuer: Self.issuer, audience: audience, acknowledge: [revoked.jti]
        )
        #expect(acknowledged.status == 200 && acknowledged.sets.isEmpty, "\(acknowledged)")
        let after = try await SSFReceiver.poll(endpoint: pollURL, token: receiverKey, jwksURI: jwks, issuer: Self.issuer, audience: audience)
        #expect(after.status == 200 && after.sets.isEmpty, "\(after)")

        // Another receiver's key sees no such stream; a key without ssf:write, and no key, are refused.
        #expect(try await Self.call(admin, "GET", "/ssf/streams?stream_id=\(stream)", key: otherKey).status == 404)
        #expect(try await Self.call(admin, "POST", "/ssf/poll/\(stream)", key: otherKey, json: [:]).status == 404)
        #expect(try await Self.call(admin, "GET", "/ssf/streams", key: otherKey).text == "[]")
        #expect(try await Self.call(admin, "GET", "/ssf/streams", key: readerKey).status == 403)
        let anonymous = try await Self.call(admin, "GET", "/ssf/streams", key: nil)
        #expect(anonymous.status == 401 && anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)

        // Paused, nothing is handed out; the receiver's own list and status say so.
        let paused = try await Self.call(admin, "POST", "/ssf/status", key: receiverKey, json: ["stream_id": stream, "status": "paused", "reason": "maintenance"])
        #expect(paused.status == 200 && paused.json["status"] as? String == "paused")
        #expect(try await Self.call(admin, "GET", "/ssf/status?stream_id=\(stream)", key: receiverKey).json["reason"] as? String == "maintenance")
        let listed = try await Self.call(admin, "GET", "/ssf/streams", key: receiverKey)
        #expect((try? JSONSerialization.jsonObject(with: listed.body) as? [[String: Any]])?.count == 1)
        #expect(try await Self.call(admin, "DELETE", "/ssf/streams?stream_id=\(stream)", key: receiverKey).status == 204)
        #expect(try await Self.call(admin, "DELETE", "/ssf/streams?stream_id=\(stream)", key: receiverKey).status == 404)
    }

    @Test func badRequestsAreRefusedWithTheirReasonAndWriteNothing() async throws {
        let admin = try await AdminAPIFixture.start(configuration: Self.configuration, process: true)
        defer { admin.stop() }
        let key = try await admin.key("ssf:write").key
        let refusals: [(String, String, [String: Any]?, Int, String)] = [
            ("POST", "/ssf/streams", ["delivery": ["method": "urn:example:carrier-pigeon"]], 400, "delivery.method"),
            ("POST", "/ssf/streams", ["delivery": ["method": "urn:ietf:rfc:8935", "endpoint_url": "http://receiver.example.com/events"]], 400, "https"),
            ("POST", "/ssf/streams", ["delivery": "push"], 400, "delivery"),
            ("POST", "/ssf/streams", ["events_requested": "everything"], 400, "events_requested"),
            ("POST", "/ssf/streams", ["iss": "https://someone-else.example/"], 400, "iss"),
            ("POST", "/ssf/streams", ["subject_format": "phone_number"], 400, "subject_format"),
            ("PATCH", "/ssf/streams", ["description": "no stream named"], 400, "stream_id"),
            ("PATCH", "/ssf/streams", ["stream_id": "0123456789abcdef0123456789abcdef"], 404, "no stream"),
            ("POST", "/ssf/status", ["stream_id": "x", "status": "asleep"], 400, "status"),
            ("POST", "/ssf/verify", ["stream_id": "nope"], 404, "no stream"),
            ("POST", "/ssf/poll/nope", ["maxEvents": -1], 400, "maxEvents"),
            ("DELETE", "/ssf/streams", nil, 400, "stream_id"),
        ]
        for (method, path, json, status, words) in refusals {
            let reply = try await Self.call(admin, method, path, key: key, json: json)
            #expect(reply.status == status && reply.text.contains(words), "\(method) \(path) \(json ?? [:]) → \(reply.status) \(reply.text)")
            #expect(reply.json["error"] is String, "OAuth's envelope: \(reply.text)")
        }
        let notJSON = try await admin.http.send("POST", "/ssf/streams", body: Data("{not json".utf8), headers: ["Authorization": "Bearer " + key])
        #expect(notJSON.status == 400, "\(notJSON.text)")
        // Nothing was made by any of them.
        #expect(try await Self.call(admin, "GET", "/ssf/streams", key: key).text == "[]")
    }
}
