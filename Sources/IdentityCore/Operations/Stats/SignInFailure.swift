import WebAuthn

/// The stable code of a refused sign-in or recovery, read from its audit event: the
/// engine's code where the detail starts with one (`bad_signature: …`), else the code of
/// the face-independent refusal the detail names. The details are the core's own words, so
/// the table below is complete for what the core writes; anything else is `other`.
public enum SignInFailure {
    /// The code of a `login_failed`, `recovery_failed` or `sign_count_regressed` event;
    /// `nil` for other kinds.
    public static func code(of event: AuditEvent) -> String? {
        switch event.kind {
        case .signCountRegressed: return WebAuthnError.Code.signCountRegressed.rawValue
        case .recoveryFailed: return recoveryCode(event.detail)
        case .loginFailed: return loginCode(event.detail)
        default: return nil
        }
    }

    private static func loginCode(_ detail: String) -> String {
        // The engine's refusals are written `code: reason`, the code in snake_case.
        if let colon = detail.firstIndex(of: ":"), detail.index(after: colon) < detail.endIndex, detail[detail.index(after: colon)] == " " {
            let code = detail[..<colon]
            if !code.isEmpty, code.utf8.count <= 64, code.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }) { return String(code) }
        }
        if detail.hasPrefix("passkey not allowed") { return "passkey_not_allowed" }
        return phrases[detail] ?? "other"
    }

    /// A recovery refused for a wrong, used or expired code says which kind of code.
    private static func recoveryCode(_ detail: String) -> String {
        detail == "account disabled" ? "account_disabled" : "invalid_recovery_code"
    }

    private static let phrases: [String: String] = [
        "unknown credential": "unknown_credential",
        "disabled passkey": "credential_disabled",
        "account disabled": "account_disabled",
        "passkey of another account than the one named": "user_mismatch",
        "no passkey of the user handle's account made this signature": "bad_signature",
        "wrong email or password": "invalid_credentials",
    ]
}
