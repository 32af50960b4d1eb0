import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import LatchkeyClient
import Testing
import WebAuthn

/// Two real `latchkey serve` processes over one PostgreSQL database behave as one server:
/// a ceremony started on one finishes on the other, tokens from one verify at the other,
/// single-use things are used once across both, and a revocation on one holds on the other.
@Suite("Scale-out: two instances over one PostgreSQL database", .serialized, .enabled(if: PostgresFixture.runs), .timeLimit(.minutes(10)))
struct ScaleOutTests {
    static let configuration = """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        limits: { ceremony_starts_per_minute: 0, ceremony_finishes_per_minute: 0, ceremony_failures_per_minute: 0 }
        clients:
          - client_id: demo
            name: Demo app
            grant_types: [webauthn, refresh_token]
        """

    /// Starts two instances on `database` at the same moment.
    static func startPair(database: String, configuration: String = configuration) async throws -> (TemporaryDirectory, ServerProcess, ServerProcess) {
        let directory = try TemporaryDirectory()
        try configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let arguments = ["--config", directory.path("latchkey.yaml"), "--database", database]
        async let a = ServerProcess.start(arguments: arguments, workingDirectory: directory.url)
        async let b = ServerProcess.start(arguments: arguments, workingDirectory: directory.url)
        return (directory, try await a, try await b)
    }

    @Test func twoInstancesBehaveAsOne() async throws {
        let (_, a, b) = try await Self.startPair(database: try await PostgresFixture.freshDatabase())
        defer { a.stop(); b.stop() }

        // Started together on an empty database, both publish the same single key.
        let jwksA = try await Self.get(a.baseURL.appendingPathComponent(".well-known/jwks.json"))
        let jwksB = try await Self.get(b.baseURL.appendingPathComponent(".well-known/jwks.json"))
        #expect(jwksA == jwksB, "A: \(jwksA)\nB: \(jwksB)")
        #expect(jwksA.components(separatedBy: "\"kid\"").count == 2, "one signing key: \(jwksA)")

        // A sign-up started on A finishes on B.
        var ada = PasskeyUser(a)
        let onB = LatchkeyAPIClient(baseURL: b.baseURL, clientID: "demo")
        let (options, authSession) = try await ada.client.signupChallenge(profile: SignupProfile(email: "ada@example.com"))
        let (registration, credential) = try ada.authenticator.makeCredential(options, origin: ada.origin)
        ada.credentials.append(credential)
        let tokens = try await onB.finishSignup(authSession: authSession, response: registration, scope: PasskeyUser.allScopes, audience: ada.audience)

        // A token issued by B is accepted by A, and one issued by A by B.
        #expect(try await ada.client.userInfo(accessToken: tokens.accessToken).email == "ada@example.com")
        let byA = try await ada.signIn()
        #expect(try await onB.userInfo(accessToken: byA.accessToken).email == "ada@example.com")

        // 64 concurrent finishes of one auth_session, split across A and B: exactly one succeeds.
        let (loginOptions, loginSession) = try await ada.client.loginChallenge()
        let assertion = try ada.authenticator.getAssertion(loginOptions, origin: ada.origin, credential: &ada.credentials[0])
        let successes = await Self.successes(finishing: loginSession, with: assertion, times: 64, through: [ada.client, onB])
        #expect(successes == 1, "\(successes) of 64 concurrent finishes succeeded")

        // A refresh token rotated on A and replayed on B revokes the whole family.
        let login = try await ada.signIn()
        let refreshToken = try #require(login.refreshToken)
        let rotated = try await ada.client.refresh(refreshToken: refreshToken)
        let replay = await expectAPIError(status: 403) { try await onB.refresh(refreshToken: refreshToken) }
        #expect(replay?.code.rawValue == "invalid_grant")
        await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: try #require(rotated.refreshToken)) }

        // A passkey deleted through A no longer signs in through B.
        let fresh = try await ada.signIn()
        try await ada.enroll(accessToken: fresh.accessToken)
        let methods = try await ada.client.authenticationMethods(accessToken: fresh.accessToken)
        let firstID = try #require(methods.first { $0.id == "passkey|" + Base64URL.encode(ada.credentials[0].credentialID) }?.id)
        try await ada.client.deleteAuthenticationMethod(id: firstID, accessToken: fresh.accessToken)
        var throughB = PasskeyUser(b, credentials: ada.credentials)
        await expectAPIError(status: 403) { try await throughB.signIn(index: 0) }
        _ = try await throughB.signIn(index: 1)
    }

