import Foundation
import LatchkeyClient
import Testing

/// The rules of codes and recovery, one at a time, against the server in process (its
/// clock is the test's) with mail through a real SMTP server.
@Suite("Verification and recovery rules", .serialized, .timeLimit(.minutes(10)))
struct RecoveryRulesTests {
    static let recoveryGrant = "urn:latchkey:params:oauth:grant-type:recovery"

    /// A server whose mail goes to `sink`, and Ada, signed up, with her verification mail.
    static func start(_ sink: SMTPSink, yaml: String = "") async throws -> (RouterServer, PasskeyUser, TokenResponse, SMTPSink.Message) {
        let server = try await RouterServer.start(yaml: """
            email:
              smtp_url: smtp://127.0.0.1:\(sink.port)
              starttls: required
              from: Latchkey <no-reply@example.com>
              ca_file: \(sink.certificate ?? "")
            \(yaml)
            """)
        var ada = PasskeyUser(server)
        let tokens = try await ada.signUp(SignupProfile(email: "ada@example.com", name: "Ada"))
        let mail = try await sink.waitForMessage(to: "ada@example.com", subject: "verification code")
        return (server, ada, tokens, mail)
    }

    @Test func verificationCodesExpireAndTakeFiveGuesses() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let (server, _, tokens, mail) = try await Self.start(sink)
        defer { server.stop() }
        let http = RawHTTP(server)
        let bearer = ["Authorization": "Bearer \(tokens.accessToken)"]
        let first = try #require(mail.code())

        server.clock.advance(by: 16 * 60)
        let expired = try await http.json("POST", "/me/v1/email-verification/verify", ["code": first], headers: bearer)
        #expect(expired.status == 400 && expired.json["reason"] as? String == "expired_code", "\(expired.text)")

        // A new code replaces the old one.
        let count = sink.messages().count
        #expect(try await http.send("POST", "/me/v1/email-verification", headers: bearer).status == 202)
        let second = try #require(try await sink.waitForMessage(to: "ada@example.com", subject: "verification code", after: count).code())
        let old = try await http.json("POST", "/me/v1/email-verification/verify", ["code": first], headers: bearer)
        #expect(old.json["reason"] as? String == "invalid_code", "the old code no longer works: \(old.text)")
        for guess in 1...4 {
            let wrong = try await http.json("POST", "/me/v1/email-verification/verify", ["code": String(repeating: String(guess), count: 6)], headers: bearer)
            #expect(wrong.json["reason"] as? String == (String(repeating: String(guess), count: 6) == second ? nil : "invalid_code"))
        }
        // Five guesses counted (the old code's included): the right code is too late now.
        let late = try await http.json("POST", "/me/v1/email-verification/verify", ["code": second], headers: bearer)
        #expect(late.status == 400 && late.json["reason"] as? String == "too_many_attempts", "\(late.text)")
        let userInfo = try await PasskeyUser(server).client.userInfo(accessToken: tokens.accessToken)
        #expect(userInfo.emailVerified == false)

