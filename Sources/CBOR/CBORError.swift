/// An error raised while decoding CBOR.
///
/// Equality and hashing consider only ``code``, so callers and tests can match on the
/// kind of failure while the ``reason`` carries the detail (what was expected, what was
/// found, and the byte offset where decoding stopped).
public struct CBORError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable kind of a CBOR decoding failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable, snake_case name of the code.
        public let rawValue: String

        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// The input ended in the middle of an item.
        public static let truncated = Code("truncated")
        /// Bytes remain after the top-level item.
        public static let trailingBytes = Code("trailing_bytes")
        /// Items are nested deeper than the decoder's limit.
        public static let depthLimitExceeded = Code("depth_limit_exceeded")
        /// A declared length or element count cannot fit in the remaining input.
        public static let lengthExceedsInput = Code("length_exceeds_input")
        /// A map holds the same key twice.
        public static let duplicateMapKey = Code("duplicate_map_key")
        /// A text string is not valid UTF-8.
        public static let invalidUTF8 = Code("invalid_utf8")
        /// An indefinite-length item, which the CTAP2 canonical form forbids.
        public static let indefiniteLength = Code("indefinite_length")
        /// An integer or length that is not in its shortest form.
        public static let nonMinimalEncoding = Code("non_minimal_encoding")
        /// An initial byte that CBOR reserves or that is not well formed.
        public static let malformedItem = Code("malformed_item")
        /// A well-formed item whose type is not the one the caller required.
        public static let unexpectedType = Code("unexpected_type")

        public var description: String { rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// A human-readable explanation that names the offending bytes.
    public let reason: String
    /// The byte offset, from the start of the decoded input, where the failure was detected.
    public let offset: Int?

    public init(_ code: Code, _ reason: String, offset: Int? = nil) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        if let offset { return "CBORError.\(code) at offset \(offset): \(reason)" }
        return "CBORError.\(code): \(reason)"
    }

    public static func == (lhs: CBORError, rhs: CBORError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
