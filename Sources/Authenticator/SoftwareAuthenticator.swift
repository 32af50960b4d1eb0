import CBOR
public import Crypto
import Foundation
public import WebAuthn

/// A credential held by the software authenticator.
public struct SoftwareCredential: Sendable {
    public let credentialID: [UInt8]
    /// The RP ID the credential is scoped to.
    public let relyingPartyID: String
    /// The user handle from the creation options.
    public let userHandle: [UInt8]
    /// The account name from the creation options.
    public var userName: String
    public let privateKey: CredentialPrivateKey
    /// The signature counter; stays 0 for synced credentials.
    public var signCount: UInt32
    /// Whether the credential is a synced (backup eligible and backed up) passkey.
    public let isSynced: Bool
}

/// A software passkey provider: it creates credentials and signs assertions with the
/// flags and counters a real authenticator would use. It also plays the client's part,
/// writing clientDataJSON for the origin it is told it runs at.
public struct SoftwareAuthenticator: Sendable {
    /// Attestation the authenticator produces.
    public enum Attestation: Sendable {
        /// `none`.
        case none
        /// `packed` self attestation, signed with the credential key.
        case packedSelf
        /// `packed` basic attestation: `key` (a batch attestation key) signs, and `chain`
        /// holds its certificate first, then any intermediates, as DER.
        case packed(key: P256.Signing.PrivateKey, chain: [[UInt8]])
    }

    /// Errors the authenticator reports, as a platform would.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// The model identifier written into attested credential data.
    public var aaguid: AAGUID
    /// Which attestation to produce.
    public var attestation: Attestation
    /// Whether credentials are synced passkeys (BE=BS=1, counter 0) or device-bound
    /// (BE=BS=0, counter increments).
    public var createsSyncedCredentials: Bool
    /// Whether the user is verified (UV) on every ceremony.
    public var verifiesUser: Bool
    /// Whether the user is present (UP). A conditional create (an automatic passkey
    /// upgrade) makes its passkey without asking, so with UP clear.
    public var confirmsPresence = true
    /// How many random bytes a new credential's ID has. Conforming authenticators make at
    /// least 16; a test sets fewer to see a relying party refuse them.
    public var credentialIDLength = 16

    public init(aaguid: AAGUID = .zero, attestation: Attestation = .none, createsSyncedCredentials: Bool = false, verifiesUser: Bool = true) {
        self.aaguid = aaguid
        self.attestation = attestation
        self.createsSyncedCredentials = createsSyncedCredentials
        self.verifiesUser = verifiesUser
    }

    /// Creates a credential for creation options, as `navigator.credentials.create()` would.
    /// - Parameters:
    ///   - options: The relying party's creation options.
    ///   - origin: The origin the client runs at.
    ///   - algorithm: The algorithm to use; by default the first requested one this
    ///     authenticator supports, preferring ES256.
    /// - Returns: The response to send and the credential to keep.
    public func makeCredential(
        _ options: PublicKeyCredentialCreationOptionsJSON,
        origin: String,
        algorithm: COSEAlgorithmIdentifier? = nil
    ) throws -> (response: RegistrationResponseJSON, credential: SoftwareCredential) {
        try makeCredential(options, caller: .webPage(origin: origin), algorithm: algorithm)
    }