        // Bad bodies get field errors, never a 500.
        for body in [[:], ["code": ""], ["code": 123456] as [String: Any]] {
            let reply = try await http.json("POST", "/me/v1/email-verification/verify", body, headers: bearer)
            #expect(reply.status == 400, "\(body): \(reply.text)")
        }
        #expect(try await http.send("POST", "/me/v1/email-verification/verify", body: Data("{".utf8), headers: bearer).status == 400)
        #expect(try await http.json("POST", "/me/v1/email-verification/verify", ["code": second]).status == 401, "a token is required")
    }

    @Test func recoveryNeedsAVerifiedAddressAndRefusesBadRequests() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let (server, _, tokens, _) = try await Self.start(sink)
        defer { server.stop() }
        let http = RawHTTP(server)

        // Unverified: the same 202, and no mail.
        let count = sink.messages().count
        #expect(try await http.json("POST", "/recovery/start", ["client_id": "demo", "email": "ada@example.com"]).status == 202)
        try await Task.sleep(for: .seconds(1))
        #expect(sink.messages().count == count)
        let guessed = try await http.json("POST", "/oauth/token", ["grant_type": Self.recoveryGrant, "client_id": "demo", "email": "ada@example.com", "code": "123456"])
        #expect(guessed.status == 403 && guessed.json["error"] as? String == "invalid_grant" && guessed.json["reason"] as? String == "invalid_code", "\(guessed.text)")

        let cases: [([String: Any], Int, String)] = [
            (["grant_type": Self.recoveryGrant, "client_id": "demo", "email": "ada@example.com"], 400, "neither code"),
            (["grant_type": Self.recoveryGrant, "client_id": "demo", "email": "ada@example.com", "code": "1", "recovery_code": "2"], 400, "both codes"),
            (["grant_type": Self.recoveryGrant, "client_id": "demo", "code": "123456"], 400, "no email"),
            (["grant_type": Self.recoveryGrant, "client_id": "demo", "email": "not an address", "code": "123456"], 400, "a malformed email"),
            (["grant_type": Self.recoveryGrant, "client_id": "nobody", "email": "ada@example.com", "code": "123456"], 401, "an unknown client"),
            (["grant_type": Self.recoveryGrant, "client_id": "demo", "email": "nobody@example.com", "recovery_code": "AAAA-BBBB-CCCC-DDDD"], 403, "an unknown account"),
        ]
        for (body, status, what) in cases {
            let reply = try await http.json("POST", "/oauth/token", body)
            #expect(reply.status == status, "\(what): \(reply.text)")
        }
        for body in [["client_id": "demo"], ["client_id": "demo", "email": "x"], ["email": "ada@example.com"]] {
            let reply = try await http.json("POST", "/recovery/start", body)
            #expect((400..<500).contains(reply.status), "\(body): \(reply.text)")
        }

        // Creating recovery codes is a sensitive action: a stale sign-in is sent to step up.
        server.clock.advance(by: 16 * 60)
        let stale = try await http.send("POST", "/me/v1/recovery-codes", headers: ["Authorization": "Bearer \(tokens.accessToken)"])
        #expect(stale.status == 401 && stale.json["reason"] as? String == "insufficient_user_authentication", "\(stale.text)")
    }

    @Test func aRecoveryTokenLastsFifteenMinutes() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let (server, ada, tokens, _) = try await Self.start(sink, yaml: "tokens: { access_token_lifetime: 1h }")
        defer { server.stop() }
        let http = RawHTTP(server)
        let created = try await http.send("POST", "/me/v1/recovery-codes", headers: ["Authorization": "Bearer \(tokens.accessToken)"])
        let codes = try #require(created.json["recovery_codes"] as? [String])
        let recovered = try await http.json("POST", "/oauth/token", ["grant_type": Self.recoveryGrant, "client_id": "demo", "email": "ada@example.com", "recovery_code": codes[0]])
        #expect(recovered.json["expires_in"] as? Int == 900, "\(recovered.text)")
        let token = try #require(recovered.json["access_token"] as? String)
        server.clock.advance(by: 15 * 60 + 1)
        _ = await expectAPIError(status: 401) { try await ada.client.startEnrollment(accessToken: token) }
    }

    @Test func changingTheEmailProvesTheNewAddressFirst() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let (server, ada, tokens, mail) = try await Self.start(sink)
        defer { server.stop() }
        let http = RawHTTP(server)
        let bearer = ["Authorization": "Bearer \(tokens.accessToken)"]
        let verified = try await http.json("POST", "/me/v1/email-verification/verify", ["code": try #require(mail.code())], headers: bearer)
        #expect(verified.json["email_verified"] as? Bool == true, "\(verified.text)")
        var bob = PasskeyUser(server)
        try await bob.signUp(SignupProfile(email: "bob@example.com"))

        for (body, reason) in [(["email": "not an address"], nil), (["email": "ada@example.com"], nil), (["email": "bob@example.com"], "user_exists")] as [([String: Any], String?)] {
            let refused = try await http.json("PATCH", "/me/v1/profile", body, headers: bearer)
            #expect(refused.status == 400 && (reason == nil || refused.json["reason"] as? String == reason), "\(body): \(refused.text)")
        }
        // A change is whole or nothing: a refused address keeps the old name, and a refused
        // name sends no code.
        let mixed = try await http.json("PATCH", "/me/v1/profile", ["name": "Ada Renamed", "email": "not an address"], headers: bearer)
        #expect(mixed.status == 400, "\(mixed.text)")
        #expect(try await ada.client.userInfo(accessToken: tokens.accessToken).name == "Ada", "the name waits for the whole change")
        let badName = try await http.json("PATCH", "/me/v1/profile", ["name": String(repeating: "a", count: 101), "email": "ada.other@example.com"], headers: bearer)
        #expect(badName.status == 400 && (badName.json["validation_errors"] as? [[String: Any]])?.first?["field"] as? String == "name", "\(badName.text)")
        // The accepted change below is mailed after this one would have been: had this one
        // sent a code, it would be there first.
        let count = sink.messages().count
        let pending = try await http.json("PATCH", "/me/v1/profile", ["email": "Ada.New@Example.com"], headers: bearer)
        #expect(pending.status == 202 && pending.json["pending_email"] as? String == "ada.new@example.com", "\(pending.text)")
        let code = try #require(try await sink.waitForMessage(to: "ada.new@example.com", subject: "verification code", after: count).code())
        #expect(!sink.messages().contains { $0.recipients.contains("ada.other@example.com") }, "no code for a change that was refused")
        // Until the code comes back, the old address is the account's.
        #expect(try await ada.client.userInfo(accessToken: tokens.accessToken).email == "ada@example.com")
        let changed = try await http.json("POST", "/me/v1/email-verification/verify", ["code": code], headers: bearer)
        #expect(changed.status == 200 && changed.json["email"] as? String == "ada.new@example.com" && changed.json["email_verified"] as? Bool == true, "\(changed.text)")
        #expect(changed.json["signals"] is [String: Any], "the signals an app passes to signalCurrentUserDetails")
        _ = try await sink.waitForMessage(to: "ada@example.com", subject: "email address of your")

        // A stale sign-in must step up first.
        server.clock.advance(by: 16 * 60)
        let stale = try await http.json("PATCH", "/me/v1/profile", ["email": "ada3@example.com"], headers: bearer)
        #expect(stale.status == 401 && stale.json["reason"] as? String == "insufficient_user_authentication", "\(stale.text)")
    }

    /// The hosted pages' recovery session lives a quarter of an hour, and so does its cookie.
    @Test func aHostedRecoveryCookieLivesAsLongAsItsSession() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let (server, _, tokens, _) = try await Self.start(sink)
        defer { server.stop() }
        let http = RawHTTP(server)
        let created = try await http.send("POST", "/me/v1/recovery-codes", headers: ["Authorization": "Bearer \(tokens.accessToken)"])
        let codes = try #require(created.json["recovery_codes"] as? [String])
        let browser = BrowserAgent(server)
        _ = try await browser.get("/login")
        let used = try await browser.call("POST", "/ui/recovery", ["email": "ada@example.com", "recovery_code": codes[0]])
        #expect(used.status == 200, "\(used.text)")
        let cookie = used.header("Set-Cookie") ?? ""
        #expect(cookie.contains("Max-Age=900;") || cookie.hasSuffix("Max-Age=900"), "\(cookie)")
    }
}
