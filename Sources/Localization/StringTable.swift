public import Foundation

/// One language's strings, read from a string catalog (`.xcstrings`, the JSON format Xcode
/// and translation tools read and write). SwiftPM compiles catalogs only on Apple
/// platforms, so Latchkey reads the JSON itself, everywhere alike.
///
/// A file holds one language: the one its name says (`de.xcstrings`). Each key is a plain
/// string unit, or plural variations keyed by CLDR category.
public struct StringTable: Sendable {
    /// One key's value.
    public enum Entry: Sendable, Equatable {
        case text(String)
        case plural([PluralCategory: String])

        /// Every form of the value, for checks.
        public var forms: [String] {
            switch self {
            case .text(let text): [text]
            case .plural(let forms): PluralCategory.allCases.compactMap { forms[$0] }
            }
        }
    }

    /// Why a catalog could not be read.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The language of the strings.
    public let language: Language
    /// The values by key.
    public internal(set) var entries: [String: Entry]
    /// The translators' notes by key (the English file carries them).
    public let comments: [String: String]

    /// Reads a catalog's JSON. The localization for `language` is used; a file that holds
    /// one localization under another tag (`pt` in `pt-BR.xcstrings`) is read as that one.
    /// - Throws: ``Failure`` naming the file and key when the JSON is not a catalog.
    public init(catalog data: Data, language: Language, file: String) throws {
        self.language = language
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw Failure(description: "\(file) is not a string catalog (.xcstrings JSON): \(error)")
        }
        var entries: [String: Entry] = [:], comments: [String: String] = [:]
        for (key, item) in document.strings {
            if let comment = item.comment { comments[key] = comment }
            guard let localizations = item.localizations, !localizations.isEmpty else { continue }
            let localization = localizations.first { $0.key.lowercased() == language.tag.lowercased() }?.value
                ?? (localizations.count == 1 ? localizations.first?.value : nil)
            guard let localization else { continue }
            if let unit = localization.stringUnit {
                entries[key] = .text(unit.value)
            } else if let plural = localization.variations?.plural {
                var forms: [PluralCategory: String] = [:]
                for (name, variation) in plural {
                    guard let category = PluralCategory(rawValue: name) else {
                        throw Failure(description: "\(file): \(key) has the plural form \"\(name)\", which is not a CLDR category")
                    }
                    forms[category] = variation.stringUnit.value
                }
                guard forms[.other] != nil else { throw Failure(description: "\(file): \(key) has no \"other\" plural form") }
                entries[key] = .plural(forms)
            }
        }
        self.entries = entries
        self.comments = comments
    }

    /// An empty table.
    public init(language: Language) {
        self.language = language
        self.entries = [:]
        self.comments = [:]
    }

    // The parts of the catalog format Latchkey reads; anything else in a file is ignored.
    private struct Document: Decodable {
        let strings: [String: Item]
    }
    private struct Item: Decodable {
        let comment: String?
        let localizations: [String: Localization]?
    }
    private struct Localization: Decodable {
        let stringUnit: Unit?
        let variations: Variations?
    }
    private struct Variations: Decodable {
        let plural: [String: Variation]?
    }
    private struct Variation: Decodable {
        let stringUnit: Unit
    }
    private struct Unit: Decodable {
        let value: String
    }
}

extension StringTable.Entry {
    /// The `{name}` placeholders the value uses, in every form: a translation must use the
    /// same ones as English (a plural form may leave out `{count}`, as "one" often does).
    public var placeholders: Set<String> {
        Set(forms.flatMap(Placeholders.names(in:)))
    }
}

/// `{name}` placeholders: a name of letters, digits and underscores between braces.
enum Placeholders {
    static func names(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            let name = after[..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) { names.append(String(name)) }
            rest = after[after.index(after: close)...]
        }
        return names
    }

    /// `text` with each `{name}` (or, with other delimiters, `{{name}}`) that has a value
    /// replaced by it, in one pass; anything else is kept as written. Values are not
    /// scanned again, so a value cannot inject a placeholder.
    static func fill(_ text: String, _ values: [String: String], open: String = "{", close: String = "}") -> String {
        // Most strings have no placeholder: a byte scan, not a walk by grapheme.
        guard !values.isEmpty, let first = open.utf8.first, text.utf8.contains(first) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 32)
        var rest = Substring(text)
        while let opening = rest.firstRange(of: open) {
            result += rest[..<opening.lowerBound]
            let after = rest[opening.upperBound...]
            guard let closing = after.firstRange(of: close) else {
                rest = rest[opening.lowerBound...]
                break
            }
            if let value = values[String(after[..<closing.lowerBound])] {
                result += value
            } else {
                result += rest[opening.lowerBound..<closing.upperBound]
            }
            rest = after[closing.upperBound...]
        }
        return result + rest
    }
}
