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
        let arguments = ["--database", "sqlite:" + directory.path("latchkey.sqlite")]
        let server = try await ServerProcess.start(arguments: arguments, workingDirectory: directory.url)

        // Sixteen apps sign people up and in, concurrently, until the server is killed.
        let acknowledged = Acknowledged()
        let stop = Date().addingTimeInterval(1.5)
        let workers = (0..<16).map { worker in
            Task {
                var index = 0
                while Date() < stop {
                    var user = PasskeyUser(server: server.baseURL)
                    let email = "worker\(worker)-\(index)@durable.example"
                    index += 1
                    guard (try? await user.signUp(SignupProfile(email: email))) != nil else { return }
                    acknowledged.signUp(email, user)
                    var afterSignUp = user
                    guard (try? await afterSignUp.signIn()) != nil else { return }
                    acknowledged.login(email, afterSignUp)
                }
            }
        }
        try await Task.sleep(for: .milliseconds(1200))
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        for worker in workers { await worker.value }

        let (signUps, logins) = acknowledged.snapshot
        #expect(signUps.count >= 16, "the load produced acknowledged sign-ups: \(signUps.count)")

        let restarted = try await ServerProcess.start(arguments: arguments, workingDirectory: directory.url)
        defer { restarted.stop() }
        #expect(!logins.isEmpty, "the load produced acknowledged logins")
        for (email, user) in signUps {
            // The passkey as it was before its login: its next assertion carries the counter
            // the acknowledged login used, which the server must still hold, and so refuse
            // as a possible clone.
            var again = PasskeyUser(server: restarted.baseURL, credentials: user.credentials)
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

    func signUp(_ email: String, _ user: PasskeyUser) { lock.withLock { signUps[email] = user } }
    func login(_ email: String, _ user: PasskeyUser) { lock.withLock { logins[email] = user } }
    var snapshot: ([String: PasskeyUser], [String: PasskeyUser]) { lock.withLock { (signUps, logins) } }
}
