import Foundation
import IdentityCore
@testable import LatchkeyServer
import LatchkeyClient
import Logging
import StorageSQLite
import Testing

/// Storage stays bounded: the purge removes old audit events, sessions past their
/// absolute lifetime, expired one-time codes and old finished mail from a real server's SQLite file, reports what it removed, and runs at
/// an interval that follows the ceremony lifetime.
@Suite("Purges: the application's database", .serialized, .timeLimit(.minutes(10)))
struct PurgeServiceTests {
    @Test func oldAuditEventsAndSessionsArePurged() async throws {
        let server = try await RouterServer.start(yaml: "audit: { retention: 2d }\ntokens: { refresh_token_absolute_lifetime: 30d }")
        defer { server.stop() }
        var ada = PasskeyUser(server)
        let signup = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        try await ada.signIn()

        let storage = try SQLiteStorage(path: server.directory.path("latchkey.sqlite"))
        let purge = PurgeService(
            storage: storage, clock: server.clock, interval: .seconds(60), auditRetention: 2 * 86400, familyLifetime: 30 * 86400,
            logger: Logger(label: "test")
        )
        // Nothing is old yet.
        #expect(try await purge.purge().values.reduce(0, +) == 0)

        server.clock.advance(by: 3 * 86400)
        let first = try await purge.purge()
        #expect(first["audit events"] == 2, "\(first)")
        #expect(first["refresh sessions"] == 0)
        #expect(first["one-time codes"] == 2, "the sign-up's verification code, a day past its end, and the hour's count of its mail: \(first)")
        #expect(try await ada.client.refresh(refreshToken: try #require(signup.refreshToken)).refreshToken != nil)

        server.clock.advance(by: 30 * 86400)
        let second = try await purge.purge()
        #expect(second["refresh sessions"] == 2, "\(second)")
        #expect(second["audit events"] == 0, "a refresh is logged, not stored: \(second)")
        #expect(second["sent mail"] == 1, "the verification mail, a week after it was sent: \(second)")
        await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: try #require(signup.refreshToken)) }
    }

    @Test func theIntervalFollowsTheCeremonyLifetime() {
        #expect(PurgeService.interval(ceremonyLifetime: 300) == .seconds(150))
        #expect(PurgeService.interval(ceremonyLifetime: 5) == .seconds(10))
        #expect(PurgeService.interval(ceremonyLifetime: 3600) == .seconds(300))
    }
}
