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
        if CorpusFixture.placeholderCredentialIDs.contains(corpusCase.id) {
            // Known divergence: rawId is a placeholder, not the attested credential ID.
            #expect(outcome.code == "credential_id_mismatch", "\(corpusCase.id): \(outcome.code ?? "valid") \(outcome.reason ?? "")")
            return
        }
        if CorpusFixture.correctedUpstream.contains(corpusCase.id) {
            // Known divergence: the specification corrected these bytes (see `correctedVectorsVerify`).
            #expect(outcome.code == "attestation_invalid" && outcome.reason?.contains("origin is absent") == true, "\(corpusCase.id): \(outcome.code ?? "valid") \(outcome.reason ?? "")")
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
        for id in CorpusFixture.placeholderCredentialIDs.sorted() {
            print("KNOWN DIVERGENCE \(id): rawId is an upstream placeholder, not the attested credential ID (credential_id_mismatch)")
        }
        for id in CorpusFixture.correctedUpstream.sorted() {
            print("KNOWN DIVERGENCE \(id): its bytes omit what the specification requires, which upstream has since corrected (attestation_invalid); the corrected bytes verify")
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

    /// The placeholder-ID cases verify once `id` and `rawId` carry the attested credential ID,
    /// so the mismatch is the only thing refused in them.
    @Test(arguments: CorpusFixture.placeholderCredentialIDs.sorted())
    func placeholderIDCasesVerifyWithTheAttestedID(_ id: String) throws {
        var vector = try Self.rawVector(id)
        var response = try #require(vector["response"] as? [String: Any])
        let attested = try Self.attestedCredentialID(response)
        response["id"] = Base64URL.encode(attested)
        response["rawId"] = Base64URL.encode(attested)
        vector["response"] = response
        let outcome = runner.run(try Self.entry(vector), index: 0)
        #expect(outcome.isValid, "\(id): \(outcome.code ?? "") \(outcome.reason ?? "")")
    }

    /// The cases upstream corrected verify with the corrected bytes, trusted as before: the
    /// rule they broke is the only thing refused in them.
    @Test(arguments: CorpusFixture.correctedUpstream.sorted())
    func correctedVectorsVerify(_ id: String) throws {
        let data = try Data(contentsOf: CorpusFixture.corrections)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let correction = try #require((object["corrections"] as? [String: Any])?[id] as? [String: Any], "no correction for \(id)")
        var vector = try Self.rawVector(id)
        var response = try #require(vector["response"] as? [String: Any])
        var inner = try #require(response["response"] as? [String: Any])
        #expect(inner["attestationObject"] as? String != correction["attestationObject"] as? String)
        inner["attestationObject"] = try #require(correction["attestationObject"] as? String)
        response["response"] = inner
        vector["response"] = response
        let outcome = runner.run(try Self.entry(vector), index: 0)
        #expect(outcome.isValid, "\(id): \(outcome.code ?? "") \(outcome.reason ?? "")")
        #expect(outcome.trusted == true, "\(id): the corrected certificate chains to the same anchor")
    }

    /// The runner applies SafetyNet freshness at the case's instant: one minute and one
    /// second later the response has expired, one second earlier it lies in the future, and
    /// `skipSafetyNetTimestampCheck` turns the check off as upstream did.
    @Test func safetyNetFreshnessIsJudgedAtTheCasesInstant() throws {
        let id = "swa-verifyRegistrationResponse-should-skip-cts-check-when-enforcement-option-is-false"
        var vector = try Self.rawVector(id)
        let pinnedText = try #require(vector["timeOverride"] as? String)
        let pinned = try #require(ISO8601DateFormatter.withMilliseconds.date(from: pinnedText))
        #expect(runner.run(try Self.entry(vector), index: 0).isValid)
        for (offset, word) in [(61.0, "expired"), (-1.0, "after the verification time")] {
            vector["timeOverride"] = ISO8601DateFormatter.withMilliseconds.string(from: pinned.addingTimeInterval(offset))
            vector["skipSafetyNetTimestampCheck"] = nil
            let outcome = runner.run(try Self.entry(vector), index: 0)
            #expect(outcome.code == "attestation_invalid" && outcome.reason?.contains(word) == true, "\(offset): \(outcome.reason ?? "valid")")
            vector["skipSafetyNetTimestampCheck"] = true
            let skipped = runner.run(try Self.entry(vector), index: 0)
            #expect(skipped.isValid, "\(offset) with the check skipped: \(skipped.reason ?? "")")
        }
    }

    static func rawVector(_ id: String) throws -> [String: Any] {
        let data = try Data(contentsOf: CorpusFixture.file)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let vectors = try #require(object["vectors"] as? [[String: Any]])
        return try #require(vectors.first { $0["id"] as? String == id })
    }

    static func entry(_ vector: [String: Any]) throws -> CorpusFile.Entry {
        try #require(try CorpusFile.decode(try JSONSerialization.data(withJSONObject: [vector])).entries.first)
    }

    static func attestedCredentialID(_ response: [String: Any]) throws -> [UInt8] {
        let inner = try #require(response["response"] as? [String: Any])
        let text = try #require(inner["attestationObject"] as? String)
        let bytes = try #require(Base64URL.decode(text))
        return try #require(try AttestationObject(bytes: bytes).authenticatorData.attestedCredentialData?.credentialID)
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

extension ISO8601DateFormatter {
    static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
