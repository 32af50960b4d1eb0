import Foundation
import LatchkeyClient
import Testing

/// Getting back in, end to end: the real `latchkey serve` process sends its mail through a
/// real SMTP server (aiosmtpd, STARTTLS and AUTH on), and a person verifies their address,
/// loses every passkey, recovers by a saved code and by an emailed one, enrolls a new
/// passkey and signs in with it.
@Suite("Recovery journey", .serialized, .timeLimit(.minutes(10)))
struct RecoveryJourneyTests {
    static func configuration(_ sink: SMTPSink, password inURL: Bool = false) -> String {
        """
        email:
          smtp_url: smtp://mailer\(inURL ? ":s3cret" : "")@127.0.0.1:\(sink.port)
          starttls: required
          from: Latchkey <no-reply@example.com>
          ca_file: \(sink.certificate ?? "")
        """
    }

    @Test func verifyLoseEverythingRecoverEnrollAndSignIn() async throws {
        let sink = try await SMTPSink.start(["--tls", "--user", "mailer", "--password", "s3cret"])
        defer { sink.stop() }
        let directory = try TemporaryDirectory()
        // The password comes from the environment, not the file.
        let server = try await ServerProcess.start(configuration: Self.configuration(sink), in: directory, environment: ["LATCHKEY_SMTP_PASSWORD": "s3cret"])
        defer { server.stop() }
        let http = RawHTTP(server)

        // Sign-up sends the verification code, over TLS, as the configured user.
        var ada = PasskeyUser(server)
        let signedUp = try await ada.signUp(SignupProfile(email: "ada@example.com", name: "Ada Lovelace"))
        #expect(claims(of: try #require(signedUp.idToken))["email_verified"] as? Bool == false)
        let verification = try await sink.waitForMessage(to: "ada@example.com", subject: "verification code")
        #expect(verification.tls && verification.authUser == "mailer")
        let code = try #require(verification.code())
        let bearer = ["Authorization": "Bearer \(signedUp.accessToken)"]

        let wrong = try await http.json("POST", "/me/v1/email-verification/verify", ["code": code == "000000" ? "111111" : "000000"], headers: bearer)
        #expect(wrong.status == 400 && wrong.json["reason"] as? String == "invalid_code", "\(wrong.text)")
        let verified = try await http.json("POST", "/me/v1/email-verification/verify", ["code": code], headers: bearer)
        #expect(verified.status == 200, "\(verified.text)")
        #expect(verified.json["email"] as? String == "ada@example.com" && verified.json["email_verified"] as? Bool == true)
        let reused = try await http.json("POST", "/me/v1/email-verification/verify", ["code": code], headers: bearer)
        #expect(reused.status == 400 && reused.json["reason"] as? String == "invalid_code", "a code works once")
        let signedIn = try await ada.signIn()
        #expect(claims(of: try #require(signedIn.idToken))["email_verified"] as? Bool == true, "the ID token tells the truth")
        #expect(try await ada.client.userInfo(accessToken: signedIn.accessToken).emailVerified == true)

        // Saved recovery codes: ten, shown once; their count is readable.
        let fresh = ["Authorization": "Bearer \(signedIn.accessToken)"]
        let created = try await http.send("POST", "/me/v1/recovery-codes", headers: fresh)
        #expect(created.status == 201, "\(created.text)")
        let codes = try #require(created.json["recovery_codes"] as? [String])
        #expect(codes.count == 10 && Set(codes).count == 10 && codes.allSatisfy { $0.count == 19 })
        let status = try await http.send("GET", "/me/v1/recovery-codes", headers: fresh)
        #expect(status.json["remaining"] as? Int == 10 && status.json["created_at"] is String, "\(status.text)")
        let oldPasskey = try #require(try await ada.client.authenticationMethods(accessToken: signedIn.accessToken).first)

        // Every passkey lost: a new device, nothing on it.
        var device = PasskeyUser(server)
        let recovery = try await http.json("POST", "/oauth/token", [
            "grant_type": "urn:latchkey:params:oauth:grant-type:recovery", "client_id": "demo", "email": "ada@example.com",
            "recovery_code": codes[3].lowercased(),
        ])
        #expect(recovery.status == 200, "\(recovery.text)")
        let token = try #require(recovery.json["access_token"] as? String)
        #expect(recovery.json["refresh_token"] == nil && recovery.json["id_token"] == nil)
        #expect((recovery.json["expires_in"] as? Int ?? 0) <= 900 && recovery.json["scope"] as? String == "create:me:authentication_methods")
        #expect(claims(of: token)["amr"] as? [String] == ["rec"] && claims(of: token)["aud"] as? String == "http://localhost:8080/me/")
        _ = try await sink.waitForMessage(to: "ada@example.com", subject: "was recovered")

        let again = try await http.json("POST", "/oauth/token", [
            "grant_type": "urn:latchkey:params:oauth:grant-type:recovery", "client_id": "demo", "email": "ada@example.com", "recovery_code": codes[3],
        ])
        #expect(again.status == 403 && again.json["reason"] as? String == "invalid_code", "a saved code works once (Auth0 answers invalid_grant with 403): \(again.text)")

        // The recovery token may enroll a passkey, and nothing else.
        let restricted = ["Authorization": "Bearer \(token)"]
        #expect(try await http.send("GET", "/me/v1/authentication-methods", headers: restricted).status == 403)
        #expect(try await http.send("POST", "/me/v1/recovery-codes", headers: restricted).status == 403)
        #expect(try await http.send("DELETE", "/me/v1/sessions", headers: restricted).status == 403)
        try await device.enroll(accessToken: token)
        _ = try await sink.waitForMessage(to: "ada@example.com", subject: "passkey was added")
        let back = try await device.signIn()
        #expect(claims(of: back.accessToken)["sub"] as? String == claims(of: signedIn.accessToken)["sub"] as? String)
        let remaining = try await http.send("GET", "/me/v1/recovery-codes", headers: ["Authorization": "Bearer \(back.accessToken)"])
        #expect(remaining.json["remaining"] as? Int == 9)

        // The lost passkey is removed; its removal arrives as a mail.
        try await device.client.deleteAuthenticationMethod(id: oldPasskey.id, accessToken: back.accessToken)
        _ = try await sink.waitForMessage(to: "ada@example.com", subject: "passkey was removed")

        // Recovery by an emailed code: the same 202 for every address, a mail only to a verified one.
        let before = sink.messages().count
        for address in ["ada@example.com", "nobody@example.com"] {
            let started = try await http.json("POST", "/recovery/start", ["client_id": "demo", "email": address])
            #expect(started.status == 202, "\(started.text)")
        }
        let emailed = try await sink.waitForMessage(to: "ada@example.com", subject: "recovery code", after: before)
        let emailedCode = try #require(emailed.code())
        let byEmail = try await http.json("POST", "/oauth/token", [
            "grant_type": "urn:latchkey:params:oauth:grant-type:recovery", "client_id": "demo", "email": "ada@example.com", "code": emailedCode,
        ])
        #expect(byEmail.status == 200 && claims(of: byEmail.json["access_token"] as? String ?? "")["amr"] as? [String] == ["rec"], "\(byEmail.text)")
        try await Task.sleep(for: .seconds(1))
        #expect(!sink.messages().contains { $0.recipients.contains("nobody@example.com") }, "nothing goes to an unknown address")
        // No message body reached the log: it may hold codes.
        #expect(!server.output.text.contains(code) && !server.output.text.contains(emailedCode) && !server.output.text.contains("s3cret"))
        #expect(server.output.text.contains("mail sent"))
    }

