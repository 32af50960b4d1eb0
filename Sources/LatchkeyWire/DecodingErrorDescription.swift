/// Turns Foundation decoding errors into short messages that name the member.
public enum DecodingErrorDescription {
    /// A one-line message naming the member at fault.
    public static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the top level" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return parent == "the top level" ? "required member \"\(key.stringValue)\" is missing" : "required member \"\(key.stringValue)\" is missing in \(parent)"
        case .typeMismatch(let type, let context):
            return "\(path(context)) has the wrong type (expected \(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)) is null (expected \(type))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "cannot be decoded"
        }
    }
}
