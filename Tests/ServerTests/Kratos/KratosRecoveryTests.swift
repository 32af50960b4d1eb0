import Foundation
import Testing

/// Kratos's recovery and verification flows (`code` method) as a native app drives them:
/// the states, nodes and messages Kratos gives, and a recovery that ends in a session and
/// a settings flow where the app adds a passkey, with mail through a real SMTP server.
@Suite("Kratos recovery and verification", .serialized, .timeLimit(.minutes(10)))
struct KratosRecoveryTests {
    static func ui(_ flow: [String: Any]) -> [String: Any] { flow["ui"] as? [String: Any] ?? [:] }
    static func nodeNames(_ flow: [String: Any]) -> [String] {
        (ui(flow)["nodes"] as? [[String: Any]] ?? []).map { (($0["attributes"] as? [String: Any])?["name"] as? String) ?? ($0["type"] as? String ?? "") }
    }

    /// The Kratos samples' configuration (their app origins), with mail through `sink`.
    static func start(_ sink: SMTPSink) async throws -> RouterServer {
        try await RouterServer.start(yaml: KratosFaceTests.configuration + """

            email: { smtp_url: 'smtp://127.0.0.1:\(sink.port)', from: 'Latchkey <no-reply@example.com>', ca_file: '\(sink.certificate ?? "")' }
            """)
    }

    @Test func verifyThenLoseThePasskeyRecoverAndAddOneInSettings() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let server = try await Self.start(sink)
        defer { server.stop() }
        var app = KratosSampleApp(server, platform: .iOS)
        let signedUp = try await app.signUp(email: "jane@example.com")
        #expect(signedUp.status == 200, "\(signedUp.text)")
        let firstMail = try await sink.waitForMessage(to: "jane@example.com", subject: "verification code")
        _ = firstMail
        // Another code for the same purpose waits out the first one's cool-down.
        server.clock.advance(by: 31)

        // Verification: choose_method → sent_email → passed_challenge.
        let verification = try await app.initialize("/self-service/verification/api").json
        #expect(verification["state"] as? String == "choose_method" && Self.nodeNames(verification) == ["email", "method"], "\(verification)")
        let count = sink.messages().count
        let sent = try await app.submit(verification, [("method", "code"), ("email", "jane@example.com")])
        #expect(sent.status == 200 && sent.json["state"] as? String == "sent_email" && KratosSampleApp.messageIDs(sent.json) == [1_080_003], "\(sent.text)")
        #expect(Self.nodeNames(sent.json) == ["method", "code", "method", "email"])
        let code = try #require(try await sink.waitForMessage(to: "jane@example.com", subject: "verification code", after: count).code())
        let wrong = try await app.submit(sent.json, [("method", "code"), ("code", code == "000000" ? "111111" : "000000")])
        #expect(wrong.status == 200 && KratosSampleApp.messageIDs(wrong.json) == [4_070_006] && wrong.json["state"] as? String == "sent_email", "\(wrong.text)")
        let passed = try await app.submit(sent.json, [("method", "code"), ("code", code)])
        #expect(passed.json["state"] as? String == "passed_challenge" && KratosSampleApp.messageIDs(passed.json) == [1_080_002], "\(passed.text)")
        let login = try await app.signIn()
        let token = try #require(login.json["session_token"] as? String)
        let whoami = try await app.http.send("GET", "/sessions/whoami", contentType: nil, headers: ["X-Session-Token": token])
        let addresses = ((whoami.json["identity"] as? [String: Any])?["verifiable_addresses"] as? [[String: Any]]) ?? []
        #expect(addresses.first?["verified"] as? Bool == true && addresses.first?["status"] as? String == "completed" && addresses.first?["verified_at"] is String)

        // Recovery is refused to a live session.
        let refused = try await app.initialize("/self-service/recovery/api", token: token)
        #expect(refused.status == 400 && KratosFaceTests.errorID(refused) == "session_already_available", "\(refused.text)")

