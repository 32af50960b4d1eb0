import Foundation

/// NIST SP 800-63B §3.1.1.2 for new passwords: at least 8 characters, at most 1024, no
/// composition rules, and none of the 10,000 most common passwords.
public enum PasswordPolicy {
    /// The shortest password accepted.
    public static let minimumLength = 8
    /// The longest password accepted; long enough for any passphrase, short enough that
    /// hashing it costs nothing extra.
    public static let maximumLength = 1024

    /// The refusal of a password shorter than ``minimumLength``.
    public static let tooShort = IdentityError(.invalidPassword, "the password must be at least \(minimumLength) characters long", field: "password")
    /// The refusal of a password longer than ``maximumLength``.
    public static let tooLong = IdentityError(.invalidPassword, "the password must be at most \(maximumLength) characters long", field: "password")
    /// The refusal of one of the most common passwords.
    public static let tooCommon = IdentityError(
        .invalidPassword, "this password is among the 10,000 most commonly used ones and is easy to guess; choose another", field: "password"
    )

    /// Refuses a new password that breaks a rule, naming the rule.
    public static func check(_ password: String) throws(IdentityError) {
        let length = password.count
        guard length >= minimumLength else { throw tooShort }
        guard length <= maximumLength else { throw tooLong }
        guard !commonPasswords.contains(password.lowercased()) else { throw tooCommon }
    }

    /// The list, lowercased, loaded once.
    static let commonPasswords: Set<String> = {
        guard let url = Bundle.module.url(forResource: "common-passwords", withExtension: "txt"), let text = try? String(contentsOf: url, encoding: .utf8) else {
            // The list ships with the module; without it the length rules still apply.
            return []
        }
        return Set(text.split(whereSeparator: \.isNewline).map { $0.lowercased() })
    }()
}
