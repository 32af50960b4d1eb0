public import Foundation

/// A person's permission for a client that is not first-party to receive codes for these
/// scopes without asking again (recorded on the hosted consent page, withdrawn on the
/// account page).
public struct Consent: Sendable, Hashable {
    /// Who allowed it.
    public let userID: UserID
    /// The client allowed.
    public let clientID: String
    /// The scopes allowed, sorted.
    public let scopes: [String]
    /// When it was last granted or widened.
    public let grantedAt: Date

    /// Creates a consent; the scopes are kept sorted and unique.
    public init(userID: UserID, clientID: String, scopes: some Sequence<String>, grantedAt: Date) {
        self.userID = userID
        self.clientID = clientID
        self.scopes = Set(scopes).sorted()
        self.grantedAt = grantedAt
    }

    /// Whether it covers every scope of a request.
    public func covers(_ requested: [String]) -> Bool {
        Set(requested).isSubset(of: scopes)
    }
}
