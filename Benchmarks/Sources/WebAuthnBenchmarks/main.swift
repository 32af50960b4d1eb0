import Authenticator
import Crypto
import Foundation
import WebAuthn

// Throughput of the verification engine against raw P-256 verification, measured in
// alternating rounds in one process so that the ratio survives a noisy machine.

@inline(never)
func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

let relyingPartyID = "example.com"
let origin = "https://example.com"
let policy = RelyingPartyPolicy(relyingPartyIDs: [relyingPartyID], origins: OriginPolicy([origin]))
let verifier = WebAuthnVerifier(policy: policy)

// An ES256 credential and one assertion from the software authenticator.
let creation = PublicKeyCredentialCreationOptionsJSON(
    rp: .init(id: relyingPartyID, name: "Bench"),
    user: .init(id: Base64URLBytes(Array(repeating: 7, count: 32)), name: "bench@example.com", displayName: "Bench"),
    challenge: Base64URLBytes(Array(repeating: 1, count: 32)),
    pubKeyCredParams: [.init(alg: .es256)]
)
let authenticator = SoftwareAuthenticator(attestation: .none)
var (registration, credential) = try authenticator.makeCredential(creation, origin: origin)
let packedAuthenticator = SoftwareAuthenticator(attestation: .packedSelf)
let (packedRegistration, _) = try packedAuthenticator.makeCredential(creation, origin: origin)
let registrationCeremony = RegistrationCeremony(challenge: creation.challenge.bytes)

let request = PublicKeyCredentialRequestOptionsJSON(challenge: Base64URLBytes(Array(repeating: 2, count: 32)), rpId: relyingPartyID)
let assertion = try authenticator.getAssertion(request, origin: origin, credential: &credential)
let assertionJSON = try JSONEncoder().encode(assertion)
let storedKey = credential.privateKey.coseKeyBytes
let record = CredentialRecord(credentialID: credential.credentialID, publicKey: try CredentialPublicKey(coseKey: storedKey), signCount: 0)
let ceremony = AuthenticationCeremony(challenge: request.challenge.bytes, allowedCredentialIDs: [credential.credentialID])

// The raw operation: one P-256 ECDSA verification of the same signature over the same bytes.
guard case .es256(let privateKey) = credential.privateKey else { fatalError("expected an ES256 credential") }
let publicKey = privateKey.publicKey
let signedBytes = assertion.response.authenticatorData.bytes + Array(SHA256.hash(data: assertion.response.clientDataJSON.bytes))
let signatureDER = assertion.response.signature.bytes

// Sanity: every benchmarked path succeeds before it is timed.
let rawSignature = try P256.Signing.ECDSASignature(derRepresentation: signatureDER)
precondition(publicKey.isValidSignature(rawSignature, for: signedBytes))
_ = try verifier.verifyAuthentication(assertion, for: ceremony, credential: record)
_ = try verifier.verifyRegistration(registration, for: registrationCeremony, at: Date())
_ = try verifier.verifyRegistration(packedRegistration, for: registrationCeremony, at: Date())

// `profile` runs only the engine's assertion path, for a profiler.
if CommandLine.arguments.dropFirst().first == "profile" {
    for _ in 0..<30000 { blackHole(try verifier.verifyAuthentication(assertion, for: ceremony, credential: record)) }
    exit(0)
}

/// Times several operations in tightly interleaved batches, so that a busy machine slows
/// them all alike and their ratios stay meaningful. Returns operations per second.
func interleaved(_ operations: [(String, () throws -> Void)], seconds: Double) throws -> [Double] {
    let clock = ContinuousClock()
    var spent = [Duration](repeating: .zero, count: operations.count)
    var counts = [Int](repeating: 0, count: operations.count)
    let deadline = clock.now + .milliseconds(Int(seconds * 1000))
    while clock.now < deadline {
        for (index, operation) in operations.enumerated() {
            let start = clock.now
            for _ in 0..<20 { try operation.1() }
            spent[index] += clock.now - start
            counts[index] += 20
        }
    }
    return zip(spent, counts).map { duration, count in
        Double(count) / (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "") ?? 20
let now = Date()
let operations: [(String, () throws -> Void)] = [
    ("raw P-256 verify (parse DER signature, SHA-256, verify)", {
        let signature = try P256.Signing.ECDSASignature(derRepresentation: signatureDER)
        blackHole(publicKey.isValidSignature(signature, for: SHA256.hash(data: signedBytes)))
    }),
    ("assertion verify (decoded response, parsed key)", {
        blackHole(try verifier.verifyAuthentication(assertion, for: ceremony, credential: record))
    }),
    ("assertion verify (decoded response, COSE key parsed each time)", {
        let stored = CredentialRecord(credentialID: record.credentialID, publicKey: try CredentialPublicKey(coseKey: storedKey), signCount: 0)
        blackHole(try verifier.verifyAuthentication(assertion, for: ceremony, credential: stored))
    }),
    ("assertion verify (from JSON bytes, COSE key parsed each time)", {
        let decoded = try AuthenticationResponseJSON.decode(from: assertionJSON)
        let stored = CredentialRecord(credentialID: record.credentialID, publicKey: try CredentialPublicKey(coseKey: storedKey), signCount: 0)
        blackHole(try verifier.verifyAuthentication(decoded, for: ceremony, credential: stored))
    }),
    ("registration verify, fmt none", { blackHole(try verifier.verifyRegistration(registration, for: registrationCeremony, at: now)) }),
    ("registration verify, fmt packed (self)", { blackHole(try verifier.verifyRegistration(packedRegistration, for: registrationCeremony, at: now)) }),
]
FileHandle.standardError.write(Data("measuring for \(Int(seconds)) s in interleaved batches of 20…\n".utf8))
let rates = try interleaved(operations, seconds: seconds)
print("operations per second, one core, interleaved over \(Int(seconds)) s")
for (operation, rate) in zip(operations, rates) {
    print(String(format: "%9.0f  %@", rate, operation.0))
}
print(String(format: "ratio assertion/raw P-256: %.3f (parsed key), %.3f (COSE key parsed each time), %.3f (from JSON)",
             rates[1] / rates[0], rates[2] / rates[0], rates[3] / rates[0]))
