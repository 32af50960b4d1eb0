import Foundation
import IdentityCore
import Localization
import Testing

/// Choosing a language, CLDR plural rules, placeholders, dates, and an operator's strings
/// laid over the shipped ones.
@Suite("Localization: languages, plurals and an operator's strings")
struct LocalizationTests {
    let choice = LanguageChoice(available: Language.builtIn, fallback: .english)

    @Test func theExplicitChoiceWinsThenTheCookieThenTheBrowser() {
        #expect(choice.choose(query: "ja", cookie: "de", acceptLanguage: "fr") == .japanese)
        #expect(choice.choose(query: nil, cookie: "de", acceptLanguage: "fr") == .german)
        #expect(choice.choose(query: "tlh", cookie: "de", acceptLanguage: "fr") == .german, "a language without strings is passed over")
        #expect(choice.choose(query: nil, cookie: nil, acceptLanguage: "fr") == .french)
        #expect(choice.choose(query: nil, cookie: nil, acceptLanguage: nil) == .english)
        let arabicByDefault = LanguageChoice(available: Language.builtIn, fallback: .arabic)
        #expect(arabicByDefault.choose(query: nil, cookie: nil, acceptLanguage: "sv-SE, tlh") == .arabic)
    }

    @Test func acceptLanguageIsReadByQuality() {
        #expect(LanguageChoice.preferences("fr;q=0.5, de, en;q=0.9") == ["de", "en", "fr"])
        #expect(LanguageChoice.preferences("de;q=0, ja;q=0.1") == ["ja"], "q=0 means not this one")
        #expect(LanguageChoice.preferences("de;q=banana, ja;q=2") == [], "a malformed quality counts as 0")
        #expect(LanguageChoice.preferences("nl, it") == ["nl", "it"], "equal qualities keep their order")
        #expect(choice.choose(query: nil, cookie: nil, acceptLanguage: "sv;q=1, de-AT;q=0.8, ar;q=0.9") == .arabic)
        #expect(choice.choose(query: nil, cookie: nil, acceptLanguage: "*") == .english)
    }

    @Test func regionalTagsFindTheirLanguage() {
        let all = Language.builtIn
        #expect(Language.matching("de-CH", among: all) == .german)
        #expect(Language.matching("pt", among: all) == .brazilianPortuguese)
        #expect(Language.matching("pt_PT", among: all) == .brazilianPortuguese)
        #expect(Language.matching("zh-CN", among: all) == .simplifiedChinese)
        #expect(Language.matching("zh-Hans-SG", among: all) == .simplifiedChinese)
        #expect(Language.matching("zh-TW", among: all) == nil, "Traditional Chinese readers are not handed Simplified characters")
        #expect(Language.matching("zh-Hant", among: all) == nil)
        #expect(Language.matching("EN-gb", among: all) == .english)
        #expect(Language.arabic.isRightToLeft && Language.arabic.direction == "rtl")
        #expect(!Language.japanese.isRightToLeft)
    }

    @Test func pluralCategoriesFollowCLDR() {
        func categories(_ language: Language, _ counts: [Int]) -> [PluralCategory] { counts.map { PluralCategory.of($0, in: language) } }
        #expect(categories(.english, [0, 1, 2, 11]) == [.other, .one, .other, .other])
        #expect(categories(.french, [0, 1, 2, 1_000_000]) == [.one, .one, .other, .many])
        #expect(categories(.brazilianPortuguese, [0, 1, 2]) == [.one, .one, .other])
        #expect(categories(.spanish, [0, 1, 2, 2_000_000]) == [.other, .one, .other, .many])
        #expect(categories(.japanese, [0, 1, 2]) == [.other, .other, .other])
        #expect(categories(Language("pt-PT"), [0, 1, 2]) == [.other, .one, .other], "European Portuguese counts 0 as plural")
        #expect(categories(.arabic, [0, 1, 2, 3, 10, 11, 99, 100, 102, 103, 111]) == [.zero, .one, .two, .few, .few, .many, .many, .other, .other, .few, .many])
    }

    @Test func pluralsAndPlaceholdersFillIn() {
        let catalog = StringCatalog.shared
        #expect(catalog.strings(.english)("js.others_ended", count: 1) == "Signed out everywhere else: 1 session ended.")
        #expect(catalog.strings(.english)("js.others_ended", count: 3) == "Signed out everywhere else: 3 sessions ended.")
        let arabic = catalog.strings(.arabic)
        let forms = Set([0, 1, 2, 3, 11, 100].map { arabic("js.others_ended", count: $0) })
        #expect(forms.count == 6, "Arabic has six forms: \(forms)")
        // A value cannot bring in a placeholder of its own.
        #expect(catalog.strings(.english)("home.heading", ["site": "{site}"]) == "Welcome to {site}")
        #expect(catalog.strings(.german)("no.such.key") == "no.such.key")
    }

