public import CBOR
import Crypto
public import WebAuthn

/// Writes authenticator data (WebAuthn L3 §6.1) byte by byte, so that the software
/// authenticator and tests can produce exactly the structure they mean, including wrong
/// ones.
public struct AuthenticatorDataBuilder: Sendable {
    /// SHA-256 of the RP ID.
    public var relyingPartyIDHash: [UInt8]
    /// The flags. AT and ED are added automatically when the matching data is present.
    public var flags: AuthenticatorFlags
    /// The signature counter.
    public var signCount: UInt32
    /// Attested credential data for registrations.
    public var attestedCredential: AttestedCredential?
    /// Authenticator extension outputs.
    public var extensions: CBORItem?

    /// The attested credential data fields.
    public struct AttestedCredential: Sendable {
        /// The authenticator model.
        public var aaguid: AAGUID
        public var credentialID: [UInt8]
        /// The COSE_Key bytes.
        public var publicKey: [UInt8]

        public init(aaguid: AAGUID, credentialID: [UInt8], publicKey: [UInt8]) {
            self.aaguid = aaguid
            self.credentialID = credentialID
            self.publicKey = publicKey
        }
    }

    /// Starts authenticator data for an RP ID.
    public init(relyingPartyID: String, flags: AuthenticatorFlags = [.userPresent, .userVerified], signCount: UInt32 = 0) {
        self.relyingPartyIDHash = Array(SHA256.hash(data: Array(relyingPartyID.utf8)))
        self.flags = flags
        self.signCount = signCount
    }

    /// The encoded bytes.
    public func build() -> [UInt8] {
        var flags = self.flags
        if attestedCredential != nil { flags.insert(.attestedCredentialData) }
        if extensions != nil { flags.insert(.extensionData) }
        var bytes = relyingPartyIDHash
        bytes.append(flags.rawValue)
        bytes += withUnsafeBytes(of: signCount.bigEndian, Array.init)
        if let credential = attestedCredential {
            bytes += credential.aaguid.bytes
            bytes += withUnsafeBytes(of: UInt16(truncatingIfNeeded: credential.credentialID.count).bigEndian, Array.init)
            bytes += credential.credentialID
            bytes += credential.publicKey
        }
        if let extensions {
            bytes += CBOREncoder.encode(extensions)
        }
        return bytes
    }
}
