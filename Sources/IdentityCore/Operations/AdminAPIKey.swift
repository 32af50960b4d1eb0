public import Foundation

/// An admin API key: a bearer credential for the Admin API (`/admin/v1/`), made by an
/// operator with `latchkey admin keys create`. Only its SHA-256 is stored; the key itself is
/// shown once, when it is made.
public struct AdminAPIKey: Sendable, Hashable {
    /// The key's ID (`ak_…`), named in audit events and by `latchkey admin keys revoke`.
    public let id: String
    /// What the operator called it.
    public let name: String
    /// What it may do.
    public let scopes: Set<AdminScope>
    /// SHA-256 of the key.
    public let keyHash: [UInt8]
    /// When it was made.
    public let createdAt: Date
    /// When it was last used, to the minute.
    public var lastUsedAt: Date?
    /// When it was revoked; a revoked key authenticates nothing.
    public var revokedAt: Date?

    public init(id: String, name: String, scopes: Set<AdminScope>, keyHash: [UInt8], createdAt: Date, lastUsedAt: Date? = nil, revokedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.scopes = scopes
        self.keyHash = keyHash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }

    /// The audit trail's name for it as an actor.
    public var actor: String { AuditEvent.adminKeyActorPrefix + id }
}

/// What an admin API key may do: read or write one resource.
public struct AdminScope: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let resource: Resource
    /// Whether it may change the resource, not only read it.
    public let writes: Bool

    /// The resources the Admin API has.
    public enum Resource: String, Sendable, Hashable, CaseIterable {
        case users, credentials, sessions, events, webhooks, clients
        /// One-use enrollment links, with which whoever holds one adds a passkey to the
        /// account: a way in, so a scope of its own (`enrollment:write`) rather than part of
        /// `credentials:write`. Nothing about it is read.
        case enrollment
        /// The Shared Signals management API (`ssf:write`): a receiver's key, which makes and
        /// runs its own streams and polls them, and reaches nothing else.
        case ssf

        /// Whether the API changes it: events and clients are read-only.
        public var isWritable: Bool { self != .events && self != .clients }
        /// Whether the API reads it: enrollment links are only made, and a receiver's reads of
        /// its streams come with `ssf:write`.
        public var isReadable: Bool { self != .enrollment && self != .ssf }
    }

    /// Unlike parsing a scope's text, does not check that `resource` can be read or written.
    public init(_ resource: Resource, writes: Bool) {
        self.resource = resource
        self.writes = writes
    }

    /// Reads a scope as written (`users:read`, `credentials:write`); `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let resource = Resource(rawValue: String(parts[0])) else { return nil }
        switch parts[1] {
        case "read" where resource.isReadable: self.init(resource, writes: false)
        case "write" where resource.isWritable: self.init(resource, writes: true)
        default: return nil
        }
    }

    /// `users:read`, `credentials:write`.
    public var description: String { "\(resource.rawValue):\(writes ? "write" : "read")" }

    /// Every scope there is, in a stable order.
    public static var all: [AdminScope] {
        Resource.allCases.flatMap { resource in
            (resource.isReadable ? [AdminScope(resource, writes: false)] : []) + (resource.isWritable ? [AdminScope(resource, writes: true)] : [])
        }
    }

    public static func < (lhs: AdminScope, rhs: AdminScope) -> Bool { lhs.description < rhs.description }

    /// Reads a comma-separated list; a write scope implies reading the same resource.
    /// - Throws: `invalid_request` naming the first unknown scope.
    public static func parseList(_ text: String) throws(IdentityError) -> Set<AdminScope> {
        var scopes = Set<AdminScope>()
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            guard let scope = AdminScope(item) else {
                throw IdentityError(.invalidRequest, "unknown scope \"\(item.prefix(60))\"; scopes are \(all.map(\.description).joined(separator: ", "))")
            }
            scopes.insert(scope)
            if scope.writes, scope.resource.isReadable { scopes.insert(AdminScope(scope.resource, writes: false)) }
        }
        guard !scopes.isEmpty else { throw IdentityError(.invalidRequest, "a key needs at least one scope, such as users:read") }
        return scopes
    }
}
