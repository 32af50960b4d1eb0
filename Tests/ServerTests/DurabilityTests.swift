import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LatchkeyClient
import Testing

/// What the server acknowledged survives the process being killed: sign-ups and logins are
/// committed (in batches, with other requests) before their response is sent, whatever the
/// thread they ran on.
@Suite("Durability: kill -9 loses nothing acknowledged", .serialized)
struct DurabilityTests {
    @Test func acknowledgedSignUpsAndLoginsSurviveSIGKILL() async throws {
        let directory = try TemporaryDirectory()
        // The load comes from one address, and the check afterwards is a burst of refused
        // clones: the rate limits, which would refuse both, are off.
        try "limits: { ceremony_starts_per_minute: 0, ceremony_finishes_per_minute: 0, ceremony_failures_per_minute: 0 }\n"
            .write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let arguments = ["--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")]
        let server = try await ServerProcess.start(arguments: arguments, workingDirectory: directory.url)

        // Sixteen apps sign people up and in, concurrently, until the server is killed: once
        // the load has been acknowledged a few times over (on a busy machine that takes longer
        // than on an idle one), and while it is still running.
        let acknowledged = Acknowledged()
        let workers = (0..<16).map { worker in
            Task {
                var index = 0
                while !acknowledged.isStopped {
                    var user = PasskeyUser(server)
                    let email = "worker\(worker)-\(index)@durable.example"
                    index += 1
                    do {
                        try await user.signUp(SignupProfile(email: email))
                        acknowledged.signUp(email, user)
                        var afterSignUp = user
                        try await afterSignUp.signIn()
                        acknowledged.login(email, afterSignUp)
                    } catch {
                        // The kill cuts requests off; anything before it is a finding.
                        acknowledged.fail(error)
                        return
                    }
                }
            }
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let (signUps, logins) = acknowledged.snapshot
            if (signUps.count >= 200 && logins.count >= 100) || acknowledged.firstError != nil { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // A flag, not Task.cancel: cancelling a task inside a URLSession request can deadlock
        // FoundationNetworking on Linux. After the kill every request fails at once anyway.
        acknowledged.stop()
        kill(server.process.processIdentifier, SIGKILL)
        server.waitForExit()
        for worker in workers { await worker.value }

        let (signUps, logins) = acknowledged.snapshot
        #expect(signUps.count >= 16, "the load produced acknowledged sign-ups: \(signUps.count); \(String(describing: acknowledged.firstError))")

        let restarted = try await ServerProcess.start(arguments: arguments, workingDirectory: directory.url)
        defer { restarted.stop() }
        #expect(!logins.isEmpty, "the load produced acknowledged logins")
        for (email, user) in signUps {
            // The passkey as it was before its login: its next assertion carries the counter
            // the acknowledged login used, which the server must still hold, and so refuse
            // as a possible clone.
            var again = PasskeyUser(restarted, credentials: user.credentials)
            if logins[email] != nil {
                let refusal = await expectAPIError(status: 403) { try await again.signIn() }
                #expect(refusal?.reason == "sign_count_regressed", "\(email): \(String(describing: refusal))")
            } else {
                // The account exists. Its login may have committed without its answer
                // arriving before the kill, so a refusal as a clone is also fine here.
                do {
                    try await again.signIn()
                } catch let error as LatchkeyAPIError where error.reason == "sign_count_regressed" {}
            }
        }
    }
}

/// The accounts whose sign-up (and login) the server acknowledged, with their passkeys.
/// What a server acknowledged, by email, collected from concurrent workers.
final class Acknowledged: @unchecked Sendable {
    private let lock = NSLock()
    private var signUps: [String: PasskeyUser] = [:]
    private var logins: [String: PasskeyUser] = [:]
    private var failure: (any Error)?
    private var stopped = false

    /// Whether the workers should stop starting new sign-ups.
    var isStopped: Bool { lock.withLock { stopped } }
    func stop() { lock.withLock { stopped = true } }

    /// The first request that failed.
    var firstError: (any Error)? { lock.withLock { failure } }
    func fail(_ error: any Error) { lock.withLock { failure = failure ?? error } }
    func signUp(_ email: String, _ user: PasskeyUser) { lock.withLock { signUps[email] = user } }
    func login(_ email: String, _ user: PasskeyUser) { lock.withLock { logins[email] = user } }
    var snapshot: ([String: PasskeyUser], [String: PasskeyUser]) { lock.withLock { (signUps, logins) } }
}