    @Test func datesAreWrittenTheLanguagesWay() throws {
        let date = try #require(ISO8601DateFormatter().date(from: "2026-11-29T14:00:00Z"))
        let catalog = StringCatalog.shared
        let written = Dictionary(uniqueKeysWithValues: Language.builtIn.map { ($0, catalog.strings($0).dateTime(date)) })
        #expect(written[.english]?.hasPrefix("Nov 29, 2026") == true, "\(written)")
        #expect(written[.german]?.hasPrefix("29. Nov. 2026") == true, "\(written)")
        #expect(written[.japanese]?.hasPrefix("2026年11月29日") == true, "\(written)")
        #expect(written[.french]?.contains("nov. 2026") == true, "\(written)")
        #expect(written[.english]?.contains("PM") == true && written[.german]?.contains("14:00") == true, "\(written)")
        #expect(written[.arabic]?.contains("نوفمبر") == true, "\(written)")
        for (language, text) in written { #expect(text.hasSuffix("UTC"), "\(language)") }
    }

    @Test func anOperatorOverridesAndAddsLanguages() throws {
        let directory = try Self.directory([
            "de.xcstrings": Self.catalog("de", ["login.title": "Einloggen", "no.such.key": "x"]),
            "pl.xcstrings": Self.catalog("pl", ["language.name": "Polski", "login.title": "Zaloguj się"]),
        ])
        let (catalog, warnings) = try StringCatalog.shared.overlaid(with: directory)
        #expect(catalog.strings(.german)("login.title") == "Einloggen")
        #expect(catalog.strings(.german)("login.submit") == "Mit einem Passkey anmelden", "the rest stays")
        #expect(catalog.languages.contains(Language("pl")))
        #expect(catalog.strings(Language("pl"))("login.title") == "Zaloguj się")
        #expect(catalog.strings(Language("pl"))("login.submit") == "Sign in with a passkey", "a key the added language lacks is English")
        #expect(warnings == ["de.xcstrings: \"no.such.key\" is not a key Latchkey uses; it is ignored"])
    }

    @Test func anOperatorsBrokenStringsAreRefusedByName() throws {
        let lost = try Self.directory(["de.xcstrings": Self.catalog("de", ["home.heading": "Willkommen"])])
        #expect(throws: StringTable.Failure.self) { try StringCatalog.shared.overlaid(with: lost) }
        do {
            _ = try StringCatalog.shared.overlaid(with: lost)
        } catch {
            #expect("\(error)".contains("home.heading") && "\(error)".contains("{site}"), "\(error)")
        }
        let garbage = try Self.directory(["fr.xcstrings": "{ not json"])
        #expect(throws: StringTable.Failure.self) { try StringCatalog.shared.overlaid(with: garbage) }
        let badName = try Self.directory(["../x.xcstrings": nil, "d e.xcstrings": Self.catalog("de", [:])])
        #expect(throws: StringTable.Failure.self) { try StringCatalog.shared.overlaid(with: badName) }
        #expect(throws: StringTable.Failure.self) { try StringCatalog.shared.overlaid(with: "/nonexistent/strings") }
        let nameless = try Self.directory(["sv.xcstrings": Self.catalog("sv", ["login.title": "Logga in"])])
        #expect(throws: StringTable.Failure.self, "an added language names itself for the picker") { try StringCatalog.shared.overlaid(with: nameless) }
    }

    @Test func emailsSpeakTheRequestsLanguage() throws {
        var templates = MailTemplates()
        templates.branding = MailBranding(supportEmail: "help@example.com")
        let german = templates.render(.verificationCode, values: ["service": "Beispiel", "name": "Ada", "code": "123456", "minutes": "10"], language: .german)
        #expect(german.subject.contains("123456") && german.subject.contains("Beispiel"))
        #expect(german.text.contains("10 Minuten"), "\(german.text)")
        #expect(german.text.contains("help@example.com"))
        #expect(!german.text.contains("Hello"))
        let one = templates.render(.verificationCode, values: ["service": "S", "name": "Ada", "code": "1", "minutes": "1"], language: .english)
        #expect(one.text.contains("for 1 minute."), "\(one.text)")
        let arabic = templates.render(.recoveryCode, values: ["service": "S", "name": "<Ada>", "code": "654321", "minutes": "15"], language: .arabic)
        #expect(arabic.html.contains("dir=\"rtl\"") && arabic.html.contains("lang=\"ar\""))
        #expect(arabic.html.contains("&lt;Ada&gt;") && !arabic.html.contains("<Ada>"), "values are escaped in HTML")
        let recovered = templates.render(.accountRecovered, values: ["service": "S", "name": "A", "method": "recovery_code", "time": "t"], language: .japanese)
        #expect(!recovered.text.contains("recovery_code"), "the way in is named in words: \(recovered.text)")
    }

    /// A catalog file for `tag` with `values`.
    static func catalog(_ tag: String, _ values: [String: String]) -> String {
        let strings = values.mapValues { ["localizations": [tag: ["stringUnit": ["state": "translated", "value": $0]]]] }
        let data = try! JSONSerialization.data(withJSONObject: ["sourceLanguage": "en", "version": "1.0", "strings": strings])
        return String(decoding: data, as: UTF8.self)
    }

    /// A new directory with these files (`nil`: skipped).
    static func directory(_ files: [String: String?]) throws -> String {
        let path = NSTemporaryDirectory() + "latchkey-strings-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for case let (name, contents?) in files where !name.contains("/") {
            try contents.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
        }
        return path
    }
}
