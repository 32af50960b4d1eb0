public import IdentityCore
public import WebAuthn

/// The passkey policy keys of the global `passkeys:` and of `clients[].passkeys`, each
/// `nil` where the file leaves it out: a client's keys replace the global ones they name.
public struct PasskeyPolicyKeys: Sendable, Equatable {
    public var accept: PasskeyPolicy.Acceptance?
    public var aaguidsAllowed: Set<AAGUID>?
    public var aaguidsBlocked: Set<AAGUID>?
    public var userVerification: UserVerificationRequirement?
    public var residentKey: String?
    public var algorithms: [COSEAlgorithmIdentifier]?
    public var hints: [String]?
    public var attestationFormats: [String]?

    /// The names of the keys, as the file writes them.
    static let names = ["accept", "aaguids_allowed", "aaguids_blocked", "user_verification", "resident_key", "algorithms", "hints", "attestation_formats"]

    /// `base` with these keys in place of its own.
    public func applied(to base: PasskeyPolicy) -> PasskeyPolicy {
        var policy = base
        if let accept { policy.accept = accept }
        if let aaguidsAllowed { policy.aaguidsAllowed = aaguidsAllowed }
        if let aaguidsBlocked { policy.aaguidsBlocked = aaguidsBlocked }
        if let userVerification { policy.userVerification = userVerification }
        if let residentKey { policy.residentKey = residentKey }
        if let algorithms {
            policy.algorithms = algorithms
            policy.acceptsOnlyListedAlgorithms = true
        }
        if let hints { policy.hints = hints }
        if let attestationFormats { policy.attestationFormats = attestationFormats }
        return policy
    }

    /// The algorithms by their IANA COSE names, as `algorithms` takes them (numbers too).
    static let algorithmNames: [String: COSEAlgorithmIdentifier] = [
        "ES256": .es256, "EdDSA": .edDSA, "Ed25519": .ed25519, "ESP256": .esp256, "ES384": .es384, "ESP384": .esp384, "ES512": .es512, "ESP512": .esp512,
        "PS256": .ps256, "PS384": .ps384, "PS512": .ps512, "RS256": .rs256, "RS384": .rs384, "RS512": .rs512, "ML-DSA-65": .mldsa65, "ML-DSA-87": .mldsa87,
    ]
}

extension ConfigurationLoader {
    /// Reads the policy keys of `node`, which may hold other keys too (the global `passkeys:`).
    static func parsePolicyKeys(_ node: YAMLReader) throws(ConfigurationError) -> PasskeyPolicyKeys {
        var keys = PasskeyPolicyKeys()
        let acceptNode = node.child("accept")
        if let text = try acceptNode.string() {
            guard let accept = PasskeyPolicy.Acceptance(rawValue: text) else {
                throw acceptNode.error("must be any, synced, device_bound or attested, found \"\(text.prefix(40))\"")
            }
            keys.accept = accept
        }
        keys.aaguidsAllowed = try aaguids(node.child("aaguids_allowed"))
        keys.aaguidsBlocked = try aaguids(node.child("aaguids_blocked"))
        let verificationNode = node.child("user_verification")
        if let text = try verificationNode.string() {
            guard let verification = UserVerificationRequirement(rawValue: text) else {
                throw verificationNode.error("must be required, preferred or discouraged, found \"\(text.prefix(40))\"")
            }
            keys.userVerification = verification
        }
        let residentNode = node.child("resident_key")
        if let text = try residentNode.string() {
            guard ["required", "preferred", "discouraged"].contains(text) else {
                throw residentNode.error("must be required, preferred or discouraged, found \"\(text.prefix(40))\"")
            }
            keys.residentKey = text
        }
        if let elements = try node.child("algorithms").elements() {
            var algorithms: [COSEAlgorithmIdentifier] = []
            for element in elements {
                let text = try element.string() ?? ""
                let algorithm = PasskeyPolicyKeys.algorithmNames[text] ?? Int64(text).map { COSEAlgorithmIdentifier(rawValue: $0) }
                guard let algorithm, COSEAlgorithmIdentifier.supported.contains(algorithm) else {
                    let names = PasskeyPolicyKeys.algorithmNames.keys.sorted().joined(separator: ", ")
                    throw element.error("must be an algorithm this server verifies (\(names), or its COSE number), found \"\(text.prefix(20))\"")
                }
                if !algorithms.contains(algorithm) { algorithms.append(algorithm) }
            }
            guard !algorithms.isEmpty else { throw node.child("algorithms").error("must name at least one algorithm") }
            keys.algorithms = algorithms
        }
        if let hints = try node.child("hints").strings() {
            for (index, hint) in hints.enumerated() where !PasskeyPolicy.knownHints.contains(hint) {
                throw ConfigurationError(key: "\(node.child("hints").path)[\(index)]", "must be security-key, client-device or hybrid, found \"\(hint.prefix(40))\"")
            }
            keys.hints = hints
        }
        if let formats = try node.child("attestation_formats").strings() {
            let known = AttestationFormat.all.map(\.rawValue)
            for (index, format) in formats.enumerated() where !known.contains(format) {
                throw ConfigurationError(key: "\(node.child("attestation_formats").path)[\(index)]", "must be an attestation format (\(known.joined(separator: ", "))), found \"\(format.prefix(40))\"")
            }
            keys.attestationFormats = formats
        }
        return keys
    }
}
