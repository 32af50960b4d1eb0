import Foundation
public import LatchkeyWire

/// The scopes Latchkey grants. All of them concern the signed-in user's own data, so
/// every first-party client may request them.
public enum Scopes {
    public static let openID = "openid"
    public static let profile = "profile"
    public static let email = "email"
    public static let phone = "phone"
    public static let offlineAccess = "offline_access"
    /// My Account API: start and confirm passkey enrollment.
    public static let createAuthenticationMethods = "create:me:authentication_methods"
    /// My Account API: list and read passkeys.
    public static let readAuthenticationMethods = "read:me:authentication_methods"
    /// My Account API: rename passkeys.
    public static let updateAuthenticationMethods = "update:me:authentication_methods"
    /// My Account API: delete passkeys.
    public static let deleteAuthenticationMethods = "delete:me:authentication_methods"
    /// My Account API: change the display name.
    public static let updateProfile = "update:me:profile"

    /// Every scope that can be granted.
    public static let known: [String] = [
        openID, profile, email, phone, offlineAccess,
        createAuthenticationMethods, readAuthenticationMethods, updateAuthenticationMethods, deleteAuthenticationMethods,
        updateProfile,
    ]

    /// What a request without `scope` gets.
    public static let defaults = [openID, profile, email]

    /// The granted scopes for a requested `scope` string: known scopes in a stable order,
    /// unknown ones dropped (RFC 6749 §3.3 lets the server grant less than asked).
    public static func grant(_ requested: String?) -> [String] {
        guard let requested else { return defaults }
        let asked = Set(requested.split(separator: " ").map(String.init))
        return known.filter(asked.contains)
    }

    /// The granted scopes for `client`: a client with `allowed_scopes` that asks for another
    /// known scope is refused (RFC 6749 §5.2 `invalid_scope`), and without `scope` it gets
    /// the defaults it is allowed.
    public static func grant(_ requested: String?, to client: OAuthClient) throws(IdentityError) -> [String] {
        let granted = grant(requested)
        guard let allowed = client.allowedScopes else { return granted }
        if requested == nil { return granted.filter(allowed.contains) }
        let refused = granted.filter { !allowed.contains($0) }
        guard refused.isEmpty else {
            throw IdentityError(
                .invalidScope, "\(client.name) may not receive the scope\(refused.count == 1 ? "" : "s") \(refused.joined(separator: " "))", field: "scope"
            )
        }
        return granted
    }
}

/// The user claims that profile scopes release (OpenID Connect Core §5.4), shared by the
/// ID token and the userinfo endpoint.
extension UserInfo {
    /// The claims `scopes` release about `user`; an address is verified once a code sent to
    /// it came back.
    public init(user: User, scopes: [String]) {
        self.init(subject: user.id.rawValue, externalID: user.externalID)
        if scopes.contains(Scopes.profile) {
            name = user.profile.name ?? user.accountName
            givenName = user.profile.givenName
            familyName = user.profile.familyName
            nickname = user.profile.nickname
            picture = user.profile.picture
            preferredUsername = user.profile.username
            updatedAt = Int64(user.updatedAt.timeIntervalSince1970)
        }
        if scopes.contains(Scopes.email), let address = user.profile.email {
            email = address
            emailVerified = user.emailVerifiedAt != nil
        }
        if scopes.contains(Scopes.phone), let number = user.profile.phoneNumber {
            phoneNumber = number
            phoneNumberVerified = user.phoneNumberVerifiedAt != nil
        }
    }
}
