/// What a credential manager needs to keep an account's saved entries current: the
/// arguments of the WebAuthn signal methods (`signalAllAcceptedCredentials`,
/// `signalCurrentUserDetails`) and of `ASCredentialUpdater`'s report methods.
public struct AccountSignals: Sendable, Hashable {
    /// A password the account no longer accepts, as `reportUnusedPasswordCredential` names it.
    public struct UnusedPassword: Sendable, Hashable {
        /// The domain the password was saved for: the relying party ID.
        public let domain: String
        /// The user name it was saved under: the account name.
        public let username: String

        public init(domain: String, username: String) {
            self.domain = domain
            self.username = username
        }
    }

    public let relyingPartyID: String
    /// The WebAuthn user handle.
    public let userHandle: [UInt8]
    /// Every passkey that can sign in to the account (disabled ones are left out).
    public let acceptedCredentialIDs: [[UInt8]]
    /// The account name (WebAuthn `user.name`).
    public let name: String
    /// The display name (WebAuthn `user.displayName`).
    public let displayName: String
    /// Set once the account has given up its password; `nil` while it has one, or never had one.
    public let unusedPassword: UnusedPassword?
}
