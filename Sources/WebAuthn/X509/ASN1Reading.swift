import SwiftASN1

/// Reading helpers over swift-asn1's node tree. Every helper checks the tag it expects and
/// throws a message that names the field, so a malformed certificate says where it broke.
enum ASN1Reading {
    /// Parses DER into a node tree; the node structure (tags and lengths) must be strict DER.
    static func parse(_ bytes: ArraySlice<UInt8>, _ what: String) throws(WebAuthnError) -> ASN1Node {
        do {
            return try DER.parse(bytes)
        } catch {
            throw malformed("\(what) is not DER: \(error)")
        }
    }

    /// The children of a constructed node with the given tag.
    static func children(_ node: ASN1Node, _ identifier: ASN1Identifier, _ what: String) throws(WebAuthnError) -> [ASN1Node] {
        guard node.identifier == identifier, case .constructed(let collection) = node.content else {
            throw malformed("\(what) must be a constructed \(identifier), found \(node.identifier)")
        }
        return Array(collection)
    }

    /// The content bytes of a primitive node with the given tag.
    static func primitive(_ node: ASN1Node, _ identifier: ASN1Identifier, _ what: String) throws(WebAuthnError) -> ArraySlice<UInt8> {
        guard node.identifier == identifier, case .primitive(let bytes) = node.content else {
            throw malformed("\(what) must be a primitive \(identifier), found \(node.identifier)")
        }
        return bytes
    }

    /// An OBJECT IDENTIFIER in dotted form.
    static func objectIdentifier(_ node: ASN1Node, _ what: String) throws(WebAuthnError) -> String {
        do {
            return try ASN1ObjectIdentifier(derEncoded: node).description
        } catch {
            throw malformed("\(what) is not an object identifier")
        }
    }

    /// The contents of an OCTET STRING.
    static func octetString(_ node: ASN1Node, _ what: String) throws(WebAuthnError) -> ArraySlice<UInt8> {
        try primitive(node, .octetString, what)
    }

    /// The bytes of a BIT STRING with no unused bits.
    static func bitStringBytes(_ node: ASN1Node, _ what: String) throws(WebAuthnError) -> ArraySlice<UInt8> {
        do {
            let bits = try ASN1BitString(derEncoded: node)
            guard bits.paddingBits == 0 else { throw malformed("\(what) has \(bits.paddingBits) unused bits") }
            return bits.bytes
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw malformed("\(what) is not a BIT STRING")
        }
    }

    /// The bytes of a certificate's signature BIT STRING. The unused-bits count is
    /// ignored: some YubiKey U2F attestation certificates declare 2 unused bits in an RSA
    /// signature whose 256 bytes are all significant. The bytes are verified as they are,
    /// so a wrong count can only make a signature fail, never pass.
    static func signatureBytes(_ node: ASN1Node, _ what: String) throws(WebAuthnError) -> ArraySlice<UInt8> {
        let content = try primitive(node, .bitString, what)
        guard let unusedBits = content.first, unusedBits < 8 else {
            throw malformed("\(what) is not a BIT STRING")
        }
        return content.dropFirst()
    }

    /// A BOOLEAN. Both DER (0x00/0xFF) and BER (any non-zero) true values are read; the
    /// caller decides what the value means.
    static func boolean(_ node: ASN1Node, _ what: String) throws(WebAuthnError) -> Bool {
        let bytes = try primitive(node, .boolean, what)
        guard bytes.count == 1, let value = bytes.first else { throw malformed("\(what) must be one byte") }
        return value != 0
    }

    /// A small non-negative INTEGER (versions, path lengths, enumerations).
    static func smallInteger(_ node: ASN1Node, _ what: String, identifier: ASN1Identifier = .integer) throws(WebAuthnError) -> Int {
        let bytes = try primitive(node, identifier, what)
        guard !bytes.isEmpty, bytes.count <= 8, let first = bytes.first, first & 0x80 == 0 else {
            throw malformed("\(what) must be a small non-negative integer")
        }
        return bytes.reduce(0) { $0 << 8 | Int($1) }
    }

    /// The only child of an EXPLICIT context-specific tag.
    static func explicitChild(_ node: ASN1Node, _ what: String) throws(WebAuthnError) -> ASN1Node {
        guard node.identifier.tagClass == .contextSpecific, case .constructed(let collection) = node.content else {
            throw malformed("\(what) must be an explicitly tagged value")
        }
        let children = Array(collection)
        guard children.count == 1, let child = children.first else {
            throw malformed("\(what) must hold exactly one value, found \(children.count)")
        }
        return child
    }

    static func malformed(_ reason: String) -> WebAuthnError {
        WebAuthnError(.attestationInvalid, reason)
    }
}

extension ASN1Identifier {
    /// A context-specific tag `[number]`.
    static func context(_ number: UInt) -> ASN1Identifier {
        ASN1Identifier(tagWithNumber: number, tagClass: .contextSpecific)
    }
}
