import CBOR
import Foundation
import Testing
import WebAuthn
import WebAuthnCorpus

/// Every case of the conformance corpus, run through the one verification pipeline.
@Suite("Conformance corpus")
struct CorpusVerdictTests {
    let runner = CorpusRunner(now: Date())

    @Test("verdict matches the corpus", arguments: CorpusFixture.cases)
    func verdictMatches(_ corpusCase: CorpusFixture.Case) {
        let outcome = runner.run(corpusCase.entry, index: 0)
        #expect(outcome.id == corpusCase.id)

        if let algorithm = corpusCase.algorithmName, CorpusFixture.unsupportedAlgorithms.contains(algorithm) {
            // Skipped: swift-crypto has no implementation, so the verifier must say so.
            #expect(outcome.code == "unsupported_algorithm", "\(corpusCase.id): \(outcome.code ?? "valid")")
            return
        }
        if CorpusFixture.needsRevocationData.contains(corpusCase.id) {
            // Known divergence: invalid only through a CRL the corpus does not carry.
            #expect(outcome.isValid, "\(corpusCase.id) should verify apart from revocation: \(outcome.reason ?? "")")
            return
        }
        #expect(
            outcome.isValid == corpusCase.expectsValid,
            "\(corpusCase.id): expected \(corpusCase.expectsValid ? "valid" : "invalid"), got \(outcome.verdict) \(outcome.code ?? "") \(outcome.reason ?? "")"
        )
    }

    @Test func skippedCasesAreListedByName() {
        let skipped = CorpusFixture.cases.filter { CorpusFixture.unsupportedAlgorithms.contains($0.algorithmName ?? "") }
        for corpusCase in skipped {
            print("SKIPPED \(corpusCase.id): \(corpusCase.algorithmName ?? "") is not supported by swift-crypto (unsupported_algorithm)")
        }
        for id in CorpusFixture.needsRevocationData.sorted() {
            print("KNOWN DIVERGENCE \(id): invalid only through CRL revocation data the corpus does not carry")
        }
        #expect(skipped.count == 6)
        #expect(CorpusFixture.cases.count == 197)
    }

    /// Changing one expectation of a valid case must make it fail with that check's code:
    /// the runner reads the expectations, and real-device bytes are really checked.
    @Test(arguments: [
        ("challenge", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "challenge_mismatch"),
        ("origin", "https://attacker.example", "origin_not_allowed"),
        ("rpId", "attacker.example", "rp_id_hash_mismatch"),
    ])
    func changingOneExpectationFailsEveryValidCase(member: String, value: String, code: String) throws {
        let data = try Data(contentsOf: CorpusFixture.file)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var vectors = try #require(object["vectors"] as? [[String: Any]])
        for index in vectors.indices {
            var expected = try #require(vectors[index]["expected"] as? [String: Any])
            expected[member] = value
            vectors[index]["expected"] = expected
        }
        let mutated = try CorpusFile.decode(try JSONSerialization.data(withJSONObject: vectors))
        var checked = 0
        for (original, changed) in zip(CorpusFixture.cases, mutated.entries) where runner.run(original.entry, index: 0).isValid {
            let outcome = runner.run(changed, index: 0)
            #expect(outcome.code == code, "\(original.id): \(outcome.code ?? "valid") \(outcome.reason ?? "")")
            checked += 1
        }
        #expect(checked >= 150)
    }

    /// The revoked SafetyNet case becomes invalid, with the right code, once the revocation
    /// fact its upstream test downloaded is supplied.
    @Test func revocationFactsMakeTheRevokedCaseInvalid() throws {
        let id = try #require(CorpusFixture.needsRevocationData.first)
        let corpusCase = try #require(CorpusFixture.cases.first { $0.id == id })
        guard case .valid(let parsed) = corpusCase.entry else {
            Issue.record("the case does not decode")
            return
        }
        let leaf = try SafetyNetLeaf.certificate(of: parsed)
        let runner = CorpusRunner(now: Date(), revokedCertificates: [RevokedCertificate(leaf)])
        let outcome = runner.run(corpusCase.entry, index: 0)
        #expect(outcome.code == "certificate_revoked", "\(outcome.reason ?? "")")
        #expect(CorpusRunner(now: Date()).run(corpusCase.entry, index: 0).isValid)
    }
}

/// Reads the signing certificate out of a SafetyNet registration case.
enum SafetyNetLeaf {
    static func certificate(of corpusCase: CorpusCase) throws -> AttestationCertificate {
        let response = try RegistrationResponseJSON.decode(from: corpusCase.response.data())
        let object = try AttestationObject(bytes: response.response.attestationObject.bytes)
        guard case .bytes(let jws)? = object.statement[textKey: "response"]?.value else { throw TestFailure("no JWS") }
        let header = try #require(jws.split(separator: UInt8(ascii: ".")).first)
        let json = try #require(Base64URL.decode(String(decoding: header, as: UTF8.self)))
        let decoded = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any]
        let first = try #require((decoded?["x5c"] as? [String])?.first)
        return try AttestationCertificate(derEncoded: try #require(Base64URL.decode(first)))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
