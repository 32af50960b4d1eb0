import CBOR
import Foundation
@_spi(Fuzzing) import WebAuthn

// One libFuzzer entry point; FUZZ_TARGET picks the parser:
//   cbor         CBORDecoder: a success must span exactly the input and re-encode canonically
//   authdata     AuthenticatorData: a success keeps the input byte for byte
//   clientdata   CollectedClientData (clientDataJSON)
//   cosekey      CredentialPublicKey (COSE_Key)
//   attestation  32 bytes of clientDataHash, then an attestation object, through every
//                attestation format verifier and the certificate code
//   mdsblob      a FIDO metadata BLOB (compact JWS) through MetadataBLOB.verify: splitting,
//                base64url, the header, x5c certificates and path building
//   mdspayload   a BLOB payload's JSON, without the signature that guards it in verify:
//                entries, AAGUIDs, key identifiers, root certificates, status reports
// Every failure must be a typed error; a trap is a finding.

private let target = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? "cbor"

/// Every RP ID in the conformance corpus, so that seeds reach the attestation verifiers.
private let relyingPartyIDs = [
    "example.org", "example.com", "demo.yubico.com", "localhost", "webauthn.io", "dev.dontneeda.pw", "pwl.ngrok.io",
    "dev2.dontneeda.pw", "webauthntest.azurewebsites.net", "duo.test", "try-webauthn.appspot.com", "authress.io",
    "portal.fxon.com", "netpassport.io", "d2urpypvrhb05x.amplifyapp.com", "6cc3c9e7967a.ngrok.io", "gramthanos.github.io",
    "webauthn.firstyear.id.au", "simplewebauthn.dev",
]

private let verifier = WebAuthnVerifier(
    policy: RelyingPartyPolicy(
        relyingPartyIDs: relyingPartyIDs,
        origins: OriginPolicy(["https://example.com"]),
        keyPolicy: KeyPolicy(allowsLegacyRS1ForTPM: true),
        attestation: AttestationPolicy(requirement: .any, safetyNet: SafetyNetPolicy(maximumAge: nil))
    )
)
private let verificationTime = Date(timeIntervalSince1970: 1_600_000_000)

func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    switch target {
    case "cbor":
        if let node = try? CBORDecoder().decode(input) {
            precondition(node.encodedBytes.elementsEqual(input), "a decoded item must span its input exactly")
            let reencoded = CBOREncoder.encode(CBORItem(node))
            precondition(reencoded.count == input.count, "canonical re-encoding changed the length")
            precondition((try? CBORDecoder().decode(reencoded)) != nil, "canonical re-encoding must decode")
        }
    case "authdata":
        if let parsed = try? AuthenticatorData(bytes: input) {
            precondition(parsed.rawBytes == input, "authenticator data must keep its bytes")
            precondition(parsed.flags.contains(.attestedCredentialData) == (parsed.attestedCredentialData != nil))
        }
    case "clientdata":
        _ = try? CollectedClientData(bytes: input)
    case "cosekey":
        if let key = try? CredentialPublicKey(coseKey: input, policy: KeyPolicy(minimumRSAModulusBits: 1024, allowsLegacyRS1ForTPM: true)) {
            precondition(key.coseKey == input, "a COSE key must keep its bytes")
        }
    case "attestation":
        guard input.count >= 32 else { return 0 }
        _ = try? verifier.verifyAttestation(input.dropFirst(32), clientDataHash: Array(input.prefix(32)), at: verificationTime)
    case "mdsblob":
        _ = try? MetadataBLOB.verify(input, roots: [], at: verificationTime)
    case "mdspayload":
        if let read = try? MetadataBLOB.readUnsignedPayload(input) {
            precondition(read.number > 0, "a payload read must have a positive serial number")
            for entry in read.entries { _ = entry.latestStatus }
        }
    default:
        fatalError("unknown FUZZ_TARGET \(target)")
    }
    return 0
}
