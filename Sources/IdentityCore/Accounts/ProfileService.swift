import Foundation

/// A change to the signed-in person's profile as one call (My Account's `PATCH profile`):
/// a new name is stored, a new email address is mailed a code and changes only when the code
/// comes back. Both are checked before either is written, so a refused address changes no
/// name and a refused name sends no mail.
public struct ProfileService: Sendable {
    private let accounts: AccountService
    private let recovery: AccountRecoveryService

    public init(accounts: AccountService, recovery: AccountRecoveryService) {
        self.accounts = accounts
        self.recovery = recovery
    }

    /// What a change did.
    public enum Outcome: Sendable {
        /// A code went to this address; the change waits for it (a new name is stored already).
        case emailPending(String)
        /// The name changed; the account's signals for credential managers as they now are.
        case updated(AccountSignals)
    }

    /// Changes the name (an empty one clears it) and starts a change of email address.
    /// - Throws: `invalid_request` when neither is given, or either is refused.
    public func update(by signIn: SignIn, name: String?, email: String?, relyingPartyID: String, origin: RequestOrigin?) async throws -> Outcome {
        guard name != nil || email != nil else {
            throw IdentityError(.invalidRequest, "name or email is required; an empty name clears it", field: "name")
        }
        if let name { _ = try ProfileValidation.optionalName(name, field: .named("name")) }
        var pending: String?
        if let email { pending = try await recovery.requestEmailChange(by: signIn, to: email) }
        if let name { _ = try await accounts.updateName(of: signIn.userID, to: name, field: .named("name"), origin: origin) }
        if let pending { return .emailPending(pending) }
        return .updated(try await accounts.signals(of: signIn.userID, relyingPartyID: relyingPartyID))
    }
}
