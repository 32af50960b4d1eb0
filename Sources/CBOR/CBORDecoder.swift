/// A strict decoder for the CBOR that WebAuthn carries: attestation objects, COSE keys and
/// extension outputs (RFC 8949, CTAP2 canonical subset).
///
/// The decoder consumes slices and never indexes by hand. It
/// - checks every declared length and element count against the remaining input before
///   allocating anything,
/// - limits nesting depth,
/// - rejects indefinite lengths and integers or lengths that are not in their shortest form,
///   as the CTAP2 canonical encoding requires,
/// - rejects duplicate map keys and text that is not UTF-8,
/// - reports trailing bytes with their offset and count.
///
/// Map key order is *not* enforced: real authenticators and platforms emit unsorted maps
/// (for example a COSE key with `-1` before `3`), and the order carries no meaning.
public struct CBORDecoder: Sendable {
    /// The deepest nesting of arrays, maps and tags accepted. WebAuthn structures need
    /// fewer than 8 levels; extension outputs get some headroom.
    public var maximumDepth: Int

    public init(maximumDepth: Int = 16) {
        self.maximumDepth = maximumDepth
    }

    /// Decodes exactly one item that must span the whole input.
    /// - Throws: ``CBORError`` with code ``CBORError/Code/trailingBytes`` when bytes remain.
    public func decode(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> CBORNode {
        let (node, rest) = try decodePrefix(bytes)
        guard rest.isEmpty else {
            throw CBORError(
                .trailingBytes,
                "\(rest.count) byte(s) follow the item that ends at offset \(rest.startIndex - bytes.startIndex)",
                offset: rest.startIndex - bytes.startIndex
            )
        }
        return node
    }

    /// Decodes exactly one item that must span the whole input.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORNode {
        try decode(bytes[...])
    }

    /// Decodes one item from the front of the input and returns it with the bytes after it.
    ///
    /// Authenticator data uses this: the credential public key is a CBOR item whose length
    /// is only known by decoding it, and extensions may follow it.
    public func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (node: CBORNode, rest: ArraySlice<UInt8>) {
        var reader = Reader(input: bytes, remaining: bytes, maximumDepth: maximumDepth)
        let node = try reader.readItem(depth: 1)
        return (node, reader.remaining)
    }
}

/// The decoding state: the whole input (to recover each item's bytes and report offsets)
/// and the part not yet consumed.
private struct Reader {
    let input: ArraySlice<UInt8>
    var remaining: ArraySlice<UInt8>
    let maximumDepth: Int

    var offset: Int { remaining.startIndex - input.startIndex }

