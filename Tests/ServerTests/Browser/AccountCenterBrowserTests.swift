import Authenticator
import Foundation
import Testing
import WebAuthnCorpus

/// The account center in headless Chromium: the account signed in elsewhere (another
/// browser, over HTTP, with the same synced passkey) is listed with its device, signed out
/// from the page, and finds itself signed out there.
@Suite("Hosted pages: the account center in a real browser", .serialized, .enabled(if: !BrowserFixture.skipped))
struct AccountCenterBrowserTests {
    @Test func signOutAnotherBrowserFromTheAccountPage() async throws {
        try await BrowserFixture.run { fixture in
            let tab = fixture.tab
            // The other browser: a phone that made the account with a synced passkey.
            let phone = BrowserAgent(server: URL(string: fixture.base)!, origin: fixture.base)
            phone.extraHeaders = ["User-Agent": AccountCenterTests.safari]
            phone.authenticator = SoftwareAuthenticator(createsSyncedCredentials: true)
            #expect(try await phone.signUp(email: "ada@example.com").status == 200)
            // The passkey synced to this browser's authenticator.
            let credential = try #require(phone.credentials.first)
            guard case .es256(let key) = credential.privateKey else { throw TestFailure("expected an ES256 passkey") }
            let authenticator = try await VirtualAuthenticator.add(to: tab)
            try await authenticator.addCredential(.object([
                "credentialId": .string(Data(credential.credentialID).base64EncodedString()), "isResidentCredential": .bool(true),
                "rpId": .string("localhost"), "privateKey": .string(key.derRepresentation.base64EncodedString()),
                "userHandle": .string(Data(credential.userHandle).base64EncodedString()), "signCount": .number(0),
                "backupEligibility": .bool(true), "backupState": .bool(true),
            ]))

            // Autofill signs in with it, and the account page lists both places.
            try await fixture.open("/login")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
            try await tab.waitUntil("document.querySelectorAll('li.place').length === 2")
            let places = try await tab.text("#places")
            #expect(places.contains("Safari on iPhone"), "\(places)")
            #expect(try await tab.evaluate("document.querySelectorAll('li.place .badge').length") == .number(1), "this browser is marked")
            #expect(try await tab.text("#activity").contains("Signed in with a passkey"))
            try await fixture.screenshot("account-center", height: 1400)

            try await tab.click("li.place [data-action=end-session]")
            try await tab.waitUntil("document.querySelector('#status').textContent.includes('Signed out of that device.')")
            #expect(try await tab.evaluate("document.querySelectorAll('li.place').length") == .number(1))
            #expect(try await tab.evaluate("document.querySelector('#end-other-sessions')") == .null, "no other place left to sign out")
            #expect(try await phone.get("/account").status == 302, "the phone is signed out")
        }
    }
}
