import Authenticator
import Foundation
import HostedUI
import IdentityCore
import Localization
import Testing

/// The account center on the account page, over HTTP against the whole application: where
/// the account is signed in (each session with its device, this one marked), signing out
/// another or every other, what happened lately, and the rules (a recent sign-in; another
/// account's session is not found).
@Suite("Account center: sessions, devices and activity")
struct AccountCenterTests {
    static let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:135.0) Gecko/20100101 Firefox/135.0"
    static let safari = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.2 Mobile/15E148 Safari/604.1"

    /// The IDs of the sessions the account page lists, in order.
    static func listedSessions(_ page: String) -> [String] {
        page.components(separatedBy: "data-session-id=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The IDs of the listed sessions that are not this device's: those with a sign-out button.
    static func otherSessions(_ page: String) -> [String] {
        page.components(separatedBy: "data-session-id=\"").dropFirst()
            .filter { $0.components(separatedBy: "</li>").first?.contains("data-action=\"end-session\"") == true }
            .map { String($0.prefix { $0 != "\"" }) }
    }

    @Test func listEndOneEndTheOthersAndSeeWhatHappened() async throws {
        let server = try await RouterServer.start()
        defer { server.stop() }
        let laptop = BrowserAgent(server)
        laptop.extraHeaders = ["User-Agent": Self.firefox]
        // A synced passkey: its copies on other devices keep no counter.
        laptop.authenticator = SoftwareAuthenticator(createsSyncedCredentials: true)
        #expect(try await laptop.signUp(email: "ada@example.com").status == 200)
        // The same passkey, synced to a phone, signs in there too.
        let phone = BrowserAgent(server)
        phone.extraHeaders = ["User-Agent": Self.safari]
        phone.authenticator = laptop.authenticator
        phone.credentials = laptop.credentials
        #expect(try await phone.signIn().status == 200)

        var page = try await laptop.get("/account").text
        let listed = Self.listedSessions(page)
        #expect(listed.count == 2, "\(page)")
        #expect(page.contains("Firefox on Linux") && page.contains("Safari on iPhone"))
        #expect(page.components(separatedBy: "<span class=\"badge\">This device</span>").count == 2, "exactly one is this device")
        #expect(page.contains("Signed in with a passkey") && page.contains("Account created"), "recent activity")
        let phoneSession = try #require(Self.otherSessions(page).first)
        #expect(Self.otherSessions(page).count == 1)

        // Bad input: no ID, an ID no session of this account has.
        #expect(try await laptop.call("POST", "/ui/sessions/end", [:]).status == 400)
        let unknown = try await laptop.call("POST", "/ui/sessions/end", ["id": "bs_AAAA"])
        #expect(unknown.status == 404, "\(unknown.text)")
        // Another account cannot end Ada's phone session by its ID.
        let eve = BrowserAgent(server)
        #expect(try await eve.signUp(email: "eve@example.com").status == 200)
        #expect(try await eve.call("POST", "/ui/sessions/end", ["id": phoneSession]).status == 404)
        #expect(try await phone.get("/account").status == 200, "still signed in")

        // Ada signs her phone out from the laptop; the phone finds itself signed out.
        let ended = try await laptop.call("POST", "/ui/sessions/end", ["id": phoneSession])
        #expect(ended.status == 200, "\(ended.text)")
        #expect(try await phone.get("/account").status == 302)
        page = try await laptop.get("/account").text
        #expect(Self.listedSessions(page).count == 1)
        #expect(page.contains("Signed out a device"))

        // Every other place: two browsers and an app's tokens.
        #expect(try await phone.signIn().status == 200)
        let tablet = BrowserAgent(server)
        tablet.authenticator = laptop.authenticator
        tablet.credentials = laptop.credentials
        #expect(try await tablet.signIn().status == 200)
        var app = PasskeyUser(server, credentials: laptop.credentials)
        app.authenticator = laptop.authenticator
        let tokens = try await app.signIn()
        #expect(Self.listedSessions(try await laptop.get("/account").text).count == 4)
        let others = try await laptop.call("POST", "/ui/sessions/end-others", [:])
        #expect(others.json["ended"] as? Int == 3, "\(others.text)")
        #expect(try await phone.get("/account").status == 302)
        #expect(try await tablet.get("/account").status == 302)
        let refresh = try await RawHTTP(server).json("POST", "/oauth/token", ["grant_type": "refresh_token", "client_id": "demo", "refresh_token": tokens.refreshToken ?? ""])
        #expect(refresh.status == 403 || refresh.status == 400, "the app's session ended too: \(refresh.text)")
        #expect(try await laptop.get("/account").status == 200, "this one stays")

        // A sign-in older than the sensitive-action age must be confirmed first.
        #expect(try await phone.signIn().status == 200)
        server.clock.advance(by: 16 * 60)
        let stale = try await laptop.call("POST", "/ui/sessions/end-others", [:])
        #expect(stale.status == 401 && stale.json["reason"] as? String == "insufficient_user_authentication", "\(stale.text)")
        #expect(try await phone.get("/account").status == 200, "nothing ended")
    }

    @Test func devicesAreNamedFromTheirUserAgent() {
        #expect(DeviceDescription.describe(Self.firefox, StringCatalog.shared.strings(.english)) == "Firefox on Linux")
        #expect(DeviceDescription.describe(Self.safari, StringCatalog.shared.strings(.english)) == "Safari on iPhone")
        #expect(DeviceDescription.describe("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", StringCatalog.shared.strings(.english)) == "Edge on Windows")
        #expect(DeviceDescription.describe("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", StringCatalog.shared.strings(.english)) == "Chrome on macOS")
        #expect(DeviceDescription.describe(nil, StringCatalog.shared.strings(.english)) == "An unknown device")
        #expect(DeviceDescription.describe(Self.firefox, StringCatalog.shared.strings(.japanese)) == "Linux の Firefox")
        #expect(DeviceDescription.describe("Shiny/1.0", StringCatalog.shared.strings(.english)) == "Shiny/1.0")
    }
}
