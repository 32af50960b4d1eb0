import Foundation
import LatchkeyClient
import LatchkeySoftwarePasskeys
import Testing

/// Getting back in with the SDK, against the real server and its development mailer: verify
/// the address, save recovery codes, lose the device, come back by an emailed code and by a
/// saved one.
@Suite("SDK: getting back in", .serialized, .timeLimit(.minutes(10)))
struct SDKRecoveryTests {
    @Test func verifyLoseTheDeviceAndComeBack() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: SDKJourneyTests.configuration, in: directory)
        defer { server.stop() }

        let ada = try SDKPerson(server: server, email: "ada@example.com")
        let account = try await ada.latchkey.signUp(email: "ada@example.com", name: "Ada")
        await expectSDKError(.invalidRequest) { try await ada.latchkey.verifyEmail(code: "000000x") }
        #expect(try await ada.latchkey.verifyEmail(code: try await server.loggedCode(message: 1)) == "ada@example.com")
        let saved = try await ada.latchkey.createRecoveryCodes()
        #expect(saved.count == 10)

        // A new device: nothing on it. The emailed code adds a passkey here and signs in.
        let phone = try SDKPerson(server: server, email: "ada@example.com")
        await expectSDKError(.noCredential) { try await phone.latchkey.signIn() }
        try await phone.latchkey.startRecovery(email: "ada@example.com")
        await expectSDKError(.invalidGrant) { try await phone.latchkey.recover(email: "ada@example.com", code: "000000") }
        let back = try await phone.latchkey.recover(email: "ada@example.com", code: try await server.loggedCode(message: 2))
        #expect(back.userID == account.userID && back.method == .passkey)
        #expect(phone.passkeys.credentials.count == 1)
        #expect(try await phone.latchkey.passkeys().count == 2)

        // Another one, by a saved code; a saved code works once.
        let tablet = try SDKPerson(server: server, email: "ada@example.com")
        #expect(try await tablet.latchkey.recover(email: "ada@example.com", recoveryCode: saved[0]).userID == account.userID)
        let again = try SDKPerson(server: server, email: "ada@example.com")
        await expectSDKError(.invalidGrant) { try await again.latchkey.recover(email: "ada@example.com", recoveryCode: saved[0]) }
        #expect(again.passkeys.credentials.isEmpty)
        #expect(try await tablet.latchkey.passkeys().count == 3)
    }
}
