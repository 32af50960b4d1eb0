public import Foundation

/// What an operator may do in the console: a viewer sees, an admin also changes.
public enum OperatorRole: String, Sendable, Hashable, CaseIterable {
    case viewer, admin

    /// Whether the role may change what it sees.
    public var canChange: Bool { self == .admin }
}

/// An account that may open the console.
public struct Operator: Sendable, Hashable {
    public let userID: UserID
    public let role: OperatorRole
    /// When the account was made an operator with this role.
    public let since: Date

    public init(userID: UserID, role: OperatorRole, since: Date) {
        self.userID = userID
        self.role = role
        self.since = since
    }

    /// The audit trail's ``AuditEvent/actor`` for what an operator does in the console:
    /// `operator:` and the operator's user ID.
    public static func actor(_ userID: UserID) -> String { actorPrefix + userID.rawValue }
    /// The prefix of ``actor(_:)``.
    public static let actorPrefix = "operator:"
}
