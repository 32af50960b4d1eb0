public import Foundation

/// The words of one language, for a page or a message: each key's value in that language,
/// else in English (an operator's added language may not give every key), else the key
/// itself, so that a missing string shows as what it is rather than as nothing.
public struct Strings: Sendable {
    /// The language asked for.
    public let language: Language
    let table: StringTable?
    let english: StringTable

    /// The value of `key` with its `{name}` placeholders filled from `values`.
    public func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        Placeholders.fill(text(key, count: nil), values)
    }

    /// The form of `key` that `count` takes in this language (CLDR plural rules), with
    /// `{count}` and the other placeholders filled.
    public func callAsFunction(_ key: String, count: Int, _ values: [String: String] = [:]) -> String {
        var values = values
        values["count"] = String(count)
        return Placeholders.fill(text(key, count: count), values)
    }

    /// `template` with each `{name}` that has a value replaced by it, in one pass (a value
    /// is not scanned again, so it cannot bring in a placeholder of its own). `open` and
    /// `close` name other delimiters (an operator's mail templates use `{{name}}`).
    public static func fill(_ template: String, _ values: [String: String], open: String = "{", close: String = "}") -> String {
        Placeholders.fill(template, values, open: open, close: close)
    }

    /// Whether `key` is one Latchkey has words for (English has every key).
    public func knows(_ key: String) -> Bool { english.entries[key] != nil }

    /// The unfilled value of `key`: its plural form for `count` when it has forms.
    public func text(_ key: String, count: Int? = nil) -> String {
        if let entry = table?.entries[key] { return Self.form(entry, count: count, language: language) }
        if let entry = english.entries[key] { return Self.form(entry, count: count, language: .english) }
        return key
    }

    /// Every key there is: English's.
    public var keys: some Collection<String> { english.entries.keys }

    /// The forms of `key` by CLDR category when it has plural forms, in this language (or
    /// in English when the language lacks the key).
    public func pluralForms(_ key: String) -> [PluralCategory: String]? {
        guard case .plural(let forms) = table?.entries[key] ?? english.entries[key] else { return nil }
        return forms
    }

    private static func form(_ entry: StringTable.Entry, count: Int?, language: Language) -> String {
        switch entry {
        case .text(let text):
            return text
        case .plural(let forms):
            let category = count.map { PluralCategory.of($0, in: language) } ?? .other
            return forms[category] ?? forms[.other] ?? ""
        }
    }

    /// A date and time as people of this language write it, in UTC with the zone named
    /// ("29 Nov 2026, 12:04 UTC", "29.11.2026, 12:04 UTC", "2026/11/29 12:04 UTC").
    public func dateTime(_ date: Date) -> String {
        date.formatted(style) + " UTC"
    }

    private var style: Date.FormatStyle {
        var calendar = Calendar(identifier: .gregorian)
        let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        calendar.timeZone = utc
        return Date.FormatStyle(date: .abbreviated, time: .shortened, locale: Locale(identifier: language.tag), calendar: calendar, timeZone: utc)
    }
}

/// The language of the request being served, where a request has one: the hosted pages
/// and the API faces set it from `?lang=`, the picker's cookie or `Accept-Language`, so
/// that a message the request causes (a code by email) is written in the person's language
/// without every service passing it along.
public enum RequestLanguage {
    @TaskLocal public static var current: Language?
}
