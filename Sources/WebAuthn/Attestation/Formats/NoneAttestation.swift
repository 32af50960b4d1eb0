import CBOR

/// `none` (WebAuthn L3 §8.7): the statement must be an empty map.
enum NoneAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        guard case .map(let entries) = input.statement.value, entries.isEmpty else {
            throw AttestationSteps.invalid(.none, "attStmt must be an empty map")
        }
        return AttestationResult(
            format: .none,
            type: .none,
            trust: try AttestationSteps.notApplicable(input, .none),
            certificates: [],
            components: []
        )
    }
}