    /// Creates a credential for creation options on behalf of a web page or a native app.
    /// - Parameters:
    ///   - options: The relying party's creation options.
    ///   - caller: The page or app asking; it decides clientDataJSON's origin members.
    ///   - algorithm: The algorithm to use; by default the first requested one this
    ///     authenticator supports, preferring ES256.
    /// - Returns: The response to send and the credential to keep.
    public func makeCredential(
        _ options: PublicKeyCredentialCreationOptionsJSON,
        caller: Caller,
        algorithm: COSEAlgorithmIdentifier? = nil
    ) throws -> (response: RegistrationResponseJSON, credential: SoftwareCredential) {
        let origin = caller.origin
        let requested = options.pubKeyCredParams.map(\.alg)
        let chosen = try algorithm ?? Self.choose(from: requested)
        guard requested.contains(chosen) else {
            throw Failure(description: "the relying party did not request \(chosen)")
        }
        let relyingPartyID = options.rp.id ?? Self.host(of: origin)
        let excluded = Set((options.excludeCredentials ?? []).map(\.id.bytes))
        let privateKey = try CredentialPrivateKey.generate(chosen)
        var credentialID: [UInt8]
        repeat {
            credentialID = (0..<credentialIDLength).map { _ in UInt8.random(in: .min ... .max) }
        } while excluded.contains(credentialID)

        var authenticatorData = AuthenticatorDataBuilder(relyingPartyID: relyingPartyID, flags: flags())
        authenticatorData.attestedCredential = .init(aaguid: aaguid, credentialID: credentialID, publicKey: privateKey.coseKeyBytes)
        let authData = authenticatorData.build()
        let clientData = caller.clientData(type: "webauthn.create", challenge: options.challenge.bytes)

        let statement: CBORItem
        let format: String
        switch attestation {
        case .none:
            format = "none"
            statement = [:]
        case .packedSelf:
            format = "packed"
            let signature = try privateKey.signature(for: authData + Array(SHA256.hash(data: clientData)))
            statement = ["alg": .int(chosen.rawValue), "sig": .bytes(signature)]
        case .packed(let key, let chain):
            format = "packed"
            let signature = try key.signature(for: authData + Array(SHA256.hash(data: clientData))).derRepresentation
            statement = [
                "alg": .int(COSEAlgorithmIdentifier.es256.rawValue), "sig": .bytes(Array(signature)), "x5c": .array(chain.map { .bytes($0) }),
            ]
        }
        let attestationObject: CBORItem = ["fmt": .text(format), "attStmt": statement, "authData": .bytes(authData)]
        let response = RegistrationResponseJSON(
            id: Base64URL.encode(credentialID),
            rawId: Base64URLBytes(credentialID),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URLBytes(clientData),
                attestationObject: Base64URLBytes(CBOREncoder.encode(attestationObject)),
                transports: ["internal", "hybrid"],
                authenticatorData: Base64URLBytes(authData),
                publicKey: privateKey.subjectPublicKeyInfo.map(Base64URLBytes.init),
                publicKeyAlgorithm: chosen
            ),
            authenticatorAttachment: "platform",
            clientExtensionResults: ClientExtensionResults(credProps: options.extensions?.credProps == true ? .init(rk: true) : nil)
        )
        let credential = SoftwareCredential(
            credentialID: credentialID,
            relyingPartyID: relyingPartyID,
            userHandle: options.user.id.bytes,
            userName: options.user.name,
            privateKey: privateKey,
            signCount: 0,
            isSynced: createsSyncedCredentials
        )
        return (response, credential)
    }

    /// Signs an assertion for request options, as `navigator.credentials.get()` would, and
    /// advances the credential's counter.
    public func getAssertion(
        _ options: PublicKeyCredentialRequestOptionsJSON,
        origin: String,
        credential: inout SoftwareCredential
    ) throws -> AuthenticationResponseJSON {
        try getAssertion(options, caller: .webPage(origin: origin), credential: &credential)
    }

    /// Signs an assertion on behalf of a web page or a native app, and advances the
    /// credential's counter.
    public func getAssertion(
        _ options: PublicKeyCredentialRequestOptionsJSON,
        caller: Caller,
        credential: inout SoftwareCredential
    ) throws -> AuthenticationResponseJSON {
        let relyingPartyID = options.rpId ?? Self.host(of: caller.origin)
        guard relyingPartyID == credential.relyingPartyID else {
            throw Failure(description: "credential is scoped to \(credential.relyingPartyID), not \(relyingPartyID)")
        }
        if let allowed = options.allowCredentials, !allowed.isEmpty, !allowed.contains(where: { $0.id.bytes == credential.credentialID }) {
            throw Failure(description: "the credential is not in allowCredentials")
        }
        if !credential.isSynced { credential.signCount += 1 }
        let authData = AuthenticatorDataBuilder(relyingPartyID: relyingPartyID, flags: flags(), signCount: credential.signCount).build()
        let clientData = caller.clientData(type: "webauthn.get", challenge: options.challenge.bytes)
        let signature = try credential.privateKey.signature(for: authData + Array(SHA256.hash(data: clientData)))
        return AuthenticationResponseJSON(
            id: Base64URL.encode(credential.credentialID),
            rawId: Base64URLBytes(credential.credentialID),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URLBytes(clientData),
                authenticatorData: Base64URLBytes(authData),
                signature: Base64URLBytes(signature),
                userHandle: Base64URLBytes(credential.userHandle)
            ),
            authenticatorAttachment: "platform",
            clientExtensionResults: ClientExtensionResults(prf: Self.prf(options.extensions?.prf, credential: credential))
        )
    }

    /// The `prf` extension's outputs (WebAuthn L3 §10.1.4) for the salts meant for
    /// `credential`: its `evalByCredential` entry, else `eval`; `nil` when none was asked.
    /// Each output is HMAC-SHA-256, under a secret of the credential's own, of the salt as
    /// the client hashes it for the authenticator (SHA-256 of "WebAuthn PRF", a zero byte and
    /// the salt), as an authenticator's `hmac-secret` does: the same passkey and salt always
    /// give the same output, and nothing else gives it.
    static func prf(_ inputs: PRFInputs?, credential: SoftwareCredential) -> PRFOutputs? {
        guard let inputs, let values = inputs.evalByCredential?[Base64URL.encode(credential.credentialID)] ?? inputs.eval else { return nil }
        let secret = SymmetricKey(data: SHA256.hash(data: Array("Latchkey software PRF".utf8) + Array(credential.privateKey.keyBytes)))
        func output(_ salt: Base64URLBytes) -> Base64URLBytes {
            let hashedSalt = SHA256.hash(data: Array("WebAuthn PRF".utf8) + [0] + salt.bytes)
            return Base64URLBytes(Array(HMAC<SHA256>.authenticationCode(for: Array(hashedSalt), using: secret)))
        }
        return PRFOutputs(results: PRFValues(first: output(values.first), second: values.second.map(output)))
    }

    private func flags() -> AuthenticatorFlags {
        var flags: AuthenticatorFlags = confirmsPresence ? [.userPresent] : []
        if verifiesUser { flags.insert(.userVerified) }
        if createsSyncedCredentials { flags.formUnion([.backupEligible, .backedUp]) }
        return flags
    }

    private static let preference: [COSEAlgorithmIdentifier] = [.es256, .edDSA, .ed25519, .es384, .es512, .rs256, .ps256, .mldsa65, .mldsa87]

    private static func choose(from requested: [COSEAlgorithmIdentifier]) throws -> COSEAlgorithmIdentifier {
        if requested.contains(.es256) { return .es256 }
        guard let supported = requested.first(where: preference.contains) else {
            throw Failure(description: "none of the requested algorithms (\(requested.map(\.name).joined(separator: ", "))) is supported")
        }
        return supported
    }

    /// The host of a web origin, which browsers use as the default RP ID.
    private static func host(of origin: String) -> String {
        guard let range = origin.range(of: "://") else { return origin }
        let authority = origin[range.upperBound...].prefix { $0 != "/" }
        return String(authority.split(separator: ":").first ?? authority)
    }
}
