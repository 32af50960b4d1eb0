import SwiftASN1

/// An X.501 `Name` as a list of attributes, with the DER bytes it was read from.
///
/// Names are matched on their bytes first (what every real chain uses) and then
/// attribute by attribute, so an issuer written with the same attributes in the same
/// order still matches. The `SET OF` inside each RDN is not required to be sorted:
/// TPM certificates put several attributes in one unsorted set.
public struct X509Name: Sendable, Hashable, CustomStringConvertible {
    /// One attribute: its type OID in dotted form and its value as text (or hex when the
    /// value is not a string type).
    public struct Attribute: Sendable, Hashable {
        /// The attribute type, for example `2.5.4.3` (commonName).
        public let oid: String
        /// The attribute value.
        public let value: String
    }

    /// The attributes in encoding order, RDN by RDN.
    public let attributes: [Attribute]
    /// The DER bytes of the `Name`.
    public let derBytes: [UInt8]

    init(node: ASN1Node, _ what: String) throws(WebAuthnError) {
        var attributes: [Attribute] = []
        for rdn in try ASN1Reading.children(node, .sequence, what) {
            for pair in try ASN1Reading.children(rdn, .set, "\(what) RDN") {
                let parts = try ASN1Reading.children(pair, .sequence, "\(what) attribute")
                guard parts.count == 2 else {
                    throw ASN1Reading.malformed("\(what) attribute must have a type and a value")
                }
                let oid = try ASN1Reading.objectIdentifier(parts[0], "\(what) attribute type")
                attributes.append(Attribute(oid: oid, value: Self.text(of: parts[1])))
            }
        }
        self.attributes = attributes
        self.derBytes = Array(node.encodedBytes)
    }

    /// The values of every attribute of the given type.
    public func values(of oid: String) -> [String] {
        attributes.filter { $0.oid == oid }.map(\.value)
    }

    /// Whether this name and `other` name the same entity.
    public func matches(_ other: X509Name) -> Bool {
        derBytes == other.derBytes || attributes == other.attributes
    }

    /// Whether the name has no attributes (TPM attestation certificates have an empty subject).
    public var isEmpty: Bool { attributes.isEmpty }

    public var description: String {
        guard !attributes.isEmpty else { return "(empty name)" }
        return attributes.map { "\(Self.shortNames[$0.oid] ?? $0.oid)=\($0.value)" }.joined(separator: ", ")
    }

    static let commonName = "2.5.4.3"
    static let country = "2.5.4.6"
    static let organization = "2.5.4.10"
    static let organizationalUnit = "2.5.4.11"

    private static let shortNames = [
        "2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O", "2.5.4.11": "OU",
        "1.2.840.113549.1.9.1": "emailAddress",
    ]

    private static func text(of node: ASN1Node) -> String {
        let stringTags: [ASN1Identifier] = [.utf8String, .printableString, .ia5String, .teletexString, .visibleString, .bmpString, .universalString]
        if case .primitive(let bytes) = node.content, stringTags.contains(node.identifier) {
            if node.identifier == .bmpString {
                // UCS-2 big-endian.
                var units: [UInt16] = []
                var rest = bytes
                while let unit = Bytes.popBigEndian(UInt16.self, from: &rest) { units.append(unit) }
                return String(decoding: units, as: UTF16.self)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return "#" + Bytes.hex(node.encodedBytes)
    }
}
