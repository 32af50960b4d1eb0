import Foundation

/// Every language's strings: the ten Latchkey ships, with the operator's additions and
/// overrides from `branding.strings_dir` on top.
public struct StringCatalog: Sendable {
    /// The tables by language.
    public private(set) var tables: [Language: StringTable]

    /// The languages there are strings for, English first and then by tag.
    public var languages: [Language] {
        [Language.english] + tables.keys.filter { $0 != .english }.sorted()
    }

    /// The English table: the reference every other language is checked against, and the
    /// fallback for a key a language lacks.
    public var english: StringTable { tables[.english] ?? StringTable(language: .english) }

    /// The built-in catalogs.
    /// - Throws: ``StringTable/Failure`` when a bundled file is missing or unreadable (a
    ///   broken build, not an operator's mistake).
    public static func builtIn() throws -> StringCatalog {
        var tables: [Language: StringTable] = [:]
        for language in Language.builtIn {
            guard let url = Bundle.module.url(forResource: language.tag, withExtension: "xcstrings", subdirectory: "Strings") else {
                throw StringTable.Failure(description: "the built-in strings for \(language) are missing from the bundle")
            }
            tables[language] = try StringTable(catalog: try Data(contentsOf: url), language: language, file: url.lastPathComponent)
        }
        return StringCatalog(tables: tables)
    }

    /// The built-in catalogs, read once per process: every page and mail uses them.
    public static let shared: StringCatalog = {
        do {
            return try builtIn()
        } catch {
            fatalError("\(error)")
        }
    }()

    /// A catalog of the given tables (tests build small ones).
    public init(tables: [Language: StringTable]) { self.tables = tables }

    /// The catalog with each `<tag>.xcstrings` file in `directory` laid over it: a file for
    /// a shipped language replaces the keys it gives, and a file for another language adds
    /// that language (keys it lacks fall back to English).
    /// - Returns: The catalog, and warnings for keys English does not have (ignored: no page
    ///   would show them).
    /// - Throws: ``StringTable/Failure`` for a file that cannot be read, and for a value
    ///   whose placeholders differ from English's (the page would show a raw `{name}` or
    ///   lose a value).
    public func overlaid(with directory: String) throws -> (catalog: StringCatalog, warnings: [String]) {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".xcstrings") }.sorted()
        } catch {
            throw StringTable.Failure(description: "branding.strings_dir \(directory) cannot be read: \(error.localizedDescription)")
        }
        var result = self, warnings: [String] = []
        for file in files {
            let tag = String(file.dropLast(".xcstrings".count))
            guard Self.isValidTag(tag) else {
                throw StringTable.Failure(description: "\(file) in branding.strings_dir: \"\(tag)\" is not a language tag such as de or pt-BR")
            }
            let language = Language.matching(tag, among: languages).flatMap { $0.tag.lowercased() == tag.lowercased() ? $0 : nil } ?? Language(tag)
            let path = (directory as NSString).appendingPathComponent(file)
            guard let data = FileManager.default.contents(atPath: path) else { throw StringTable.Failure(description: "\(path) cannot be read") }
            let overlay = try StringTable(catalog: data, language: language, file: path)
            var table = result.tables[language] ?? StringTable(language: language)
            for (key, entry) in overlay.entries.sorted(by: { $0.key < $1.key }) {
                guard let reference = english.entries[key] else {
                    warnings.append("\(file): \"\(key)\" is not a key Latchkey uses; it is ignored")
                    continue
                }
                let missing = reference.placeholders.subtracting(entry.placeholders)
                let unknown = entry.placeholders.subtracting(reference.placeholders)
                guard missing.isEmpty, unknown.isEmpty else {
                    throw StringTable.Failure(
                        description: "\(file): \"\(key)\" must use the placeholders \(reference.placeholders.sorted().map { "{\($0)}" }.joined(separator: " ")), "
                            + "as English does; it \(unknown.isEmpty ? "lacks" : "adds") \((unknown.isEmpty ? missing : unknown).sorted().map { "{\($0)}" }.joined(separator: " "))"
                    )
                }
                table.entries[key] = entry
            }
            // The picker names each language in itself: a language of the operator's own must.
            guard table.entries["language.name"] != nil else {
                throw StringTable.Failure(description: "\(file) adds the language \(tag): give its own name as \"language.name\", which the language picker shows")
            }
            result.tables[language] = table
        }
        return (result, warnings)
    }

    /// The strings of `language`, with English behind them.
    public func strings(_ language: Language) -> Strings {
        Strings(language: language, table: tables[language], english: english)
    }

    /// A BCP 47 tag's shape: letters, digits and hyphens, starting with two or three letters.
    static func isValidTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
