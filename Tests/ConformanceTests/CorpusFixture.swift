import Foundation
import Testing
import WebAuthnCorpus

/// The conformance corpus as test data, read from `Tests/Fixtures/conformance`.
enum CorpusFixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/conformance")
    static let file = directory.appendingPathComponent("webauthn-vectors.json")

    /// What the test may know about a case beyond what the runner reads.
    struct Case: Sendable, CustomTestStringConvertible {
        let id: String
        let algorithmName: String?
        let expectsValid: Bool
        let entry: CorpusFile.Entry

        var testDescription: String { id }
    }

    /// Cases whose algorithm swift-crypto cannot verify; the runner must reject each with
    /// `unsupported_algorithm`.
    static let unsupportedAlgorithms: Set<String> = ["Ed448", "ML-DSA-44"]

    /// Cases whose verdict depends on data the corpus does not carry.
    static let needsRevocationData: Set<String> = [
        "swa-verifyAttestationAndroidSafetyNet-should-reject-when-a-revoked-certificate-is-found"
    ]

    /// Cases whose `id`/`rawId` are placeholders that differ from the attested credential ID.
    /// Their upstream tests never compared the two, so their "valid" says nothing about the
    /// mismatch; Latchkey refuses it (see `CeremonySteps.checkRegisteredCredentialID`).
    static let placeholderCredentialIDs: Set<String> = [
        "swa-verifyRegistrationResponse-should-verify-packed-ec2-attestation",
        "swa-verifyRegistrationResponse-should-verify-packed-x5c-attestation",
        "go-appleTestResponse",
    ]

    /// Cases whose bytes the specification itself has corrected since the commit they were
    /// taken from (`upstream-corrections.json` holds the corrected bytes and their source).
    /// The W3C android-key vector's certificate states neither origin nor purpose, which
    /// §8.4 requires; Latchkey refuses it naming origin, and verifies the corrected one.
    static let correctedUpstream: Set<String> = ["w3c-android-key-es256-reg"]
    static let corrections = directory.appendingPathComponent("upstream-corrections.json")

    /// Whether the runner's verdict for a case is expected to differ from the corpus's.
    static func isNamedDivergence(_ id: String) -> Bool {
        needsRevocationData.contains(id) || placeholderCredentialIDs.contains(id) || correctedUpstream.contains(id)
    }

    static let cases: [Case] = {
        do {
            let data = try Data(contentsOf: file)
            let corpus = try CorpusFile.decode(data)
            let raw = try JSONDecoder().decode(Metadata.self, from: data)
            return zip(raw.vectors, corpus.entries).map { meta, entry in
                Case(id: meta.id, algorithmName: meta.algName, expectsValid: meta.verdict.isValid, entry: entry)
            }
        } catch {
            Issue.record("cannot load the corpus at \(file.path): \(error)")
            return []
        }
    }()

    /// The members only tests read: the recorded verdict and the algorithm.
    private struct Metadata: Decodable {
        struct Vector: Decodable {
            let id: String
            let algName: String?
            let verdict: Verdict
        }

        enum Verdict: Decodable {
            case valid
            case invalid(String)

            var isValid: Bool { if case .valid = self { return true } else { return false } }

            init(from decoder: any Decoder) throws {
                if let text = try? decoder.singleValueContainer().decode(String.self), text == "valid" {
                    self = .valid
                } else {
                    self = .invalid((try? decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .invalid)) ?? "")
                }
            }

            enum Keys: String, CodingKey { case invalid }
        }

        let vectors: [Vector]
    }
}