    /// A rate limit counts the requests of both instances: they share the counters.
    /// Two instances share the webhooks' outbox: each event is delivered once, by whichever
    /// instance claims it first (`FOR UPDATE SKIP LOCKED`).
    @Test func twoInstancesDeliverEachWebhookOnce() async throws {
        let secret = WebhookReceiver.secret(7)
        let receiver = try await WebhookReceiver.start(secret: secret)
        defer { receiver.stop() }
        let configuration = Self.configuration + """

            webhooks:
              endpoints: [{url: \(receiver.url), secret: \(secret), events: [user.]}]
              allow_private_networks: [127.0.0.1/32]
            """
        let (_, a, b) = try await Self.startPair(database: try await PostgresFixture.freshDatabase(), configuration: configuration)
        defer { a.stop(); b.stop() }
        var people: [PasskeyUser] = []
        for index in 0..<12 {
            var person = PasskeyUser(server: index.isMultiple(of: 2) ? a.baseURL : b.baseURL)
            try await person.signUp(SignupProfile(email: "person\(index)@example.com"))
            people.append(person)
        }
        for index in people.indices { try await people[index].signIn() }
        let received = try await receiver.waitFor(24, timeout: 60)
        try await Task.sleep(for: .seconds(2))
        let settled = receiver.deliveries()
        #expect(settled.count == 24 && Set(settled.map(\.id)).count == 24, "each event once: \(settled.count) deliveries, \(Set(settled.map(\.id)).count) distinct")
        #expect(received.filter { $0.type == "user.created" }.count == 12 && received.filter { $0.type == "user.signed_in" }.count == 12)
    }

    @Test func rateLimitsCountAcrossInstances() async throws {
        let limited = Self.configuration.replacingOccurrences(of: "ceremony_starts_per_minute: 0", with: "ceremony_starts_per_minute: 6")
        let (_, a, b) = try await Self.startPair(database: try await PostgresFixture.freshDatabase(), configuration: limited)
        defer { a.stop(); b.stop() }
        let clients = [a, b].map { LatchkeyAPIClient(baseURL: $0.baseURL, clientID: "demo") }
        for index in 0..<6 { _ = try await clients[index % 2].loginChallenge() }
        let refused = await expectAPIError(status: 429) { try await clients[0].loginChallenge() }
        #expect(refused?.code.rawValue == "too_many_requests", "\(String(describing: refused))")
        await expectAPIError(status: 429) { try await clients[1].loginChallenge() }
    }

    /// The failed-finish limit counts the failures of both instances, and a login's finish
    /// over it is refused inside the finish's one statement (the instance holds the passkey
    /// in its cache, so that statement is its first), with nothing written.
    @Test func failedFinishesCountAcrossInstances() async throws {
        let limited = Self.configuration.replacingOccurrences(of: "ceremony_failures_per_minute: 0", with: "ceremony_failures_per_minute: 3")
        let database = try await PostgresFixture.freshDatabase()
        let (_, a, b) = try await Self.startPair(database: database, configuration: limited)
        defer { a.stop(); b.stop() }
        var ada = PasskeyUser(a)
        _ = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        var throughB = PasskeyUser(b, credentials: ada.credentials)
        _ = try await throughB.signIn()
        let (options, authSession) = try await throughB.client.loginChallenge()
        let assertion = try throughB.authenticator.getAssertion(options, origin: throughB.origin, credential: &throughB.credentials[0])

        let clients = [a, b].map { LatchkeyAPIClient(baseURL: $0.baseURL, clientID: "demo") }
        for index in 0..<3 {
            let failed = await expectAPIError(status: 403) {
                try await clients[index % 2].finishLogin(authSession: "bm90LWEtc2Vzc2lvbg", response: assertion, scope: "openid")
            }
            #expect(failed?.code.rawValue == "invalid_grant")
        }
        let written = "SELECT (SELECT count(*) FROM audit_events) + (SELECT count(*) FROM refresh_token_families)"
        let before = try await PostgresFixture.integer(written, in: database)
        let refused = await expectAPIError(status: 429) {
            try await throughB.client.finishLogin(authSession: authSession, response: assertion, scope: "openid")
        }
        #expect(refused?.code.rawValue == "too_many_requests", "\(String(describing: refused))")
        #expect(try await PostgresFixture.integer(written, in: database) == before, "a refused finish writes nothing")
        await expectAPIError(status: 429) { try await clients[0].finishLogin(authSession: authSession, response: assertion, scope: "openid") }
    }

