import WebAuthn

/// Writes JSON (RFC 8259) straight into bytes, for the documents every login produces:
/// token claims and token responses.
///
/// `JSONEncoder` builds them through `Codable`'s containers, boxing every value; for the
/// few fixed shapes on the login path that costs more than the ES256 signature over them.
/// Optional members that are `nil` are left out, as `JSONEncoder` leaves them out, so a
/// document written here decodes with the same `Codable` type.
public struct JSONWriter: Sendable {
    /// The document so far.
    public fileprivate(set) var bytes: [UInt8] = []

    /// Starts empty, with room for `capacity` bytes.
    public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    /// Writes an object whose members `body` adds.
    public mutating func object(_ body: (inout JSONObjectWriter) -> Void) {
        // The bytes move into the object writer and back, so appending never copies them.
        var object = JSONObjectWriter(writer: self)
        self = JSONWriter(capacity: 0)
        object.writer.bytes.append(UInt8(ascii: "{"))
        body(&object)
        object.writer.bytes.append(UInt8(ascii: "}"))
        self = object.writer
    }

    /// Writes a string, escaped.
    public mutating func string(_ text: String) {
        JSONString.append(text, to: &bytes)
    }

    /// Writes an integer.
    public mutating func integer(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes `true` or `false`.
    public mutating func boolean(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes an array of strings.
    public mutating func strings(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes an array whose elements `element` writes.
    public mutating func array<Element>(_ elements: [Element], _ element: (Element, inout JSONWriter) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            element(value, &self)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends bytes that are already a JSON value.
    public mutating func raw(_ json: some Sequence<UInt8>) {
        bytes.append(contentsOf: json)
    }
}

/// The members of one object being written; see ``JSONWriter/object(_:)``.
public struct JSONObjectWriter {
    fileprivate var writer: JSONWriter
    private var isFirst = true

    fileprivate init(writer: JSONWriter) { self.writer = writer }

    /// A member whose value `body` writes.
    public mutating func member(_ name: String, _ body: (inout JSONWriter) -> Void) {
        if !isFirst { writer.bytes.append(UInt8(ascii: ",")) }
        isFirst = false
        writer.string(name)
        writer.bytes.append(UInt8(ascii: ":"))
        body(&writer)
    }

    /// A string member; left out when `nil`.
    public mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        member(name) { $0.string(value) }
    }

    /// An integer member; left out when `nil`.
    public mutating func member(_ name: String, _ value: Int64?) {
        guard let value else { return }
        member(name) { $0.integer(value) }
    }

    /// A boolean member; left out when `nil`.
    public mutating func member(_ name: String, _ value: Bool?) {
        guard let value else { return }
        member(name) { $0.boolean(value) }
    }

    /// An array-of-strings member; left out when `nil`.
    public mutating func member(_ name: String, _ values: [String]?) {
        guard let values else { return }
        member(name) { $0.strings(values) }
    }
}
