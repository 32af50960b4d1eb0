/// Encodes ``CBORItem`` values in the CTAP2 canonical form: shortest-form integers and
/// lengths, definite lengths only, and map keys sorted by their encoded bytes (shorter
/// first, then bytewise).
public enum CBOREncoder {
    /// Returns the canonical encoding of `item`.
    public static func encode(_ item: CBORItem) -> [UInt8] {
        var output: [UInt8] = []
        append(item, to: &output)
        return output
    }

    private static func append(_ item: CBORItem, to output: inout [UInt8]) {
        switch item {
        case .unsigned(let n): appendHeader(major: 0, argument: n, to: &output)
        case .negative(let n): appendHeader(major: 1, argument: n, to: &output)
        case .bytes(let bytes):
            appendHeader(major: 2, argument: UInt64(bytes.count), to: &output)
            output.append(contentsOf: bytes)
        case .text(let text):
            let utf8 = Array(text.utf8)
            appendHeader(major: 3, argument: UInt64(utf8.count), to: &output)
            output.append(contentsOf: utf8)
        case .array(let elements):
            appendHeader(major: 4, argument: UInt64(elements.count), to: &output)
            for element in elements { append(element, to: &output) }
        case .map(let entries):
            let encoded = entries
                .map { (key: encode($0.key), value: encode($0.value)) }
                .sorted { lhs, rhs in
                    lhs.key.count != rhs.key.count ? lhs.key.count < rhs.key.count : lhs.key.lexicographicallyPrecedes(rhs.key)
                }
            appendHeader(major: 5, argument: UInt64(encoded.count), to: &output)
            for entry in encoded {
                output.append(contentsOf: entry.key)
                output.append(contentsOf: entry.value)
            }
        case .tagged(let tag, let inner):
            appendHeader(major: 6, argument: tag, to: &output)
            append(inner, to: &output)
        case .bool(let flag): output.append(flag ? 0xf5 : 0xf4)
        case .null: output.append(0xf6)
        case .encoded(let bytes): output.append(contentsOf: bytes)
        }
    }

    private static func appendHeader(major: UInt8, argument: UInt64, to output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: output.append(type | UInt8(argument))
        case 24...0xff: output.append(contentsOf: [type | 24, UInt8(argument)])
        case 0x100...0xffff: output.append(type | 25); appendBigEndian(argument, width: 2, to: &output)
        case 0x1_0000...0xffff_ffff: output.append(type | 26); appendBigEndian(argument, width: 4, to: &output)
        default: output.append(type | 27); appendBigEndian(argument, width: 8, to: &output)
        }
    }

    private static func appendBigEndian(_ value: UInt64, width: Int, to output: inout [UInt8]) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
