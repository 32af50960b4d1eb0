public import Foundation

/// Who may open the operator console, and with which role.
public protocol OperatorStore: Sendable {
    /// Makes an account an operator with `role`, or (with `nil`) an account like any other.
    /// - Returns: `false` when there is no such account.
    func setOperatorRole(userID: UserID, role: OperatorRole?, at time: Date) async throws -> Bool
    /// The account's role in the console; `nil` for an account that is not an operator.
    func operatorRole(userID: UserID) async throws -> OperatorRole?
    /// Every operator, oldest first.
    func operators() async throws -> [Operator]
}
