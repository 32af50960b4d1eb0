import CBOR
import SwiftASN1

/// `android-key` (WebAuthn L3 §8.4): Android Keystore attests a hardware-backed key whose
/// certificate extension binds it to this ceremony's client data hash.
enum AndroidKeyAttestation {
    /// The Android key attestation extension.
    static let keyDescriptionExtension = "1.3.6.1.4.1.11129.2.1.17"

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        try AttestationSteps.requireMap(input, .androidKey)
        let algorithm = try AttestationSteps.algorithm(input, .androidKey)
        let signature = try AttestationSteps.signature(input, .androidKey)
        guard let certificates = try AttestationSteps.certificates(input, .androidKey), let leaf = certificates.first else {
            throw AttestationSteps.invalid(.androidKey, "attStmt.x5c is missing")
        }
        // Step 2: the signature over authData || clientDataHash.
        try AttestationSteps.verifySignature(
            signature, over: input.signedParts, key: leaf.publicKey,
            algorithm: algorithm, signer: "x5c[0] \(leaf)", .androidKey
        )
        // Step 3: the certified key is the credential key.
        try AttestationSteps.checkCertifiesCredentialKey(leaf, input, .androidKey)
        // Step 4: the key description.
        guard let ext = leaf.extension(keyDescriptionExtension) else {
            throw AttestationSteps.invalid(.androidKey, "x5c[0] has no key attestation extension \(keyDescriptionExtension)")
        }
        let description = try KeyDescription(ext.value)
        guard description.attestationChallenge == input.clientDataHash else {
            throw AttestationSteps.invalid(
                .androidKey,
                "attestationChallenge \(Bytes.hex(description.attestationChallenge)) is not clientDataHash \(Bytes.hex(input.clientDataHash))"
            )
        }
        // The key must be scoped to this RP's app, not to every app on the device.
        guard !description.softwareEnforced.allApplications, !description.teeEnforced.allApplications else {
            throw AttestationSteps.invalid(.androidKey, "the key is usable by all applications (allApplications is present)")
        }
        try checkOriginAndPurpose(description, teeOnly: input.policy.androidKeyRequiresTEEEnforced)
        return AttestationResult(
            format: .androidKey,
            type: .basic,
            trust: try AttestationSteps.trust(certificates, input, .androidKey, leafHandledExtensions: [keyDescriptionExtension]),
            certificates: certificates,
            components: []
        )
    }

    /// §8.4 step "Verify the following using the appropriate authorization list": "For the
    /// following, use only the teeEnforced authorization list if the RP wants to accept only
    /// keys from a trusted execution environment, otherwise use the union of teeEnforced and
    /// softwareEnforced. The value in the AuthorizationList.origin field is equal to
    /// KM_ORIGIN_GENERATED. The value in the AuthorizationList.purpose field is equal to
    /// KM_PURPOSE_SIGN."
    ///
    /// The step is unconditional, so a field that the lists do not carry equals nothing and
    /// the key is refused: the origin must be stated, and every stated origin must be
    /// GENERATED; the purposes must be stated and include SIGN (`purpose` is a SET OF, and
    /// Keystore keys may also carry VERIFY). The W3C §16 android-key vector at 146d0db has
    /// empty lists; the specification corrected it (w3c/webauthn#2379) to state both.
    private static func checkOriginAndPurpose(_ description: KeyDescription, teeOnly: Bool) throws(WebAuthnError) {
        let lists = teeOnly ? [description.teeEnforced] : [description.teeEnforced, description.softwareEnforced]
        let searched = teeOnly ? "the TEE-enforced list" : "both the TEE-enforced and the software-enforced list"
        let origins = lists.compactMap(\.origin)
        let purposes = lists.flatMap(\.purposes)
        guard !origins.isEmpty else {
            throw AttestationSteps.invalid(.androidKey, "origin is absent from \(searched); it must be KM_ORIGIN_GENERATED (0)")
        }
        guard origins.allSatisfy({ $0 == KeyDescription.originGenerated }) else {
            throw AttestationSteps.invalid(.androidKey, "origin \(origins) is not KM_ORIGIN_GENERATED (0): the key was not generated in the keystore")
        }
        guard !purposes.isEmpty else {
            throw AttestationSteps.invalid(.androidKey, "purpose is absent from \(searched); it must include KM_PURPOSE_SIGN (2)")
        }
        guard purposes.contains(KeyDescription.purposeSign) else {
            throw AttestationSteps.invalid(.androidKey, "purpose \(purposes) does not include KM_PURPOSE_SIGN (2)")
        }
    }
}

/// The parts of Android's `KeyDescription` (the key attestation extension) that WebAuthn
/// checks. Fields are read by position and tag; unknown authorization tags are skipped.
struct KeyDescription {
    /// `KM_ORIGIN_GENERATED`.
    static let originGenerated = 0
    /// `KM_PURPOSE_SIGN`.
    static let purposeSign = 2

    /// The authorization list fields WebAuthn looks at.
    struct AuthorizationList {
        var purposes: [Int] = []
        var origin: Int?
        var allApplications = false
    }

    let attestationChallenge: [UInt8]
    let softwareEnforced: AuthorizationList
    let teeEnforced: AuthorizationList

    init(_ value: ArraySlice<UInt8>) throws(WebAuthnError) {
        // Keystore implementations are not all strict DER; the extension sits inside the
        // signed certificate, so reading it as BER changes nothing that was verified.
        let root: ASN1Node
        do {
            root = try DER.parse(value)
        } catch {
            do {
                root = try BER.parse(value)
            } catch {
                throw AttestationSteps.invalid(.androidKey, "the key description is not ASN.1: \(error)")
            }
        }
        let fields = try ASN1Reading.children(root, .sequence, "KeyDescription")
        guard fields.count >= 8 else {
            throw AttestationSteps.invalid(.androidKey, "KeyDescription has \(fields.count) fields, 8 are required")
        }
        attestationChallenge = Array(try ASN1Reading.octetString(fields[4], "attestationChallenge"))
        softwareEnforced = try Self.authorizationList(fields[6], "softwareEnforced")
        teeEnforced = try Self.authorizationList(fields[7], "teeEnforced")
    }

    private static func authorizationList(_ node: ASN1Node, _ what: String) throws(WebAuthnError) -> AuthorizationList {
        var list = AuthorizationList()
        for entry in try ASN1Reading.children(node, .sequence, what) where entry.identifier.tagClass == .contextSpecific {
            switch entry.identifier.tagNumber {
            case 1:
                let set = try ASN1Reading.children(try ASN1Reading.explicitChild(entry, "\(what).purpose"), .set, "\(what).purpose")
                list.purposes = try set.map { node throws(WebAuthnError) in try ASN1Reading.smallInteger(node, "\(what).purpose") }
            case 600:
                list.allApplications = true
            case 702:
                list.origin = try ASN1Reading.smallInteger(try ASN1Reading.explicitChild(entry, "\(what).origin"), "\(what).origin")
            default:
                continue
            }
        }
        return list
    }
}
