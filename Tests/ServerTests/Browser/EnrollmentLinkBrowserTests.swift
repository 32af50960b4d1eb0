import Foundation
import Testing

/// An administrator's enrollment link on the hosted pages, in headless Chromium with a
/// virtual authenticator: the link's fragment fills the page, the code is traded for a
/// session that adds a passkey, and the fragment leaves the address bar.
@Suite("Hosted pages: an enrollment link in a real browser", .serialized, .enabled(if: !BrowserFixture.skipped))
struct EnrollmentLinkBrowserTests {
    @Test func aLinkFromTheAdminAPIAddsAPasskey() async throws {
        try await BrowserFixture.run { fixture in
            let database = "sqlite:" + fixture.directory.path("latchkey.sqlite")
            let made = try await CommandRun.run(
                ["admin", "keys", "create", "--name", "browser", "--scopes", "users:write,enrollment:write", "--database", database],
                workingDirectory: fixture.directory.url
            )
            let key = try #require(made.output.split(separator: "\n").last.map(String.init))
            let http = RawHTTP(fixture.server)
            let user = try await http.json("POST", "/admin/v1/users", ["email": "grace@example.com"], headers: ["Authorization": "Bearer " + key])
            let id = try #require(user.json["id"] as? String, "\(user.text)")
            let link = try await http.send("POST", "/admin/v1/users/\(id)/enrollment-links", contentType: nil, headers: ["Authorization": "Bearer " + key])
            let url = try #require(link.json["url"] as? String, "\(link.text)")
            let path = try #require(url.range(of: "/enroll#").map { String(url[$0.lowerBound...]) })

            let tab = fixture.tab
            let platform = try await VirtualAuthenticator.add(to: tab)
            try await fixture.open(path)
            try await tab.waitUntil("document.querySelector('#enroll-code').value.length === 16 && location.hash === ''")
            try await tab.click("#enroll-form button")
            try await fixture.waitForPath("/account/passkeys/new", query: "?recovered=1", timeout: .seconds(30))
            try await tab.click("#add-passkey")
            try await fixture.waitForPath("/account", query: "?recovered=1", timeout: .seconds(30))
            _ = try await platform.waitForEvent("WebAuthn.credentialAdded")
            #expect(try await tab.text("main").contains("grace@example.com"))
        }
    }
}
