/// A configuration value Latchkey cannot run with. The message names the key (as a path
/// like `relying_party.origins[1]`) and says what is wrong and what would be right.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The key at fault, or the file when the problem is the file itself.
    public let key: String
    /// What is wrong.
    public let message: String

    /// Creates an error.
    public init(key: String, _ message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { "\(key): \(message)" }
}
