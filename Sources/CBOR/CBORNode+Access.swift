extension CBORNode {
    /// The value stored under an integer key, when this node is a map.
    public subscript(intKey key: Int64) -> CBORNode? {
        guard case .map(let entries) = value else { return nil }
        return entries.first { $0.key.value.int64 == key }?.value
    }

    /// The value stored under a text key, when this node is a map.
    public subscript(textKey key: String) -> CBORNode? {
        guard case .map(let entries) = value else { return nil }
        return entries.first {
            if case .text(let text) = $0.key.value { return text == key }
            return false
        }?.value
    }

    /// The map entries, or a ``CBORError/Code/unexpectedType`` error naming `context`.
    public func mapEntries(_ context: @autoclosure () -> String) throws(CBORError) -> [CBORMapEntry] {
        guard case .map(let entries) = value else { throw typeMismatch(expected: "map", context()) }
        return entries
    }

    /// The array elements, or a ``CBORError/Code/unexpectedType`` error naming `context`.
    public func arrayElements(_ context: @autoclosure () -> String) throws(CBORError) -> [CBORNode] {
        guard case .array(let elements) = value else { throw typeMismatch(expected: "array", context()) }
        return elements
    }

    /// The byte string contents, or a ``CBORError/Code/unexpectedType`` error naming `context`.
    public func byteString(_ context: @autoclosure () -> String) throws(CBORError) -> ArraySlice<UInt8> {
        guard case .bytes(let bytes) = value else { throw typeMismatch(expected: "byte string", context()) }
        return bytes
    }

    /// The text string, or a ``CBORError/Code/unexpectedType`` error naming `context`.
    public func textString(_ context: @autoclosure () -> String) throws(CBORError) -> String {
        guard case .text(let text) = value else { throw typeMismatch(expected: "text string", context()) }
        return text
    }

    /// The integer value, or a ``CBORError/Code/unexpectedType`` error naming `context`.
    public func integer(_ context: @autoclosure () -> String) throws(CBORError) -> Int64 {
        guard let int = value.int64 else { throw typeMismatch(expected: "integer", context()) }
        return int
    }

    private func typeMismatch(expected: String, _ context: String) -> CBORError {
        CBORError(.unexpectedType, "\(context) must be a \(expected), found a \(value.typeName)")
    }
}
