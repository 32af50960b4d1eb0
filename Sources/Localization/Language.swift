import Foundation

/// A language the hosted pages and emails speak, named by its BCP 47 tag (`en`, `pt-BR`,
/// `zh-Hans`): the tag goes into `<html lang>` as is, and names its strings file.
public struct Language: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The BCP 47 tag.
    public let tag: String
    /// The tag lowercased, for matching (tags are case-insensitive).
    let key: String

    /// A language by its tag, as given (see ``matching(_:among:)`` to find one from a
    /// browser's preference).
    public init(_ tag: String) {
        self.tag = tag
        self.key = tag.lowercased()
    }

    public static func == (lhs: Language, rhs: Language) -> Bool { lhs.tag == rhs.tag }
    public func hash(into hasher: inout Hasher) { hasher.combine(tag) }

    public static let english = Language("en")
    public static let german = Language("de")
    public static let french = Language("fr")
    public static let spanish = Language("es")
    public static let brazilianPortuguese = Language("pt-BR")
    public static let italian = Language("it")
    public static let dutch = Language("nl")
    public static let japanese = Language("ja")
    public static let simplifiedChinese = Language("zh-Hans")
    public static let arabic = Language("ar")

    /// The languages Latchkey ships strings for.
    public static let builtIn: [Language] = [english, german, french, spanish, brazilianPortuguese, italian, dutch, japanese, simplifiedChinese, arabic]

    /// The primary subtag, lowercased: `pt` for `pt-BR`.
    public var primary: String { key.split(separator: "-").first.map(String.init) ?? key }

    /// Whether the script runs right to left, so that the page is `dir="rtl"`.
    public var isRightToLeft: Bool { ["ar", "he", "fa", "ur", "yi", "ps", "ckb", "dv"].contains(primary) }

    /// `rtl` or `ltr`, for `<html dir>`.
    public var direction: String { isRightToLeft ? "rtl" : "ltr" }

    /// The language among `available` that a tag from a browser or a URL asks for: the
    /// same tag, else one that shares its language and script. `pt`, `pt-PT` and `pt-BR`
    /// all find `pt-BR`; `zh`, `zh-CN` and `zh-Hans-SG` find `zh-Hans`; `zh-TW` and
    /// `zh-Hant` find nothing, because Traditional Chinese readers should not be handed
    /// Simplified characters.
    public static func matching(_ tag: String, among available: [Language]) -> Language? {
        // Every request asks this: plain string work, no Foundation scanning.
        var wanted = tag.lowercased()
        if wanted.utf8.contains(UInt8(ascii: " ")) { wanted = String(wanted.filter { $0 != " " }) }
        if wanted.utf8.contains(UInt8(ascii: "_")) { wanted = String(wanted.map { $0 == "_" ? "-" : $0 }) }
        guard !wanted.isEmpty, wanted != "*" else { return nil }
        if let exact = available.first(where: { $0.key == wanted }) { return exact }
        let parts = wanted.split(separator: "-").map(String.init)
        guard let primary = parts.first else { return nil }
        let candidates = available.filter { $0.primary == primary }
        if primary == "zh" {
            let traditional = parts.contains("hant") || parts.contains { ["tw", "hk", "mo"].contains($0) }
            return traditional ? candidates.first { $0.key.contains("hant") } : candidates.first { !$0.key.contains("hant") }
        }
        return candidates.first
    }

    public static func < (lhs: Language, rhs: Language) -> Bool { lhs.tag < rhs.tag }

    public var description: String { tag }
}

/// How the language of a request is chosen: an explicit `?lang=`, then the cookie the
/// language picker set, then the browser's `Accept-Language` (best quality first), then the
/// operator's default.
public struct LanguageChoice: Sendable {
    /// The languages there are strings for.
    public let available: [Language]
    /// The language when nothing else decides (`branding.default_language`).
    public let fallback: Language

    /// A choice among `available`, falling back to `fallback`.
    public init(available: [Language], fallback: Language) {
        self.available = available
        self.fallback = fallback
    }

    /// The language for a request with these inputs.
    /// - Parameters:
    ///   - query: the `lang` query parameter.
    ///   - cookie: the language cookie's value.
    ///   - acceptLanguage: the `Accept-Language` header.
    public func choose(query: String?, cookie: String?, acceptLanguage: String?) -> Language {
        for explicit in [query, cookie] {
            if let explicit, let language = Language.matching(explicit, among: available) { return language }
        }
        for tag in Self.preferences(acceptLanguage ?? "") {
            if let language = Language.matching(tag, among: available) { return language }
        }
        return fallback
    }

    /// The tags of an `Accept-Language` header, best first (RFC 9110 §12.5.4): a tag
    /// without `q` is worth 1, `q=0` means "not this one", and equal qualities keep their
    /// order. A malformed quality counts as 0.
    public static func preferences(_ header: String) -> [String] {
        var ranked: [(tag: String, quality: Double, position: Int)] = []
        for (position, item) in header.split(separator: ",").prefix(32).enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty, tag.count <= 35 else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)).flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
            }
            if quality > 0 { ranked.append((tag, quality, position)) }
        }
        return ranked.sorted { $0.quality != $1.quality ? $0.quality > $1.quality : $0.position < $1.position }.map(\.tag)
    }
}
