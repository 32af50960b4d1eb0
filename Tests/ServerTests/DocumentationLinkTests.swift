import Foundation
import Testing

/// The README and the pages under `docs/` link to each other and to the repository's files:
/// every relative link names a file that exists, every `#fragment` into a Markdown file names
/// one of its headings (as GitHub makes anchors of them), and every page in `docs/` is
/// reachable from the README. Links inside fenced code blocks and code spans are not links.
@Suite("Documentation: links")
struct DocumentationLinkTests {
    static let root = PostgresFixture.packageRoot

    @Test func everyRelativeLinkResolves() throws {
        let files = try Self.markdownFiles()
        #expect(files.contains("README.md"))
        #expect(files.count > 1, "no pages under docs/")
        for file in files {
            let url = Self.root.appendingPathComponent(file)
            for target in try Self.links(in: url) where !Self.isExternal(target) {
                let (path, fragment) = Self.split(target)
                let destination = path.isEmpty
                    ? url
                    : url.deletingLastPathComponent().appendingPathComponent(path.removingPercentEncoding ?? path).standardizedFileURL
                guard FileManager.default.fileExists(atPath: destination.path) else {
                    Issue.record("\(file): \(target)")
                    continue
                }
                if let fragment, destination.pathExtension == "md",
                   try !Self.anchors(in: destination).contains(fragment.removingPercentEncoding ?? fragment) {
                    Issue.record("\(file): \(target)")
                }
            }
        }
    }

    @Test func everyDocsPageIsLinkedFromTheReadme() throws {
        let readme = Self.root.appendingPathComponent("README.md")
        let linked = try Set(Self.links(in: readme).filter { !Self.isExternal($0) && !$0.hasPrefix("#") }.map {
            Self.root.appendingPathComponent(Self.split($0).path).standardizedFileURL.path
        })
        let docs = Self.root.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
        #expect(!pages.isEmpty, "no pages under docs/")
        for page in pages where !linked.contains(docs.appendingPathComponent(page).standardizedFileURL.path) {
            Issue.record("README.md does not link docs/\(page)")
        }
    }

    // MARK: - Reading Markdown

    /// `README.md` and every `.md` file under `docs/`, relative to the package root.
    static func markdownFiles() throws -> [String] {
        var files = ["README.md"]
        let docs = root.appendingPathComponent("docs")
        guard let enumerator = FileManager.default.enumerator(atPath: docs.path) else { return files }
        for case let path as String in enumerator where path.hasSuffix(".md") {
            files.append("docs/" + path)
        }
        return files.sorted()
    }

    static func isExternal(_ target: String) -> Bool {
        let lowercased = target.lowercased()
        return ["http:", "https:", "mailto:"].contains { lowercased.hasPrefix($0) }
    }

    /// A link target's path and its fragment (without the `#`), if it has one.
    static func split(_ target: String) -> (path: String, fragment: String?) {
        guard let hash = target.firstIndex(of: "#") else { return (target, nil) }
        return (String(target[..<hash]), String(target[target.index(after: hash)...]))
    }

