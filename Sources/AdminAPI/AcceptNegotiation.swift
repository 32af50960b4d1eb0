import Foundation
import HTTPTypes

/// Which media types an `Accept` header admits (RFC 9110 §12.5.1), decided before an
/// operation runs: the generated server checks `Accept` only when it encodes the answer,
/// after the change is made, so a refused `Accept` must be refused here or it changes
/// something and then fails.
struct AcceptHeader: Sendable {
    /// One media range and its weight.
    struct Range: Sendable {
        let type: Substring
        let subtype: Substring
        let quality: Double

        /// How specific the range is: `*/*` 0, `type/*` 1, `type/subtype` 2.
        var specificity: Int { type == "*" ? 0 : subtype == "*" ? 1 : 2 }

        func matches(type: Substring, subtype: Substring) -> Bool {
            (self.type == "*" || self.type == type) && (self.subtype == "*" || self.subtype == subtype)
        }
    }

    let ranges: [Range]

    /// Reads every `Accept` field of a request; ranges that do not parse are left out.
    init(_ fields: HTTPFields) {
        ranges = fields[values: .accept].flatMap { $0.split(separator: ",") }.compactMap(Self.range)
    }

    private static func range(_ text: Substring) -> Range? {
        var parameters = text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased()[...] }
        guard let media = parameters.first else { return nil }
        parameters.removeFirst()
        let parts = media.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, parts[0] != "*" || parts[1] == "*" else { return nil }
        var quality = 1.0
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == "q" else { continue }
            // RFC 9110 §12.4.2: 0 to 1 with at most three decimals; anything else is unreadable.
            guard let value = Double(pair[1].trimmingCharacters(in: .whitespaces)), (0...1).contains(value) else { return nil }
            quality = value
        }
        return Range(type: parts[0], subtype: parts[1], quality: quality)
    }

    /// Whether `mediaType` (`application/json`) is acceptable: no readable range at all
    /// admits anything; otherwise the most specific range that matches decides, and a weight
    /// of 0 refuses (`application/json;q=0`).
    func admits(_ mediaType: String) -> Bool {
        guard !ranges.isEmpty else { return true }
        let parts = mediaType.split(separator: "/")
        guard parts.count == 2 else { return false }
        let matching = ranges.filter { $0.matches(type: parts[0], subtype: parts[1]) }
        guard let best = matching.max(by: { $0.specificity < $1.specificity }) else { return false }
        let decisive = matching.filter { $0.specificity == best.specificity }
        return decisive.contains { $0.quality > 0 }
    }
}
