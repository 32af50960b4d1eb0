import Crypto
import Foundation
import WebAuthn

/// Seals ceremonies into the tokens clients carry between a ceremony's start and its finish
/// (the Authentication API's `auth_session`, a self-service flow's ceremony, an IDaaS transaction token).
///
/// A ceremony is encrypted and authenticated with AES-256-GCM under an instance secret, so a
/// client can neither read it (a pending sign-up's profile, the allowed credentials) nor
/// change it (its challenge, client, user or expiry). Starting a ceremony therefore writes
/// nothing: the challenge request costs no database work, any instance that shares the
/// secret can finish a ceremony another started, and abandoned ceremonies take no space.
/// What a seal cannot give, single use, comes from the store: finishing a ceremony records
/// its ``CeremonyKey`` in the same transaction as everything the ceremony writes.
public struct CeremonySeal: Sendable {
    private let key: SymmetricKey

    /// The largest token opened; sealed ceremonies are far smaller, so anything larger is
    /// not one and is refused before any work.
    static let maximumTokenBytes = 32 * 1024

    /// Bound into every seal, so a token sealed for another purpose never opens as a ceremony.
    private static let purpose = Array("latchkey ceremony v1".utf8)

    /// Traps unless `key` is 32 bytes long.
    public init(key: [UInt8]) {
        precondition(key.count == 32, "the ceremony key is 32 bytes")
        self.key = SymmetricKey(data: key)
    }

    /// Seals a ceremony.
    /// - Parameters:
    ///   - challengeIsToken: Whether the challenge is the token itself, for faces whose
    ///     finishing request names the ceremony only through the challenge in its client
    ///     data. The ceremony's own `challenge` is then ignored; ``open(_:)`` gives back a
    ///     ceremony whose challenge is the token.
    ///   - nonce: 12 random bytes.
    /// - Returns: The token.
    public func seal(_ ceremony: Ceremony, challengeIsToken: Bool = false, nonce: [UInt8]) throws -> [UInt8] {
        var writer = BinaryWriter()
        writer.write(challengeIsToken ? Self.challengeIsTokenVersion : Self.version)
        writer.writeFixed(ceremony.key.bytes)
        writer.write(Self.code(ceremony.kind))
        writer.write(ceremony.clientID)
        if !challengeIsToken { writer.write(ceremony.challenge) }
        writer.write(Self.code(ceremony.userVerification))
        writer.write(ceremony.createdAt.timeIntervalSince1970)
        writer.writeOptional(ceremony.userID) { $0.write($1.rawValue) }
        writer.write(UInt32(ceremony.allowedCredentialIDs.count))
        for id in ceremony.allowedCredentialIDs { writer.write(id) }
        writer.writeOptional(ceremony.pendingUser) { Self.write($1, to: &$0) }
        let sealed = try AES.GCM.seal(writer.bytes, using: key, nonce: try AES.GCM.Nonce(data: nonce), authenticating: Self.purpose)
        guard let combined = sealed.combined else { throw CeremonySealError() }
        return Array(combined)
    }

    /// The ceremony a token seals, or `nil` when the token was not sealed with this key,
    /// was changed, or is not a ceremony. Whether it has expired, and for whom, is the
    /// caller's to check.
    public func open(_ token: [UInt8]) -> Ceremony? {
        guard token.count <= Self.maximumTokenBytes,
            let box = try? AES.GCM.SealedBox(combined: token),
            let plaintext = try? AES.GCM.open(box, using: key, authenticating: Self.purpose)
        else { return nil }
        var reader = BinaryReader(Array(plaintext))
        let version = reader.byte()
        guard version == Self.version || version == Self.challengeIsTokenVersion,
            let keyBytes = reader.fixed(16), let key = CeremonyKey(bytes: keyBytes),
            let kind = reader.byte().flatMap(Self.kind),
            let clientID = reader.string(),
            let challenge = version == Self.challengeIsTokenVersion ? token : reader.lengthPrefixed(),
            let userVerification = reader.byte().flatMap(Self.userVerification),
            let createdAt = reader.double(),
            let userID = reader.optional({ $0.string().map(UserID.init(rawValue:)) }),
            let allowedCount = reader.uint32(), allowedCount <= 4096
        else { return nil }
        var allowed: [[UInt8]] = []
        for _ in 0..<allowedCount {
            guard let id = reader.lengthPrefixed() else { return nil }
            allowed.append(id)
        }
        guard let pendingUser = reader.optional(Self.readUser), reader.isAtEnd else { return nil }
        return Ceremony(
            key: key, kind: kind, clientID: clientID, challenge: challenge, userVerification: userVerification,
            pendingUser: pendingUser, userID: userID, allowedCredentialIDs: allowed, createdAt: Date(timeIntervalSince1970: createdAt)
        )
    }

    // MARK: - The plaintext

    private static let version: UInt8 = 1
    private static let challengeIsTokenVersion: UInt8 = 2

    private static func code(_ kind: Ceremony.Kind) -> UInt8 {
        switch kind {
        case .signup: return 0
        case .login: return 1
        case .enrollment: return 2
        case .conditionalEnrollment: return 3
        }
    }

    private static func kind(_ code: UInt8) -> Ceremony.Kind? {
        [Ceremony.Kind.signup, .login, .enrollment, .conditionalEnrollment].first { self.code($0) == code }
    }

    private static func code(_ requirement: UserVerificationRequirement) -> UInt8 {
        switch requirement {
        case .required: return 0
        case .preferred: return 1
        case .discouraged: return 2
        }
    }

    private static func userVerification(_ code: UInt8) -> UserVerificationRequirement? {
        [UserVerificationRequirement.required, .preferred, .discouraged].first { self.code($0) == code }
    }

    private static func write(_ user: User, to writer: inout BinaryWriter) {
        writer.write(user.id.rawValue)
        writer.write(user.userHandle)
        let profile = user.profile
        for field in [profile.email, profile.phoneNumber, profile.username, profile.name, profile.givenName, profile.familyName, profile.nickname, profile.picture] {
            writer.writeOptional(field) { $0.write($1) }
        }
        writer.write(user.createdAt.timeIntervalSince1970)
        writer.write(user.updatedAt.timeIntervalSince1970)
    }

    private static func readUser(_ reader: inout BinaryReader) -> User? {
        guard let id = reader.string(), let handle = reader.lengthPrefixed() else { return nil }
        var fields: [String?] = []
        for _ in 0..<8 {
            guard let field = reader.optional({ $0.string() }) else { return nil }
            fields.append(field)
        }
        guard let createdAt = reader.double(), let updatedAt = reader.double() else { return nil }
        let profile = UserProfile(
            email: fields[0], phoneNumber: fields[1], username: fields[2], name: fields[3],
            givenName: fields[4], familyName: fields[5], nickname: fields[6], picture: fields[7]
        )
        return User(
            id: UserID(rawValue: id), userHandle: handle, profile: profile,
            createdAt: Date(timeIntervalSince1970: createdAt), updatedAt: Date(timeIntervalSince1970: updatedAt)
        )
    }
}

/// Sealing failed; AES-GCM with a valid key and nonce does not.
struct CeremonySealError: Error {}
