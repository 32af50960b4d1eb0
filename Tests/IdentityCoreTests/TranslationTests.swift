import Foundation
import Localization
import Testing

/// The ten shipped catalogs against English: every key, the same placeholders, the plural
/// forms each language's grammar needs, and no value left in English unless there is a
/// reason for it.
@Suite("Translations: every language says everything English says")
struct TranslationTests {
    let catalog: StringCatalog
    init() throws { catalog = try StringCatalog.builtIn() }

    /// The values that may read as in English, each with its reason. Anything else equal to
    /// English is an untranslated string.
    static let sameAsEnglish: [String: [String: String]] = [
        // Two placeholders and a space: nothing to translate ("Passkey 2", "パスキー 2").
        "*": ["account.passkey.numbered": "only placeholders"],
        "de": [
            "account.passkey.default_name": "German uses the English word Passkey (Apple, Google)",
            "account.passkeys.heading": "the German plural of Passkey is Passkeys",
            "common.optional": "optional is the German word (Duden)",
        ],
        "it": [
            "account.passkey.default_name": "Italian uses the English word passkey (Apple, Google)",
            "account.password.heading": "Italian uses the English word password",
            "common.password": "Italian uses the English word password",
            "layout.nav.account": "account is the Italian word in web interfaces",
        ],
    ]

    @Test func everyLanguageShipsAndEnglishIsComplete() {
        #expect(Set(catalog.languages) == Set(Language.builtIn))
        #expect(catalog.english.entries.count > 250)
        // English is the reference: it has every form English grammar needs.
        for (key, entry) in catalog.english.entries {
            if case .plural(let forms) = entry { #expect(Set(forms.keys) == [.one, .other], "\(key)") }
        }
    }

    @Test(arguments: Language.builtIn.filter { $0 != .english })
    func everyKeyEveryPlaceholderEveryPluralForm(_ language: Language) throws {
        let table = try #require(catalog.tables[language])
        let english = catalog.english.entries
        let missing = Set(english.keys).subtracting(table.entries.keys)
        #expect(missing.isEmpty, "\(language) lacks \(missing.sorted())")
        let extra = Set(table.entries.keys).subtracting(english.keys)
        #expect(extra.isEmpty, "\(language) has keys English does not: \(extra.sorted())")
        for (key, reference) in english {
            guard let entry = table.entries[key] else { continue }
            // `{count}` may be spelled out in a singular form ("دقيقة واحدة"); every other
            // placeholder must be there, and none added.
            #expect(reference.placeholders.subtracting(["count"]).isSubset(of: entry.placeholders), "\(language) \(key) loses a placeholder")
            #expect(entry.placeholders.isSubset(of: reference.placeholders), "\(language) \(key) adds a placeholder")
            switch (reference, entry) {
            case (.text, .text): break
            case (.plural, .plural(let forms)):
                #expect(Set(forms.keys).isSuperset(of: PluralCategory.required(in: language)), "\(language) \(key) has only \(forms.keys.map(\.rawValue).sorted())")
                if let other = forms[.other] { #expect(other.contains("{count}"), "\(language) \(key): the other form must show the number") }
            default:
                Issue.record("\(language) \(key): plural where English is plain, or the reverse")
            }
        }
    }

    @Test(arguments: Language.builtIn.filter { $0 != .english })
    func nothingIsLeftInEnglishWithoutAReason(_ language: Language) throws {
        let table = try #require(catalog.tables[language])
        let allowed = Self.sameAsEnglish["*", default: [:]].merging(Self.sameAsEnglish[language.tag, default: [:]]) { first, _ in first }
        for (key, reference) in catalog.english.entries {
            guard let entry = table.entries[key], entry == reference else { continue }
            #expect(allowed[key] != nil, "\(language) \(key) reads as in English: \(reference.forms.first ?? "")")
        }
        // And the list holds no stale reasons.
        for key in Self.sameAsEnglish[language.tag, default: [:]].keys {
            #expect(table.entries[key] == catalog.english.entries[key], "\(language) \(key) is on the list but translated now")
        }
    }

    @Test func eachLanguageNamesItselfInItself() {
        let names = Dictionary(uniqueKeysWithValues: catalog.languages.map { ($0.tag, catalog.strings($0)("language.name")) })
        #expect(names == [
            "en": "English", "de": "Deutsch", "fr": "Français", "es": "Español", "pt-BR": "Português (Brasil)", "it": "Italiano", "nl": "Nederlands",
            "ja": "日本語", "zh-Hans": "简体中文", "ar": "العربية",
        ])
    }
}
