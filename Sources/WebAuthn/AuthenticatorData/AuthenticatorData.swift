public import CBOR

/// Attested credential data (WebAuthn L3 §6.5.2): present in registrations.
public struct AttestedCredentialData: Sendable {
    /// The authenticator model.
    public let aaguid: AAGUID
    public let credentialID: [UInt8]
    /// The credential public key as a CBOR node that keeps its exact bytes.
    public let credentialPublicKey: CBORNode
}

/// Authenticator data (WebAuthn L3 §6.1), parsed by consuming slices of the raw bytes,
/// which are kept in ``rawBytes`` because signatures are made over them.
public struct AuthenticatorData: Sendable {
    /// The bytes exactly as received.
    public let rawBytes: [UInt8]
    /// SHA-256 of the RP ID the authenticator scoped the credential to.
    public let relyingPartyIDHash: [UInt8]
    public let flags: AuthenticatorFlags
    /// The signature counter; 0 means the authenticator does not keep one.
    public let signCount: UInt32
    /// Present when the AT flag is set.
    public let attestedCredentialData: AttestedCredentialData?
    /// Authenticator extension outputs, present when the ED flag is set.
    public let extensions: CBORNode?

    /// Parses authenticator data.
    /// - Throws: ``WebAuthnError/Code/malformedAuthenticatorData`` when the bytes are
    ///   truncated, contradict the AT/ED flags, or carry trailing bytes; the reason names
    ///   the field and the byte counts.
    public init(bytes: some Collection<UInt8>) throws(WebAuthnError) {
        let raw = Array(bytes)
        var input = raw[...]
        guard let rpIDHash = Bytes.pop(32, from: &input) else {
            throw Self.truncated("rpIdHash", needed: 32, available: raw.count)
        }
        guard let flagsByte = input.popFirst() else {
            throw Self.truncated("flags", needed: 1, available: 0)
        }
        guard let signCount = Bytes.popBigEndian(UInt32.self, from: &input) else {
            throw Self.truncated("signCount", needed: 4, available: input.count)
        }
        let flags = AuthenticatorFlags(rawValue: flagsByte)

        var attested: AttestedCredentialData?
        if flags.contains(.attestedCredentialData) {
            attested = try Self.parseAttestedCredentialData(&input)
        }

        var extensions: CBORNode?
        if flags.contains(.extensionData) {
            guard !input.isEmpty else {
                throw WebAuthnError(.malformedAuthenticatorData, "ED flag is set but no extension data follows")
            }
            do {
                let (node, rest) = try CBORDecoder().decodePrefix(input)
                guard case .map = node.value else {
                    throw WebAuthnError(.malformedAuthenticatorData, "extensions must be a CBOR map, found a \(node.value.typeName)")
                }
                extensions = node
                input = rest
            } catch let error as CBORError {
                throw .cbor(error, in: "authenticator data extensions")
            } catch let error as WebAuthnError {
                throw error
            } catch {
                throw WebAuthnError(.malformedAuthenticatorData, "extensions: \(error)")
            }
        }

        guard input.isEmpty else {
            throw WebAuthnError(
                .malformedAuthenticatorData,
                "\(input.count) trailing byte(s) after offset \(raw.count - input.count) (flags AT=\(flags.contains(.attestedCredentialData)) ED=\(flags.contains(.extensionData)))"
            )
        }

        self.rawBytes = raw
        self.relyingPartyIDHash = Array(rpIDHash)
        self.flags = flags
        self.signCount = signCount
        self.attestedCredentialData = attested
        self.extensions = extensions
    }

    private static func parseAttestedCredentialData(_ input: inout ArraySlice<UInt8>) throws(WebAuthnError) -> AttestedCredentialData {
        guard let aaguidBytes = Bytes.pop(16, from: &input), let aaguid = AAGUID(bytes: aaguidBytes) else {
            throw truncated("aaguid", needed: 16, available: input.count)
        }
        guard let length = Bytes.popBigEndian(UInt16.self, from: &input) else {
            throw truncated("credentialIdLength", needed: 2, available: input.count)
        }
        guard let credentialID = Bytes.pop(Int(length), from: &input) else {
            throw truncated("credentialId", needed: Int(length), available: input.count)
        }
        guard !input.isEmpty else {
            throw truncated("credentialPublicKey", needed: 1, available: 0)
        }
        let key: CBORNode
        do {
            (key, input) = try CBORDecoder().decodePrefix(input)
        } catch {
            throw .cbor(error, in: "credential public key in authenticator data")
        }
        return AttestedCredentialData(aaguid: aaguid, credentialID: Array(credentialID), credentialPublicKey: key)
    }

    private static func truncated(_ field: String, needed: Int, available: Int) -> WebAuthnError {
        WebAuthnError(.malformedAuthenticatorData, "truncated at \(field): needs \(needed) byte(s), \(available) remain")
    }
}