    /// Killing one instance with SIGKILL during sign-ups loses no account it acknowledged:
    /// every one signs in through the other instance.
    @Test func killedInstanceLosesNoAcknowledgedAccount() async throws {
        let (_, a, b) = try await Self.startPair(database: try await PostgresFixture.freshDatabase())
        defer { a.stop(); b.stop() }
        let acknowledged = Acknowledged()
        let workers = (0..<8).map { worker in
            Task {
                var index = 0
                while !acknowledged.isStopped {
                    var user = PasskeyUser(a)
                    let email = "worker\(worker)-\(index)@scale.example"
                    index += 1
                    guard (try? await user.signUp(SignupProfile(email: email))) != nil else { return }
                    acknowledged.signUp(email, user)
                }
            }
        }
        // The kill comes once A has acknowledged sign-ups twice over what the check below
        // needs, not after a fixed time, which a busy machine can spend on fewer.
        let deadline = Date().addingTimeInterval(60)
        while acknowledged.snapshot.0.count < 16, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        acknowledged.stop()
        kill(a.process.processIdentifier, SIGKILL)
        for worker in workers { await worker.value }
        let signUps = acknowledged.snapshot.0
        #expect(signUps.count >= 8, "the load produced acknowledged sign-ups: \(signUps.count)")
        for (email, user) in signUps {
            var throughB = PasskeyUser(b, credentials: user.credentials)
            do {
                try await throughB.signIn()
            } catch {
                Issue.record("\(email), acknowledged by A, does not sign in through B: \(error)")
            }
        }
    }

    /// PostgreSQL stopping gives 503 with Retry-After from both instances, never a 500 or a
    /// crash; when it is back, both serve again by themselves.
    @Test func databaseRestartGives503AndRecovers() async throws {
        try await PostgresFixture.withPrivateCluster(databaseRestartGives503AndRecovers)
    }

    private func databaseRestartGives503AndRecovers(on cluster: PostgresFixture.PrivateCluster) async throws {
        let (_, a, b) = try await Self.startPair(database: cluster.url + "?statement_timeout=2000&connect_timeout=6")
        defer { a.stop(); b.stop() }
        var ada = PasskeyUser(a)
        try await ada.signUp(SignupProfile(email: "ada@example.com"))

        try await cluster.stop()
        for server in [a, b] {
            // A challenge needs no database (the ceremony travels sealed); readiness and
            // the finish do.
            let (status, headers) = try await Self.request(server.baseURL.appendingPathComponent("ready"))
            #expect(status == 503, "\(server.baseURL)/ready: \(status)")
            #expect(headers["Retry-After"] != nil)
            // Once the instance knows the server is gone, each request gets its 503 at once
            // instead of waiting out the 6 s deadline (the bound leaves room for a loaded machine).
            for _ in 0..<3 {
                let started = ContinuousClock.now
                let (again, retry) = try await Self.request(server.baseURL.appendingPathComponent("ready"))
                let elapsed = ContinuousClock.now - started
                #expect(again == 503 && retry["Retry-After"] != nil)
                #expect(elapsed < .seconds(3), "\(server.baseURL)/ready took \(elapsed) during the outage")
            }
            var user = PasskeyUser(server, credentials: ada.credentials)
            let started = ContinuousClock.now
            await expectAPIError(status: 503) { try await user.signIn() }
            #expect(ContinuousClock.now - started < .seconds(3), "a sign-in's 503 well before the deadline")
            #expect(server.process.isRunning)
        }

        try await cluster.resume()
        for server in [a, b] {
            // Back by itself: a sign-in succeeds within seconds. Not necessarily the first
            // one: the instance's own probe of the server gets a second, which a loaded
            // machine (the full parallel run on two cores) can exceed, and then answers 503.
            var user = PasskeyUser(server, credentials: ada.credentials)
            let deadline = ContinuousClock.now + .seconds(20)
            while true {
                do {
                    try await user.signIn()
                    break
                } catch let error as LatchkeyAPIError where error.status == 503 && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(500))
                }
            }
            ada.credentials = user.credentials
        }
        try await a.waitForOutput("database available again")
        let log = a.output.text
        #expect(log.components(separatedBy: "database unavailable, answering 503").count == 2, "said once: \(log)")
        #expect(log.contains("database available again"), "and once that it is back")
        #expect(!log.contains("Connection creation failed"), "without the pool's retries")
    }

    /// How many of `times` concurrent finishes of one `auth_session`, spread over `clients`,
    /// succeed.
    static func successes(
        finishing authSession: String, with assertion: AuthenticationResponseJSON, times: Int, through clients: [LatchkeyAPIClient]
    ) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<times {
                let client = clients[index % clients.count]
                group.addTask { (try? await client.finishLogin(authSession: authSession, response: assertion, scope: "openid")) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    static func get(_ url: URL) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: url)
        return String(decoding: data, as: UTF8.self)
    }

    static func request(_ url: URL) async throws -> (Int, [String: String]) {
        let (_, response) = try await URLSession.shared.data(from: url)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers["\(key)"] = "\(value)" }
        return (http.statusCode, headers)
    }
}
