/// CLDR's plural categories (https://cldr.unicode.org/index/cldr-spec/plural-rules): which
/// form of a sentence a count takes. English has two, Japanese and Chinese one, Arabic six.
public enum PluralCategory: String, Sendable, CaseIterable, Codable {
    case zero, one, two, few, many, other

    /// The category of the whole number `count` in `language`, by CLDR's cardinal rules
    /// (v46) for the integers of the languages Latchkey ships, and the `one`/`other` rule
    /// of English for any other. Counts on the pages are never fractional, so the rules'
    /// decimal operands (`v`, `f`, `t`) are zero throughout.
    public static func of(_ count: Int, in language: Language) -> PluralCategory {
        let n = count.magnitude
        switch language.primary {
        case "ja", "zh", "ko", "th", "vi", "id", "ms":
            return .other
        case "fr":
            // one: i = 0,1; many: e = 0 and i != 0 and i % 1000000 = 0.
            if n <= 1 { return .one }
            return n % 1_000_000 == 0 ? .many : .other
        case "pt" where language.tag.lowercased() != "pt-pt":
            // Brazilian Portuguese: one: i = 0..1; many as French. (European Portuguese has
            // English's one/other, with many.)
            if n <= 1 { return .one }
            return n % 1_000_000 == 0 ? .many : .other
        case "es", "it":
            // one: n = 1; many: e = 0 and i != 0 and i % 1000000 = 0.
            if n == 1 { return .one }
            return n != 0 && n % 1_000_000 == 0 ? .many : .other
        case "ar":
            // zero: n = 0; one: n = 1; two: n = 2; few: n % 100 = 3..10; many: n % 100 = 11..99.
            switch n {
            case 0: return .zero
            case 1: return .one
            case 2: return .two
            default:
                switch n % 100 {
                case 3...10: return .few
                case 11...99: return .many
                default: return .other
                }
            }
        default:
            // en, de, nl and most others: one: i = 1 and v = 0.
            return n == 1 ? .one : .other
        }
    }

    /// The categories a language's plural entries must give (`other` is always among them).
    public static func required(in language: Language) -> Set<PluralCategory> {
        switch language.primary {
        case "ja", "zh", "ko", "th", "vi", "id", "ms": return [.other]
        case "ar": return [.zero, .one, .two, .few, .many, .other]
        default: return [.one, .other]
        }
    }
}
