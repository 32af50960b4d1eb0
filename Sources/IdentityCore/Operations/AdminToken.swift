public import Foundation

/// A token an Administration API application authenticated for. Only its SHA-256 is
/// stored; it can call administration operations only, never act as a user.
public struct AdminToken: Sendable, Hashable {
    /// SHA-256 of the token.
    public let tokenHash: [UInt8]
    /// The configured administration application it was issued to.
    public let applicationID: String
    /// When it was issued.
    public let createdAt: Date
    public let expiresAt: Date

    public init(tokenHash: [UInt8], applicationID: String, createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.applicationID = applicationID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