    mutating func readItem(depth: Int) throws(CBORError) -> CBORNode {
        guard depth <= maximumDepth else {
            throw CBORError(.depthLimitExceeded, "items are nested more than \(maximumDepth) levels deep", offset: offset)
        }
        let start = remaining.startIndex
        let itemOffset = offset
        guard let initial = remaining.popFirst() else {
            throw CBORError(.truncated, "expected an item but the input ended", offset: itemOffset)
        }
        let major = initial >> 5
        let info = initial & 0x1f

        if major == 7 {
            let value = try readSimpleOrFloat(info: info, itemOffset: itemOffset)
            return CBORNode(value: value, encodedBytes: encoded(from: start))
        }
        guard info != 31 else {
            if major >= 2 && major <= 5 {
                throw CBORError(.indefiniteLength, "indefinite-length item of major type \(major) is not allowed", offset: itemOffset)
            }
            throw CBORError(.malformedItem, "additional information 31 is not valid for major type \(major)", offset: itemOffset)
        }
        let argument = try readArgument(info: info, itemOffset: itemOffset)

        let value: CBORValue
        switch major {
        case 0:
            value = .unsigned(argument)
        case 1:
            value = .negative(argument)
        case 2:
            value = .bytes(try readPayload(length: argument, itemOffset: itemOffset))
        case 3:
            let payload = try readPayload(length: argument, itemOffset: itemOffset)
            guard let text = String(validating: payload, as: UTF8.self) else {
                throw CBORError(.invalidUTF8, "text string of \(payload.count) byte(s) is not valid UTF-8", offset: itemOffset)
            }
            value = .text(text)
        case 4:
            let count = try elementCount(argument, bytesPerElement: 1, itemOffset: itemOffset)
            var elements: [CBORNode] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                elements.append(try readItem(depth: depth + 1))
            }
            value = .array(elements)
        case 5:
            let count = try elementCount(argument, bytesPerElement: 2, itemOffset: itemOffset)
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(count)
            // WebAuthn maps are small; a linear scan beats hashing until they are not.
            var seenKeys = count > 16 ? Set<CBORValue>(minimumCapacity: count) : nil
            for _ in 0..<count {
                let keyOffset = offset
                let key = try readItem(depth: depth + 1)
                let isDuplicate = seenKeys.map { !$0.contains(key.value) } == false
                    || (seenKeys == nil && entries.contains { $0.key.value == key.value })
                guard !isDuplicate else {
                    throw CBORError(.duplicateMapKey, "map key \(describeKey(key.value)) appears more than once", offset: keyOffset)
                }
                seenKeys?.insert(key.value)
                let mapValue = try readItem(depth: depth + 1)
                entries.append(CBORMapEntry(key: key, value: mapValue))
            }
            value = .map(entries)
        default:  // 6: tag
            value = .tagged(argument, try readItem(depth: depth + 1))
        }
        return CBORNode(value: value, encodedBytes: encoded(from: start))
    }

    /// The bytes consumed since `start`: the exact encoding of the item just read.
    private func encoded(from start: Int) -> ArraySlice<UInt8> {
        input[start..<remaining.startIndex]
    }

    /// Reads the argument that follows an initial byte and checks that it is minimal.
    private mutating func readArgument(info: UInt8, itemOffset: Int) throws(CBORError) -> UInt64 {
        let width: Int
        switch info {
        case 0..<24: return UInt64(info)
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        default:
            throw CBORError(.malformedItem, "additional information \(info) is reserved", offset: itemOffset)
        }
        let value = try readBigEndian(width: width, itemOffset: itemOffset)
        let smallestForWidth: UInt64 = width == 1 ? 24 : (1 << UInt64(4 * width))
        guard value >= smallestForWidth else {
            throw CBORError(
                .nonMinimalEncoding,
                "value \(value) is encoded in \(width) byte(s) but fits in fewer",
                offset: itemOffset
            )
        }
        return value
    }

    private mutating func readBigEndian(width: Int, itemOffset: Int) throws(CBORError) -> UInt64 {
        let bytes = remaining.prefix(width)
        guard bytes.count == width else {
            throw CBORError(.truncated, "expected \(width) argument byte(s), found \(bytes.count)", offset: itemOffset)
        }
        remaining = remaining.dropFirst(width)
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    private mutating func readPayload(length: UInt64, itemOffset: Int) throws(CBORError) -> ArraySlice<UInt8> {
        guard length <= UInt64(remaining.count) else {
            throw CBORError(
                .lengthExceedsInput,
                "declared length \(length) exceeds the \(remaining.count) byte(s) remaining",
                offset: itemOffset
            )
        }
        let payload = remaining.prefix(Int(length))
        remaining = remaining.dropFirst(Int(length))
        return payload
    }

    /// Every element needs at least one byte, so a count larger than the remaining input is
    /// rejected before any memory is reserved for it.
    private func elementCount(_ count: UInt64, bytesPerElement: UInt64, itemOffset: Int) throws(CBORError) -> Int {
        let (needed, overflow) = count.multipliedReportingOverflow(by: bytesPerElement)
        guard !overflow, needed <= UInt64(remaining.count) else {
            throw CBORError(
                .lengthExceedsInput,
                "declared \(count) element(s) cannot fit in the \(remaining.count) byte(s) remaining",
                offset: itemOffset
            )
        }
        return Int(count)
    }

    private mutating func readSimpleOrFloat(info: UInt8, itemOffset: Int) throws(CBORError) -> CBORValue {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(info)
        case 24:
            let value = UInt8(try readBigEndian(width: 1, itemOffset: itemOffset))
            guard value >= 32 else {
                throw CBORError(.malformedItem, "simple value \(value) must use the one-byte form", offset: itemOffset)
            }
            return .simple(value)
        case 25:
            return .float(halfToDouble(UInt16(try readBigEndian(width: 2, itemOffset: itemOffset))))
        case 26:
            return .float(Double(Float(bitPattern: UInt32(try readBigEndian(width: 4, itemOffset: itemOffset)))))
        case 27:
            return .float(Double(bitPattern: try readBigEndian(width: 8, itemOffset: itemOffset)))
        case 31:
            throw CBORError(.malformedItem, "a break byte (0xff) outside an indefinite-length item", offset: itemOffset)
        default:
            throw CBORError(.malformedItem, "additional information \(info) is reserved for major type 7", offset: itemOffset)
        }
    }
}

/// Converts an IEEE 754 half-precision value (RFC 8949 Appendix D).
private func halfToDouble(_ half: UInt16) -> Double {
    let exponent = Int((half >> 10) & 0x1f)
    let mantissa = Double(half & 0x3ff)
    let magnitude: Double
    switch exponent {
    case 0: magnitude = mantissa * 0x1p-24
    case 31: magnitude = mantissa == 0 ? .infinity : .nan
    default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
    }
    return half & 0x8000 == 0 ? magnitude : -magnitude
}

private func describeKey(_ value: CBORValue) -> String {
    switch value {
    case .text(let text): return "\"\(text.prefix(64))\""
    default:
        if let int = value.int64 { return String(int) }
        return "(\(value.typeName))"
    }
}