    /// The lines of a Markdown file outside fenced code blocks.
    static func proseLines(of url: URL) throws -> [String] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var lines: [String] = []
        var fence: String?
        for line in text.components(separatedBy: "\n") {
            let trimmed = String(line.drop { $0 == " " })
            if let open = fence {
                if trimmed.hasPrefix(open) { fence = nil }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix(3))
                continue
            }
            lines.append(line)
        }
        return lines
    }

    /// A line with its code spans (`` `…` ``, of any number of backticks) blanked out.
    static func withoutCodeSpans(_ line: String) -> String {
        let characters = Array(line)
        var result = ""
        var index = 0
        while index < characters.count {
            guard characters[index] == "`" else {
                result.append(characters[index])
                index += 1
                continue
            }
            var run = 0
            while index + run < characters.count, characters[index + run] == "`" { run += 1 }
            // The closing run has exactly as many backticks as the opening one.
            var close = index + run
            var found: Int?
            while close < characters.count {
                guard characters[close] == "`" else { close += 1; continue }
                var length = 0
                while close + length < characters.count, characters[close + length] == "`" { length += 1 }
                if length == run { found = close; break }
                close += length
            }
            if let found {
                result.append(" ")
                index = found + run
            } else {
                result.append(String(repeating: "`", count: run))
                index += run
            }
        }
        return result
    }

    /// The targets of the inline links `[text](target)` (and images) outside code.
    static func links(in url: URL) throws -> [String] {
        var targets: [String] = []
        for line in try proseLines(of: url) {
            let characters = Array(withoutCodeSpans(line))
            var index = 0
            while index < characters.count {
                guard characters[index] == "[" else { index += 1; continue }
                // [text]: no `]` or line break inside the text.
                var close = index + 1
                while close < characters.count, characters[close] != "]" { close += 1 }
                guard close + 1 < characters.count, characters[close + 1] == "(" else { index += 1; continue }
                // (target) or (target "title"): the target has no spaces or `)`.
                var end = close + 2
                while end < characters.count, characters[end] != ")", !characters[end].isWhitespace { end += 1 }
                let target = String(characters[(close + 2)..<end])
                var after = end
                if after < characters.count, characters[after].isWhitespace {
                    while after < characters.count, characters[after].isWhitespace { after += 1 }
                    if after < characters.count, characters[after] == "\"" {
                        after += 1
                        while after < characters.count, characters[after] != "\"" { after += 1 }
                        after += 1
                    }
                }
                guard !target.isEmpty, after < characters.count, characters[after] == ")" else { index += 1; continue }
                targets.append(target)
                index = after + 1
            }
        }
        return targets
    }

    /// The anchors GitHub makes of a Markdown file's headings: the heading's text, lower-cased,
    /// with everything but letters, digits, spaces, `-` and `_` removed and spaces made `-`; a
    /// repeated one gets `-1`, `-2`, ….
    static func anchors(in url: URL) throws -> Set<String> {
        var anchors: Set<String> = []
        var seen: [String: Int] = [:]
        for line in try proseLines(of: url) {
            let indent = line.prefix { $0 == " " }.count
            guard indent <= 3 else { continue }
            let rest = line.dropFirst(indent)
            let hashes = rest.prefix { $0 == "#" }.count
            guard (1...6).contains(hashes) else { continue }
            let afterHashes = rest.dropFirst(hashes)
            guard afterHashes.isEmpty || afterHashes.first == " " || afterHashes.first == "\t" else { continue }
            var heading = afterHashes.trimmingCharacters(in: .whitespaces)
            // A closing sequence of #s, after a space, is not part of the heading.
            if heading.hasSuffix("#") {
                let opening = heading.reversed().drop { $0 == "#" }
                if opening.isEmpty {
                    heading = ""
                } else if opening.first == " " || opening.first == "\t" {
                    heading = String(opening.reversed()).trimmingCharacters(in: .whitespaces)
                }
            }
            let slug = slug(of: heading)
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// GitHub's anchor for a heading's Markdown text.
    static func slug(of heading: String) -> String {
        // Links keep their text only; code and emphasis marks are not part of the text.
        var text = ""
        let characters = Array(heading)
        var index = 0
        while index < characters.count {
            if characters[index] == "[", let close = characters[index...].firstIndex(of: "]"),
               close + 1 < characters.count, characters[close + 1] == "(",
               let end = characters[(close + 1)...].firstIndex(of: ")") {
                text += String(characters[(index + 1)..<close])
                index = end + 1
            } else {
                text.append(characters[index])
                index += 1
            }
        }
        return String(
            text.lowercased()
                .filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == " " }
                .map { $0 == " " ? "-" : $0 }
        )
    }
}