        // Every passkey lost: a new phone, the same person.
        var phone = KratosSampleApp(server, platform: .iOS)
        let recovery = try await phone.initialize("/self-service/recovery/api").json
        #expect(recovery["state"] as? String == "choose_method" && Self.nodeNames(recovery) == ["csrf_token", "email", "method"], "\(recovery)")
        let before = sink.messages().count
        let emailed = try await phone.submit(recovery, [("method", "code"), ("email", "jane@example.com")])
        #expect(emailed.status == 200 && emailed.json["state"] as? String == "sent_email" && KratosSampleApp.messageIDs(emailed.json) == [1_060_003], "\(emailed.text)")
        #expect(Self.nodeNames(emailed.json) == ["csrf_token", "code", "method", "method", "email"])
        let recoveryCode = try #require(try await sink.waitForMessage(to: "jane@example.com", subject: "recovery code", after: before).code())
        let miss = try await phone.submit(emailed.json, [("method", "code"), ("code", recoveryCode == "000000" ? "111111" : "000000")])
        #expect(miss.status == 200 && KratosSampleApp.messageIDs(miss.json) == [4_060_006], "\(miss.text)")
        let recovered = try await phone.submit(emailed.json, [("method", "code"), ("code", recoveryCode)])
        #expect(recovered.status == 200 && recovered.json["state"] as? String == "passed_challenge", "\(recovered.text)")
        let continueWith = try #require(recovered.json["continue_with"] as? [[String: Any]])
        #expect(continueWith.map { $0["action"] as? String } == ["set_ory_session_token", "show_settings_ui"])
        let recoveryToken = try #require(continueWith.first?["ory_session_token"] as? String)
        let settingsID = try #require((continueWith.last?["flow"] as? [String: Any])?["id"] as? String)
        _ = try await sink.waitForMessage(to: "jane@example.com", subject: "was recovered")
        // The session says what it is, as Kratos's does; and the recovery by email ended the
        // session the lost phone held.
        let recoveredWhoami = try await phone.http.send("GET", "/sessions/whoami", contentType: nil, headers: ["X-Session-Token": recoveryToken])
        let methods = recoveredWhoami.json["authentication_methods"] as? [[String: Any]]
        #expect(methods?.map { $0["method"] as? String } == ["code_recovery"], "\(recoveredWhoami.text)")
        #expect(try await app.http.send("GET", "/sessions/whoami", contentType: nil, headers: ["X-Session-Token": token]).status == 401)
        for (method, path) in [("GET", "/sessions"), ("DELETE", "/sessions")] {
            let managed = try await phone.http.send(method, path, contentType: nil, headers: ["X-Session-Token": recoveryToken])
            #expect(managed.status == 403, "a recovery's session manages no sessions: \(method) \(path) \(managed.status)")
        }

        // The settings flow the recovery named adds the new passkey.
        let settings = try await phone.initialize("/self-service/settings/flows?id=\(settingsID)", token: recoveryToken)
        #expect(settings.status == 200, "\(settings.text)")
        // It may add a passkey, not remove the lost one.
        let lost = try #require(KratosSampleApp.nodes(settings.json, named: "passkey_remove").first.flatMap { ($0["attributes"] as? [String: Any])?["value"] as? String })
        let removal = try await phone.submit(settings.json, [("method", "passkey"), ("passkey_remove", lost)], headers: ["X-Session-Token": recoveryToken])
        #expect(removal.status == 400, "\(removal.text)")
        // Nor change the address: a recovery's session may add a passkey and nothing else.
        let mailsBefore = sink.messages().count
        let moved = try await phone.submit(settings.json, [("method", "profile"), ("traits", ["email": "thief@example.com"])], headers: ["X-Session-Token": recoveryToken])
        #expect(moved.status == 400 && moved.json["continue_with"] == nil, "\(moved.text)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(sink.messages().count == mailsBefore && !sink.messages().contains { $0.recipients.contains("thief@example.com") })
        let added = try phone.create(try KratosSampleApp.creationOptions(settings.json, wrapped: false), name: "jane@example.com")
        let addReply = try await phone.submit(settings.json, [("method", "passkey"), ("passkey_settings_register", try phone.credentialString(added))], headers: ["X-Session-Token": recoveryToken])
        #expect(addReply.status == 200, "\(addReply.text)")
        let back = try await phone.signIn()
        #expect(back.status == 200 && back.json["session_token"] is String, "\(back.text)")
        _ = try await sink.waitForMessage(to: "jane@example.com", subject: "passkey was added")

