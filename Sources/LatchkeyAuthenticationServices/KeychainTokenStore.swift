import Foundation
#if canImport(Security)
import Security
#else
import AuthenticationServicesShim
#endif
public import LatchkeyClient

/// The session in the keychain: one generic-password item, readable after the device's
/// first unlock and never synced or backed up to another device.
///
/// Give app extensions and widgets the same `accessGroup` (a keychain access group of the
/// app's entitlements, `TEAMID.com.example.shared`) and they share the sign-in: each reads
/// the item whole, and ``Latchkey`` reads it again before a refresh, so a token another
/// process rotated is used rather than presented stale.
public struct KeychainTokenStore: TokenStore {
    /// The item's service: one per server and app.
    public let service: String
    /// The item's account.
    public let account: String
    /// The keychain access group; `nil` is the app's default group.
    public let accessGroup: String?

    /// - Parameters:
    ///   - service: The item's service; by default `latchkey`.
    ///   - account: The item's account; by default `session`.
    ///   - accessGroup: A keychain access group shared with extensions and widgets.
    public init(service: String = "latchkey", account: String = "session", accessGroup: String? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }

    public func load() throws -> StoredSession? {
        var query = baseQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw KeychainError(status: status, operation: "read") }
        return try StoredSession(json: data)
    }

    /// Replaces the item in one step (an update of the existing item, else an add), so that a
    /// process killed meanwhile leaves the old session or the new one.
    public func save(_ session: StoredSession) throws {
        let data = try session.json()
        let update: [String: Any] = [kSecValueData as String: data]
        var status = SecItemUpdate(baseQuery as CFDictionary, update as CFDictionary)
        if status == errSecItemNotFound {
            var add = baseQuery
            add[kSecValueData as String] = data
            add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(add as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw KeychainError(status: status, operation: "write") }
    }

    public func clear() throws {
        let status = SecItemDelete(baseQuery as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status, operation: "delete") }
    }

    private var baseQuery: [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }
}

/// A keychain call that failed, with its `OSStatus`.
public struct KeychainError: Error, CustomStringConvertible, Sendable {
    /// The status the keychain returned.
    public let status: Int32
    /// What was attempted.
    public let operation: String

    public var description: String { "the keychain could not \(operation) the session (OSStatus \(status))" }
}
