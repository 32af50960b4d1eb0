public import HTTPTypes

/// The header the server's connection handler sets from the socket (or from a trusted
/// proxy's `X-Forwarded-For`), replacing any the client sent. Made once: a name is
/// validated and lowercased as it is made, and every request reads this one.
public enum ClientAddressHeader {
    /// `X-Latchkey-Client-Address`.
    public static let name = HTTPField.Name("X-Latchkey-Client-Address")!
}

extension HTTPFields {
    /// The value of the first field with this name. For the fields every request reads that
    /// have one value (the client's address, which the server writes, and `User-Agent`):
    /// the subscript joins repeated fields through generic sequence code that costs several
    /// times the lookup.
    package func firstValue(_ name: HTTPField.Name) -> String? {
        for field in self where field.name == name { return field.value }
        return nil
    }
}