        // A new address in settings: proved through the verification flow the answer names.
        let session = try #require(back.json["session_token"] as? String)
        let profile = try await phone.initialize("/self-service/settings/api", token: session).json
        let count2 = sink.messages().count
        let changed = try await phone.submit(profile, [("method", "profile"), ("traits", ["email": "jane.doe@example.com"])], headers: ["X-Session-Token": session])
        let next = try #require((changed.json["continue_with"] as? [[String: Any]])?.first, "\(changed.text)")
        #expect(changed.status == 200 && next["action"] as? String == "show_verification_ui", "\(changed.text)")
        let pendingFlow = try #require(next["flow"] as? [String: Any])
        #expect(pendingFlow["verifiable_address"] as? String == "jane.doe@example.com")
        let changeCode = try #require(try await sink.waitForMessage(to: "jane.doe@example.com", subject: "verification code", after: count2).code())
        let verification2 = try await phone.initialize("/self-service/verification/flows?id=\(pendingFlow["id"] as? String ?? "")")
        #expect(verification2.json["state"] as? String == "sent_email", "\(verification2.text)")
        let done = try await phone.submit(verification2.json, [("method", "code"), ("code", changeCode)])
        #expect(done.json["state"] as? String == "passed_challenge", "\(done.text)")
        let whoami2 = try await phone.http.send("GET", "/sessions/whoami", contentType: nil, headers: ["X-Session-Token": session])
        let identity = whoami2.json["identity"] as? [String: Any]
        #expect((identity?["traits"] as? [String: Any])?["email"] as? String == "jane.doe@example.com", "\(whoami2.text)")
        #expect(((identity?["verifiable_addresses"] as? [[String: Any]])?.first?["verified"] as? Bool) == true)
    }

    @Test func unknownAddressesBadSubmissionsAndTooManyGuesses() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let server = try await Self.start(sink)
        defer { server.stop() }
        let app = KratosSampleApp(server, platform: .android)

        // An unknown address: the same answer, and no mail.
        let flow = try await app.initialize("/self-service/recovery/api").json
        let unknown = try await app.submit(flow, [("method", "code"), ("email", "nobody@example.com")])
        #expect(unknown.status == 200 && KratosSampleApp.messageIDs(unknown.json) == [1_060_003])
        // Six guesses: the flow is replaced, and the error names the new one, exactly as for an
        // account's address, so the sixth guess does not tell whether one exists.
        var last: RawHTTP.Reply?
        for guess in 0..<6 {
            last = try await app.submit(unknown.json, [("method", "code"), ("code", String(repeating: String(guess), count: 8))])
        }
        let replaced = try #require(last)
        let details = ((replaced.json["error"] as? [String: Any])?["details"] as? [String: Any])?["continue_with"] as? [[String: Any]]
        #expect(replaced.status == 400 && details?.first?["action"] as? String == "show_recovery_ui", "\(replaced.text)")
        try await Task.sleep(for: .milliseconds(500))
        #expect(sink.messages().isEmpty)

        // Bad submissions: no method, no address, a malformed address; never a 5xx.
        let fresh = try await app.initialize("/self-service/recovery/api").json
        let noMethod = try await app.submit(fresh, [("email", "a@example.com")])
        #expect(noMethod.status == 400 && KratosSampleApp.messageIDs(noMethod.json) == [4_010_005], "\(noMethod.text)")
        let noEmail = try await app.submit(fresh, [("method", "code")])
        #expect(noEmail.status == 400, "\(noEmail.text)")
        let malformed = try await app.submit(fresh, [("method", "code"), ("email", "not an address")])
        #expect(malformed.status == 400, "\(malformed.text)")
        let browserish = try await app.submit(fresh, [("method", "code"), ("email", "a@example.com")], headers: ["Origin": "https://evil.example"])
        #expect(browserish.status == 400, "an API flow refuses a browser's request: \(browserish.text)")
        let missing = try await app.http.send("POST", "/self-service/recovery?flow=00000000-0000-4000-8000-000000000000", body: Data(#"{"method":"code"}"#.utf8))
        #expect(missing.status == 404, "\(missing.text)")
        let verificationFlow = try await app.initialize("/self-service/verification/flows?id=\(KratosSampleApp.flowID(fresh))")
        #expect(verificationFlow.status == 404, "a recovery flow is not a verification flow")
    }

    @Test func tooManyGuessesReplaceTheFlow() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let server = try await Self.start(sink)
        defer { server.stop() }
        var app = KratosSampleApp(server, platform: .iOS)
        _ = try await app.signUp(email: "max@example.com")
        _ = try await sink.waitForMessage(to: "max@example.com", subject: "verification code")
        server.clock.advance(by: 31)
        let flow = try await app.initialize("/self-service/verification/api").json
        let sent = try await app.submit(flow, [("method", "code"), ("email", "max@example.com")])
        let code = try #require(try await sink.waitForMessage(to: "max@example.com", subject: "verification code", after: 1).code())
        var reply: RawHTTP.Reply?
        for guess in 0..<5 {
            let wrong = String(repeating: String(guess), count: 6)
            reply = try await app.submit(sent.json, [("method", "code"), ("code", wrong == code ? "999999" : wrong)])
        }
        #expect(reply?.status == 200)
        let late = try await app.submit(sent.json, [("method", "code"), ("code", code)])
        #expect(late.status == 410 && KratosFaceTests.errorID(late) == "self_service_flow_replaced" && late.json["use_flow_id"] is String, "\(late.text)")

        // Verified through the replacement, then six wrong recovery guesses: a 400 naming a new flow.
        let replacement = try await app.initialize("/self-service/verification/flows?id=\(late.json["use_flow_id"] as? String ?? "")").json
        var count = sink.messages().count
        server.clock.advance(by: 61)
        let resent = try await app.submit(replacement, [("method", "code"), ("email", "max@example.com")])
        let fresh = try #require(try await sink.waitForMessage(to: "max@example.com", subject: "verification code", after: count).code())
        #expect(try await app.submit(resent.json, [("method", "code"), ("code", fresh)]).json["state"] as? String == "passed_challenge")
        let recovery = try await app.initialize("/self-service/recovery/api").json
        count = sink.messages().count
        let sentRecovery = try await app.submit(recovery, [("method", "code"), ("email", "max@example.com")])
        let recoveryCode = try #require(try await sink.waitForMessage(to: "max@example.com", subject: "recovery code", after: count).code())
        for guess in 0..<5 {
            let wrong = String(repeating: String(guess), count: 6)
            _ = try await app.submit(sentRecovery.json, [("method", "code"), ("code", wrong == recoveryCode ? "999999" : wrong)])
        }
        let tooMany = try await app.submit(sentRecovery.json, [("method", "code"), ("code", recoveryCode)])
        let details = ((tooMany.json["error"] as? [String: Any])?["details"] as? [String: Any])?["continue_with"] as? [[String: Any]]
        #expect(tooMany.status == 400 && details?.first?["action"] as? String == "show_recovery_ui", "\(tooMany.text)")
    }

    /// Kratos answers a wrong code with the flow and `200`: it still counts toward the
    /// address's failed-finish limit, as a wrong code does in every face.
    @Test func wrongCodesCountAsFailures() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let server = try await RouterServer.start(yaml: KratosFaceTests.configuration + """

            email: { smtp_url: 'smtp://127.0.0.1:\(sink.port)', from: 'Latchkey <no-reply@example.com>', ca_file: '\(sink.certificate ?? "")' }
            limits: { ceremony_failures_per_minute: 4 }
            """)
        defer { server.stop() }
        let app = KratosSampleApp(server, platform: .android)
        let flow = try await app.initialize("/self-service/recovery/api").json
        let sent = try await app.submit(flow, [("method", "code"), ("email", "someone@example.com")])
        var statuses: [Int] = []
        for guess in 0..<5 {
            statuses.append(try await app.submit(sent.json, [("method", "code"), ("code", String(repeating: String(guess), count: 8))]).status)
        }
        #expect(statuses == [200, 200, 200, 200, 429], "\(statuses)")
    }
}
