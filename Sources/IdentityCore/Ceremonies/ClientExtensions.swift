import LatchkeyWire

/// The client extension inputs an application may ask for (PRF, largeBlob, credProtect),
/// checked for their place in a ceremony and passed into the options untouched. The server
/// takes no part in them: their outputs go to the app, and nothing of them is stored.
enum ClientExtensions {
    /// The longest PRF salt or largeBlob write taken, in bytes: salts are hashed by the
    /// authenticator, and a blob rides in the options of one ceremony.
    static let maximumPRFValueBytes = 256
    static let maximumBlobBytes = 32 * 1024
    static let protectionPolicies: Set<String> = ["userVerificationOptional", "userVerificationOptionalWithCredentialIDList", "userVerificationRequired"]

    /// The options' extensions: `requested`, checked, for a creation (`creating`) or an
    /// assertion, with `credProps` always asked for at creation.
    static func inputs(_ requested: ExtensionInputs?, creating: Bool) throws -> ExtensionInputs? {
        var inputs = requested ?? ExtensionInputs()
        inputs.credProps = creating ? true : nil
        if let prf = inputs.prf {
            guard prf.eval != nil || prf.evalByCredential != nil else { throw refused("prf needs eval or evalByCredential") }
            if creating && prf.evalByCredential != nil { throw refused("prf.evalByCredential is for sign-ins only") }
            let values = [prf.eval].compactMap { $0 } + (prf.evalByCredential ?? [:]).values
            for value in values where !value.isSized(maximumPRFValueBytes) {
                throw refused("a prf salt is 1 to \(maximumPRFValueBytes) bytes")
            }
            for credentialID in (prf.evalByCredential ?? [:]).keys where Base64URL.decode(credentialID)?.isEmpty ?? true {
                throw refused("prf.evalByCredential is keyed by base64url credential IDs")
            }
        }
        if let blob = inputs.largeBlob {
            if creating {
                guard blob.read == nil, blob.write == nil, ["required", "preferred"].contains(blob.support ?? "preferred") else {
                    throw refused("largeBlob at sign-up takes support: required or preferred")
                }
            } else {
                guard blob.support == nil, (blob.read == true) != (blob.write != nil) else { throw refused("largeBlob at sign-in takes read: true or write") }
                if let write = blob.write, write.bytes.count > maximumBlobBytes { throw refused("largeBlob.write is at most \(maximumBlobBytes) bytes") }
            }
        }
        if let policy = inputs.credentialProtectionPolicy {
            guard creating else { throw refused("credentialProtectionPolicy is for sign-ups only") }
            guard protectionPolicies.contains(policy) else { throw refused("credentialProtectionPolicy is one of \(protectionPolicies.sorted().joined(separator: ", "))") }
        } else if inputs.enforceCredentialProtectionPolicy != nil {
            throw refused("enforceCredentialProtectionPolicy needs credentialProtectionPolicy")
        }
        return inputs == ExtensionInputs() ? nil : inputs
    }

    private static func refused(_ message: String) -> IdentityError {
        IdentityError(.invalidRequest, "extensions: " + message, field: "extensions")
    }
}

extension PRFValues {
    fileprivate func isSized(_ maximum: Int) -> Bool {
        (1...maximum).contains(first.bytes.count) && (second.map { (1...maximum).contains($0.bytes.count) } ?? true)
    }
}
