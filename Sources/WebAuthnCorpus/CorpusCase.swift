public import Foundation

/// One verification case in the corpus schema (`webauthn-vectors.json`).
///
/// Only the members a verifier may use are decoded: `expected`, `response`,
/// `credentialPublicKey`, `priorSignCount`, `timeOverride`, `suggestedVerificationTime`,
/// `skipSafetyNetTimestampCheck` and `trustAnchorsPEM`. The case's `verdict`, `kind` and `format` are deliberately not read,
/// so the outcome cannot depend on them.
public struct CorpusCase: Decodable, Sendable {
    /// The case identifier, echoed in the output.
    public let id: String
    /// What the relying party expects.
    public let expected: Expected
    /// The client's response JSON, decoded later by the WebAuthn wire types.
    public let response: JSONValue
    /// For authentications: the stored COSE public key, base64url.
    public let credentialPublicKey: String?
    /// For authentications: the stored signature counter.
    public let priorSignCount: UInt32?
    /// The instant the upstream test pinned its clock to.
    public let timeOverride: String?
    /// An instant at which every certificate in the case is valid.
    public let suggestedVerificationTime: String?
    /// Trust anchors for the attestation, as PEM.
    public let trustAnchorsPEM: [String]?
    /// The upstream test turned SafetyNet's `timestampMs` freshness check off.
    public let skipSafetyNetTimestampCheck: Bool?

    /// The relying party's expectations for a case.
    public struct Expected: Decodable, Sendable {
        /// The challenge exactly as it must appear in clientDataJSON.
        public let challenge: String
        /// The allowed origins.
        public let origin: OneOrMany
        /// The allowed RP IDs.
        public let rpId: OneOrMany
        /// Whether UV is required.
        public let requireUserVerification: Bool?
        /// Whether UP is required (false for a conditional create).
        public let requireUserPresence: Bool?
        /// Allowed top-level origins for cross-origin ceremonies.
        public let topOrigin: OneOrMany?
        /// Whether cross-origin ceremonies are allowed.
        public let allowCrossOrigin: Bool?
        /// Accepted clientDataJSON types, overriding `webauthn.create` / `webauthn.get`.
        public let expectedType: OneOrMany?
        /// The requested algorithms (`pubKeyCredParams`).
        public let supportedAlgs: [Int64]?
        /// Whether SafetyNet's ctsProfileMatch must be true (default true).
        public let enforceSafetyNetCtsProfileMatch: Bool?
    }

    /// The instant to judge certificates at: `timeOverride`, else
    /// `suggestedVerificationTime`, else `now`.
    public func verificationTime(now: Date) -> Date {
        for text in [timeOverride, suggestedVerificationTime].compactMap({ $0 }) {
            if let date = Self.parseTimestamp(text) { return date }
        }
        return now
    }

    /// Parses RFC 3339 timestamps with or without fractional seconds.
    /// Fractional seconds are tried first and kept: a SafetyNet timestamp pinned to the
    /// millisecond must not appear to lie in the future of its own instant.
    static func parseTimestamp(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(text, strategy: .iso8601)
    }
}

/// A corpus file: an object with `vectors`, or a bare array of cases.
public struct CorpusFile: Decodable, Sendable {
    /// Each entry decoded on its own, so one malformed case does not hide the others.
    public let entries: [Entry]

    /// A case, or the reason it could not be read.
    public enum Entry: Decodable, Sendable {
        case valid(CorpusCase)
        case malformed(id: String?, reason: String)

        public init(from decoder: any Decoder) throws {
            do {
                self = .valid(try CorpusCase(from: decoder))
            } catch {
                let id = try? decoder.container(keyedBy: IDKey.self).decode(String.self, forKey: .id)
                self = .malformed(id: id, reason: CorpusFile.describe(error))
            }
        }

        private enum IDKey: String, CodingKey { case id }
    }

    public init(from decoder: any Decoder) throws {
        if let array = try? decoder.singleValueContainer().decode([Entry].self) {
            entries = array
        } else {
            entries = try decoder.container(keyedBy: Keys.self).decode([Entry].self, forKey: .vectors)
        }
    }

    private enum Keys: String, CodingKey { case vectors }

    /// Decodes a corpus from JSON bytes.
    public static func decode(_ data: Data) throws -> CorpusFile {
        try JSONDecoder().decode(CorpusFile.self, from: data)
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing member \((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "member \(context.codingPath.map(\.stringValue).joined(separator: ".")) is invalid: \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