    /// The mail server is down: sign-ups still succeed, the outbox delivers once it is back,
    /// and nothing is sent twice.
    @Test func theOutboxOutlivesTheMailServer() async throws {
        let sink = try await SMTPSink.start(["--tls", "--user", "mailer", "--password", "s3cret"])
        let port = sink.port, maildir = sink.maildir
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: Self.configuration(sink, password: true), in: directory)
        defer { server.stop() }
        sink.stop()

        var bob = PasskeyUser(server)
        try await bob.signUp(SignupProfile(email: "bob@example.com"))
        try await server.waitForOutput("will retry", timeout: 20)
        #expect(server.output.text.contains("will retry"), "\(server.output.text.suffix(2000))")

        // Back on the same port: the retry (30 s after the failure) delivers it.
        let restarted = try await SMTPSink.start(["--tls", "--user", "mailer", "--password", "s3cret"], port: port, maildir: maildir)
        defer { restarted.stop() }
        _ = try await restarted.waitForMessage(to: "bob@example.com", subject: "verification code", timeout: 60)
        try await Task.sleep(for: .seconds(2))
        #expect(restarted.messages().filter { $0.recipients.contains("bob@example.com") }.count == 1, "sent once")
    }

    /// Without `email:` (the README's first command), messages go to the log, clearly
    /// marked, so a newcomer can still verify on localhost.
    @Test func withoutAMailServerTheCodeIsInTheLog() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: "", in: directory)
        defer { server.stop() }
        #expect(server.output.text.contains("development mailer"))
        var ada = PasskeyUser(server)
        let tokens = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        try await server.waitForOutput("DEVELOPMENT MAILER", timeout: 20)
        let log = server.output.text
        let section = try #require(log.range(of: "DEVELOPMENT MAILER").map { String(log[$0.lowerBound...].prefix(800)) })
        #expect(section.contains("To: ada@example.com") && section.contains("was NOT sent"), "\(section)")
        let code = try #require(section.split(whereSeparator: { !$0.isNumber }).first { $0.count == 8 }.map(String.init))
        let verified = try await RawHTTP(server).json(
            "POST", "/me/v1/email-verification/verify", ["code": code], headers: ["Authorization": "Bearer \(tokens.accessToken)"]
        )
        #expect(verified.status == 200 && verified.json["email_verified"] as? Bool == true, "\(verified.text)")
    }
}
