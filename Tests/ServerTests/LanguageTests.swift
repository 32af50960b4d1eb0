import Foundation
import Localization
import Testing

/// The language of the hosted pages over HTTP: `?lang=` sets a cookie that later requests
/// follow, `Accept-Language` counts after both, `branding.default_language` after that; the
/// pages' JSON refusals and error pages speak it; an operator's strings replace the shipped
/// ones.
@Suite("Hosted pages: the person's language over HTTP")
struct LanguageTests {
    @Test func theLanguageIsChosenAndRemembered() async throws {
        let server = try await RouterServer.start()
        defer { server.stop() }
        let http = RawHTTP(server)

        let browser = try await http.send("GET", "/login", contentType: nil, headers: ["Accept-Language": "ja;q=0.8, de-CH"])
        #expect(browser.text.contains("<html lang=\"de\" dir=\"ltr\""), "the better quality wins")
        #expect(browser.header("Content-Language") == "de")
        #expect(browser.text.contains("<h1>Anmelden</h1>"))
        #expect(!(browser.header("Set-Cookie") ?? "").contains("latchkey_lang"), "only a choice sets the cookie")
        // The scripts' messages in the page's language, a cacheable script of their own.
        #expect(browser.text.contains("<script src=\"/ui/assets/messages/de.js\" defer></script>"))
        let messages = try await http.send("GET", "/ui/assets/messages/de.js", contentType: nil)
        #expect(messages.status == 200 && messages.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(messages.text.hasPrefix("window.LatchkeyMessages = {") && messages.text.contains(StringCatalog.shared.strings(.german)("js.session_ended")))
        #expect(try await http.send("GET", "/ui/assets/messages/xx.js", contentType: nil).status == 404)

        let picked = try await http.send("GET", "/signup?lang=ar&return_to=%2Faccount", contentType: nil, headers: ["Accept-Language": "de"])
        #expect(picked.text.contains("<html lang=\"ar\" dir=\"rtl\""))
        let cookies = picked.header("Set-Cookie") ?? ""
        #expect(cookies.contains("latchkey_lang=ar; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000"), "\(cookies)")
        // The picker keeps the page's other parameters, and names each language in itself.
        #expect(picked.text.contains("<input type=\"hidden\" name=\"return_to\" value=\"/account\">"))
        #expect(picked.text.contains("<option value=\"ja\" lang=\"ja\">日本語</option>"))
        #expect(picked.text.contains("<option value=\"ar\" lang=\"ar\" selected>العربية</option>"))

        let remembered = try await http.send("GET", "/recover", contentType: nil, headers: ["Cookie": "latchkey_lang=ar", "Accept-Language": "de"])
        #expect(remembered.text.contains("<html lang=\"ar\" dir=\"rtl\""), "the cookie counts before the browser's preference")
        let unknown = try await http.send("GET", "/login?lang=tlh", contentType: nil, headers: ["Cookie": "latchkey_lang=fr"])
        #expect(unknown.text.contains("<html lang=\"fr\""), "a language without strings is passed over")
        #expect(!(unknown.header("Set-Cookie") ?? "").contains("latchkey_lang"))
        let missing = try await http.send("GET", "/no-such-page", contentType: nil, headers: ["Accept": "text/html", "Accept-Language": "zh-CN"])
        #expect(missing.status == 404 && missing.text.contains("<html lang=\"zh-Hans\"") && missing.text.contains("页面"), "\(missing.text.prefix(600))")
    }

    @Test func refusalsAreInThePagesLanguage() async throws {
        let server = try await RouterServer.start()
        defer { server.stop() }
        let http = RawHTTP(server)
        let page = try await http.send("GET", "/recover", contentType: nil)
        let csrf = try #require(page.text.firstMatch(of: /name="latchkey-csrf" content="([^"]+)"/)?.1)
        let headers = ["Cookie": "latchkey_csrf=\(csrf); latchkey_lang=de", "X-CSRF-Token": String(csrf), "Origin": "http://localhost:8080"]
        let empty = try await http.send("POST", "/ui/recovery/start", body: Data("{}".utf8), headers: headers)
        #expect(empty.status == 400)
        let body = try #require(try JSONSerialization.jsonObject(with: empty.body) as? [String: Any])
        #expect(body["error"] as? String == "invalid_request" && body["field"] as? String == "email" && body["reason"] as? String == "required")
        #expect(body["error_description"] as? String == StringCatalog.shared.strings(.german)("recover.enter_email"))
        let sent = try await http.send("POST", "/ui/recovery/start", body: Data(#"{"email":"nobody@example.com"}"#.utf8), headers: headers)
        let message = try #require(try JSONSerialization.jsonObject(with: sent.body) as? [String: Any])["message"] as? String
        #expect(message == StringCatalog.shared.strings(.german)("recover.sent", count: 15))

        // An error page: the words in the language, the server's own as details.
        let broken = try await http.send("GET", "/authorize?client_id=nobody&response_type=code", contentType: nil, headers: ["Accept-Language": "ja"])
        #expect(broken.status == 400)
        #expect(broken.text.contains(StringCatalog.shared.strings(.japanese)("error.title.sign_in_link_invalid")), "\(broken.text.suffix(900))")
        #expect(broken.text.contains("lang=\"en\" dir=\"ltr\""), "the server's English details are marked as English")
        let english = try await http.send("GET", "/authorize?client_id=nobody&response_type=code", contentType: nil)
        #expect(!english.text.contains("Details for the site's developers"), "English shows the server's words as the message itself")
    }

    @Test func theOperatorsDefaultAndStrings() async throws {
        let directory = try TemporaryDirectory()
        let strings = directory.path("strings")
        try FileManager.default.createDirectory(atPath: strings, withIntermediateDirectories: true)
        let catalog = #"{"sourceLanguage":"en","strings":{"login.title":{"localizations":{"nl":{"stringUnit":{"state":"translated","value":"Welkom terug"}}}}}}"#
        try catalog.write(toFile: strings + "/nl.xcstrings", atomically: true, encoding: .utf8)
        let server = try await RouterServer.start(yaml: "branding: { default_language: nl, strings_dir: \(strings) }", in: directory)
        defer { server.stop() }
        let page = try await RawHTTP(server).send("GET", "/login", contentType: nil, headers: ["Accept-Language": "sv, tlh"])
        #expect(page.text.contains("<html lang=\"nl\""), "nothing the browser asks for is there: the default")
        #expect(page.text.contains("<h1>Welkom terug</h1>"), "the operator's words")
        #expect(page.text.contains(StringCatalog.shared.strings(.dutch)("login.submit")), "the rest as shipped")
    }
}
