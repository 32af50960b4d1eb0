public import CBOR

/// An attestation object (WebAuthn L3 §6.5.4): the format, its statement and the
/// authenticator data, decoded from CBOR with the raw bytes of each part kept.
public struct AttestationObject: Sendable {
    /// The statement format.
    public let format: AttestationFormat
    /// The statement, left as CBOR for the format's verifier.
    public let statement: CBORNode
    /// The parsed authenticator data.
    public let authenticatorData: AuthenticatorData

    /// Decodes an attestation object.
    public init(bytes: some Collection<UInt8>) throws(WebAuthnError) {
        let node: CBORNode
        do {
            node = try CBORDecoder().decode(Array(bytes))
        } catch {
            throw .cbor(error, in: "attestationObject")
        }
        guard case .map = node.value else {
            throw WebAuthnError(.malformedCBOR, "attestationObject must be a map, found a \(node.value.typeName)")
        }
        guard let fmtNode = node[textKey: "fmt"], case .text(let fmt) = fmtNode.value else {
            throw WebAuthnError(.malformedCBOR, "attestationObject.fmt is missing or not a text string")
        }
        guard let statement = node[textKey: "attStmt"] else {
            throw WebAuthnError(.malformedCBOR, "attestationObject.attStmt is missing")
        }
        guard let authDataNode = node[textKey: "authData"], case .bytes(let authData) = authDataNode.value else {
            throw WebAuthnError(.malformedCBOR, "attestationObject.authData is missing or not a byte string")
        }
        self.format = AttestationFormat(rawValue: fmt)
        self.statement = statement
        self.authenticatorData = try AuthenticatorData(bytes: authData)
    }
}
