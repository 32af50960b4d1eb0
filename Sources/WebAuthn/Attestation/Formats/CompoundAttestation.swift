import CBOR

/// `compound` (WebAuthn L3 §8.9): several statements about the same credential, each of
/// which must verify on its own. The result is trusted only when every member is.
enum CompoundAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        guard case .array(let members) = input.statement.value else {
            throw AttestationSteps.invalid(.compound, "attStmt must be an array of statements, found a \(input.statement.value.typeName)")
        }
        guard members.count >= 2 else {
            throw AttestationSteps.invalid(.compound, "attStmt must hold at least two statements, found \(members.count)")
        }
        var results: [AttestationResult] = []
        for (index, member) in members.enumerated() {
            guard let formatNode = member[textKey: "fmt"], case .text(let name) = formatNode.value,
                let statement = member[textKey: "attStmt"]
            else {
                throw AttestationSteps.invalid(.compound, "attStmt[\(index)] must be a map with fmt and attStmt")
            }
            let format = AttestationFormat(rawValue: name)
            guard format != .compound else {
                throw AttestationSteps.invalid(.compound, "attStmt[\(index)] must not itself be compound")
            }
            do {
                results.append(try AttestationStatementVerification.verify(format, input.with(statement: statement)))
            } catch {
                throw WebAuthnError(error.code, "compound attStmt[\(index)]: \(error.reason)")
            }
        }
        let untrusted = results.enumerated().compactMap { index, result -> String? in
            result.trust.isTrusted ? nil : "attStmt[\(index)] (\(result.format)) is not trusted"
        }
        return AttestationResult(
            format: .compound,
            type: .compound,
            trust: untrusted.isEmpty
                ? .trusted(anchor: results.map { result -> String in
                    if case .trusted(let anchor) = result.trust { return anchor }
                    return ""
                }.joined(separator: " + "))
                : .untrusted(reason: untrusted.joined(separator: "; ")),
            certificates: results.flatMap(\.certificates),
            components: results
        )
    }
}

/// Dispatches a statement to its format's verifier. The set of formats is closed and
/// typed; there is no registry to mutate.
enum AttestationStatementVerification {
    static func verify(_ format: AttestationFormat, _ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        switch format {
        case .none: return try NoneAttestation.verify(input)
        case .packed: return try PackedAttestation.verify(input)
        case .fidoU2F: return try FIDOU2FAttestation.verify(input)
        case .apple: return try AppleAttestation.verify(input)
        case .androidKey: return try AndroidKeyAttestation.verify(input)
        case .androidSafetyNet: return try AndroidSafetyNetAttestation.verify(input)
        case .tpm: return try TPMAttestation.verify(input)
        case .compound: return try CompoundAttestation.verify(input)
        default:
            throw WebAuthnError(
                .unsupportedAttestationFormat,
                "attestation format \"\(format.rawValue.prefix(64))\" is not supported (supported: \(AttestationFormat.all.map(\.rawValue).joined(separator: ", ")))"
            )
        }
    }
}
