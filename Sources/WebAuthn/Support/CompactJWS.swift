import Crypto
import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1) whose key comes from its own `x5c`
/// header, kept as the exact text that was signed. Used for SafetyNet responses and for the
/// FIDO Metadata Service BLOB.
struct CompactJWS {
    private let signingInput: [UInt8]
    private let header: Header
    private let payloadBytes: [UInt8]
    private let signature: [UInt8]
    /// Makes the error for a failed check, in the caller's vocabulary.
    private let invalid: (String) -> WebAuthnError

    struct Header: Decodable {
        var alg: String
        var x5c: [String]?
    }

    /// Splits and decodes a compact JWS; `invalid` makes the error for each failed check.
    init(_ bytes: some Collection<UInt8>, invalid: @escaping (String) -> WebAuthnError) throws(WebAuthnError) {
        self.invalid = invalid
        let parts = Array(bytes).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw invalid("not a compact JWS (found \(parts.count) dot-separated parts)")
        }
        guard let headerBytes = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
            let payloadBytes = Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
            let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self))
        else {
            throw invalid("a JWS part is not base64url")
        }
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw invalid("the JWS header is not a JSON object with alg")
        }
        signingInput = Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1])
        self.payloadBytes = payloadBytes
        self.signature = signature
    }

    /// The `x5c` certificates, leaf first (standard base64, RFC 7515 §4.1.6).
    func certificates() throws(WebAuthnError) -> [AttestationCertificate] {
        var certificates: [AttestationCertificate] = []
        for (index, text) in (header.x5c ?? []).enumerated() {
            guard let der = Base64URL.decode(text) else {
                throw invalid("JWS x5c[\(index)] is not base64")
            }
            do {
                certificates.append(try AttestationCertificate(derEncoded: der))
            } catch {
                throw invalid("JWS x5c[\(index)] is not a certificate: \(error.reason)")
            }
        }
        return certificates
    }

    /// Checks the signature with the leaf certificate's key under the header's `alg`.
    func verifySignature(with leaf: AttestationCertificate) throws(WebAuthnError) {
        let scheme: SignatureScheme
        var signature = self.signature
        switch header.alg {
        case "RS256": scheme = .rsaPKCS1v15(.sha256)
        case "RS384": scheme = .rsaPKCS1v15(.sha384)
        case "RS512": scheme = .rsaPKCS1v15(.sha512)
        case "PS256": scheme = .rsaPSS(.sha256)
        case "ES256":
            // JWS ECDSA signatures are r || s (RFC 7518 §3.4); the verifier takes DER.
            guard let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
                throw invalid("the ES256 JWS signature is not 64 bytes")
            }
            signature = Array(raw.derRepresentation)
            scheme = .ecdsa(.sha256)
        default:
            let error = invalid("JWS algorithm \(header.alg.prefix(32)) is not supported")
            throw WebAuthnError(.unsupportedAlgorithm, error.reason)
        }
        guard let key = leaf.publicKey, key.isValidSignature(signature, over: [signingInput[...]], scheme: scheme) else {
            throw invalid("the JWS signature (\(header.alg)) does not verify with x5c[0] \(leaf)")
        }
    }

    /// The payload decoded as `T`; `what` names it in the error.
    func payload<T: Decodable>(as what: String) throws(WebAuthnError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(payloadBytes))
        } catch let error as DecodingError {
            throw invalid("the JWS payload is not \(what): \(DecodingErrorDescription.describe(error))")
        } catch {
            throw invalid("the JWS payload is not \(what)")
        }
    }
}
