/// A decoded CBOR data item together with the exact bytes it was decoded from.
///
/// Keeping ``encodedBytes`` lets verifiers hash and sign over what was received instead
/// of re-encoding a parsed value (for example a COSE key inside authenticator data).
public struct CBORNode: Sendable, Hashable {
    /// The decoded value.
    public let value: CBORValue
    /// The bytes this item occupied in the input, including its header.
    public let encodedBytes: ArraySlice<UInt8>

    /// Creates a node; used by the decoder.
    public init(value: CBORValue, encodedBytes: ArraySlice<UInt8>) {
        self.value = value
        self.encodedBytes = encodedBytes
    }
}

/// The value of a CBOR data item (RFC 8949 §3), restricted to definite lengths.
public indirect enum CBORValue: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer `-1 - n`, stored as `n` so that the full range fits.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes(ArraySlice<UInt8>)
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBORNode])
    /// Major type 5: a map, in the order received. Keys are unique.
    case map([CBORMapEntry])
    /// Major type 6: a tagged item.
    case tagged(UInt64, CBORNode)
    /// Major type 7: `false` or `true`.
    case bool(Bool)
    /// Major type 7: `null`.
    case null
    /// Major type 7: `undefined`.
    case undefined
    /// Major type 7: any other simple value.
    case simple(UInt8)
    /// Major type 7: a half, single or double precision float, widened to `Double`.
    case float(Double)
}

/// One key/value pair of a CBOR map. Only the decoder makes them: like a node, an entry
/// stands for bytes that were received.
public struct CBORMapEntry: Sendable, Hashable {
    public let key: CBORNode
    public let value: CBORNode
}

extension CBORValue {
    /// The value as a signed integer, when it is an integer that fits in `Int64`.
    public var int64: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }

    /// A short name of the value's type, for error messages.
    public var typeName: String {
        switch self {
        case .unsigned, .negative: return "integer"
        case .bytes: return "byte string"
        case .text: return "text string"
        case .array: return "array"
        case .map: return "map"
        case .tagged: return "tagged item"
        case .bool: return "boolean"
        case .null: return "null"
        case .undefined: return "undefined"
        case .simple: return "simple value"
        case .float: return "float"
        }
    }
}
