import Foundation
import Tracing
import WebAuthn

/// The engine's verifications inside spans: `WebAuthn` itself stays pure (no clock, no I/O,
/// no tracing), so the span is the caller's. Each says the ceremony, the attestation format
/// (registrations), the key's COSE algorithm and the outcome: `ok`, or the engine's stable
/// code.
extension WebAuthnVerifier {
    /// ``verifyRegistration(_:for:at:)`` inside a `webauthn.verify_registration` span.
    func tracedRegistration(_ response: RegistrationResponseJSON, for ceremony: RegistrationCeremony, at time: Date) throws(WebAuthnError) -> VerifiedRegistration {
        try Spans.traced("webauthn.verify_registration") { span throws(WebAuthnError) in
            do throws(WebAuthnError) {
                let verified = try verifyRegistration(response, for: ceremony, at: time)
                span?.updateAttributes { attributes in
                    attributes["webauthn.ceremony"] = "registration"
                    attributes["webauthn.attestation.format"] = verified.attestation.format.rawValue
                    attributes["webauthn.algorithm"] = Int(verified.publicKey.algorithm.rawValue)
                    attributes["webauthn.outcome"] = "ok"
                }
                return verified
            } catch {
                span?.attributes["webauthn.ceremony"] = "registration"
                span?.attributes["webauthn.outcome"] = error.code.description
                throw error
            }
        }
    }

    /// ``verifyAuthentication(_:for:credential:)`` inside a `webauthn.verify_authentication`
    /// span; `algorithm` is the stored passkey's.
    func tracedAuthentication(
        _ response: AuthenticationResponseJSON, for ceremony: AuthenticationCeremony, credential: CredentialRecord, algorithm: COSEAlgorithmIdentifier
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        try Spans.traced("webauthn.verify_authentication") { span throws(WebAuthnError) in
            span?.updateAttributes { attributes in
                attributes["webauthn.ceremony"] = "authentication"
                attributes["webauthn.algorithm"] = Int(algorithm.rawValue)
            }
            do throws(WebAuthnError) {
                let verified = try verifyAuthentication(response, for: ceremony, credential: credential)
                span?.attributes["webauthn.outcome"] = "ok"
                return verified
            } catch {
                span?.attributes["webauthn.outcome"] = error.code.description
                throw error
            }
        }
    }
}
