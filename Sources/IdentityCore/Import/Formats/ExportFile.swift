import Foundation

/// The JSON objects of an export file: one array of objects, or one object per line
/// (NDJSON), as identity servers export users. A line that does not parse is one failed
/// record; the others still import.
enum ExportFile {
    /// A record as JSON, before a format reads it.
    typealias Object = [String: Any]

    /// The file's objects; with `key`, a file that is one object holding its records in an
    /// array under `key` (a Keycloak realm's `users`) gives that array's. `firstLine` is the
    /// number of `data`'s first line, when it is a part of a file.
    static func objects(_ data: Data, listedUnder key: String? = nil, firstLine: Int = 1) -> [Result<Object, UnreadableRecord>] {
        guard let first = data.first(where: { !Character(UnicodeScalar($0)).isWhitespace }) else {
            return [.failure(UnreadableRecord(position: 1, sourceID: nil, reason: "the file is empty"))]
        }
        if first == UInt8(ascii: "[") {
            guard let array = try? JSONSerialization.jsonObject(with: data) as? [Any] else {
                return [.failure(UnreadableRecord(position: 1, sourceID: nil, reason: "the file starts a JSON array that does not parse (truncated, or not JSON)"))]
            }
            return elements(array)
        }
        // NDJSON starts with "{" too, but fails to parse as one object at its second line.
        if first == UInt8(ascii: "{"), let key, let object = (try? JSONSerialization.jsonObject(with: data)) as? Object, let array = object[key] as? [Any] {
            return elements(array)
        }
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
            .filter { $0.element.contains(where: { !Character(UnicodeScalar($0)).isWhitespace }) }
        return lines.enumerated().map { ordinal, line in
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.element))) as? Object else {
                return .failure(UnreadableRecord(position: ordinal + 1, sourceID: nil, reason: "line \(line.offset + firstLine) is not a JSON object (truncated, or not JSON)"))
            }
            return .success(object)
        }
    }

    private static func elements(_ array: [Any]) -> [Result<Object, UnreadableRecord>] {
        array.enumerated().map { index, element in
            guard let object = element as? Object else { return .failure(UnreadableRecord(position: index + 1, sourceID: nil, reason: "not a JSON object")) }
            return .success(object)
        }
    }

    /// The records of a file whose objects `read` turns into accounts, one per position.
    static func records(
        _ data: Data, listedUnder key: String? = nil, firstLine: Int = 1, _ read: (Object, _ position: Int) -> Result<ImportRecord, UnreadableRecord>
    ) -> [Result<ImportRecord, UnreadableRecord>] {
        objects(data, listedUnder: key, firstLine: firstLine).enumerated().map { index, object in object.flatMap { read($0, index + 1) } }
    }

    /// A timestamp in RFC 3339, with or without fractional seconds. Format styles are
    /// values made once: a formatter made per record cost most of a large import's time.
    static func date(_ value: Any?) -> Date? {
        guard let text = value as? String else { return nil }
        return (try? fractionalSeconds.parse(text)) ?? (try? wholeSeconds.parse(text))
    }

    private static let fractionalSeconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let wholeSeconds = Date.ISO8601FormatStyle()

    /// Bytes a JSON string holds in base64 (either alphabet, padded or not).
    static func bytes(_ value: Any?) -> [UInt8]? {
        (value as? String).flatMap { ImportedPasswordHash.base64(Substring($0)) }
    }

    /// A non-empty JSON object as text, keys sorted, for an account's metadata.
    static func objectText(_ value: Any?) -> String? {
        guard let object = value as? Object, !object.isEmpty,
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// A non-empty string.
    static func text(_ value: Any?) -> String? {
        guard let text = value as? String, !text.isEmpty else { return nil }
        return text
    }
}
