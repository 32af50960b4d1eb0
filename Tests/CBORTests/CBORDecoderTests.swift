import CBOR
import Testing

private func bytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        out.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return out
}

private func decode(_ hex: String) throws -> CBORNode {
    try CBORDecoder().decode(bytes(hex))
}

private func decodeError(_ hex: String, maximumDepth: Int = 16) -> CBORError? {
    do {
        _ = try CBORDecoder(maximumDepth: maximumDepth).decode(bytes(hex))
        return nil
    } catch {
        return error
    }
}

@Suite("CBOR decoder: RFC 8949 Appendix A examples")
struct CBORAppendixATests {
    @Test(arguments: [
        ("00", CBORValue.unsigned(0)), ("01", .unsigned(1)), ("0a", .unsigned(10)), ("17", .unsigned(23)),
        ("1818", .unsigned(24)), ("1819", .unsigned(25)), ("1864", .unsigned(100)), ("1903e8", .unsigned(1000)),
        ("1a000f4240", .unsigned(1_000_000)), ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        ("1bffffffffffffffff", .unsigned(18_446_744_073_709_551_615)),
        ("20", .negative(0)), ("29", .negative(9)), ("3863", .negative(99)), ("3903e7", .negative(999)),
        ("3bffffffffffffffff", .negative(18_446_744_073_709_551_615)),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("f7", .undefined), ("f0", .simple(16)), ("f8ff", .simple(255)),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")), ("62225c", .text("\"\\")),
        ("62c3bc", .text("\u{00fc}")), ("63e6b0b4", .text("\u{6c34}")), ("64f0908591", .text("\u{10151}")),
    ])
    func scalars(hex: String, expected: CBORValue) throws {
        #expect(try decode(hex).value == expected)
    }

    @Test(arguments: [
        ("f90000", 0.0), ("f93c00", 1.0), ("f93e00", 1.5), ("f97bff", 65504.0), ("fa47c35000", 100000.0),
        ("fb3ff199999999999a", 1.1), ("f90001", 5.960464477539063e-8), ("f9c400", -4.0), ("f97c00", Double.infinity),
    ])
    func floats(hex: String, expected: Double) throws {
        #expect(try decode(hex).value == .float(expected))
    }

    @Test func halfPrecisionNaN() throws {
        guard case .float(let value) = try decode("f97e00").value else {
            Issue.record("not a float")
            return
        }
        #expect(value.isNaN)
    }

    @Test func nestedArraysAndMaps() throws {
        let array = try decode("8301820203820405")
        guard case .array(let elements) = array.value, elements.count == 3 else {
            Issue.record("expected a 3-element array")
            return
        }
        #expect(elements[0].value == .unsigned(1))
        #expect(Array(elements[1].encodedBytes) == bytes("820203"))

        let map = try decode("a26161016162820203")
        #expect(map[textKey: "a"]?.value == .unsigned(1))
        #expect(map[textKey: "b"].map { Array($0.encodedBytes) } == bytes("820203"))
        #expect(map[textKey: "c"] == nil)

        let intKeys = try decode("a201020304")
        #expect(intKeys[intKey: 1]?.value == .unsigned(2))
        #expect(intKeys[intKey: 3]?.value == .unsigned(4))
    }

    @Test func tagsKeepTheirContent() throws {
        let tagged = try decode("c11a514b67b0")
        #expect(tagged.value == .tagged(1, CBORNode(value: .unsigned(1_363_896_240), encodedBytes: bytes("1a514b67b0")[...])))
    }

    @Test func twentyFiveElementArray() throws {
        let node = try decode("98190102030405060708090a0b0c0d0e0f101112131415161718181819")
        guard case .array(let elements) = node.value else {
            Issue.record("not an array")
            return
        }
        #expect(elements.count == 25)
        #expect(elements.last?.value == .unsigned(25))
    }
}

@Suite("CBOR decoder: hostile input")
struct CBORHostileInputTests {
    @Test func trailingBytesAreReportedWithOffsetAndCount() {
        let error = decodeError("0102ff")
        #expect(error?.code == .trailingBytes)
        #expect(error?.offset == 1)
        #expect(error?.reason.contains("2 byte(s)") == true)
    }

    @Test func decodePrefixReturnsTheRest() throws {
        let (node, rest) = try CBORDecoder().decodePrefix(bytes("a10102aabb")[...])
        #expect(node[intKey: 1]?.value == .unsigned(2))
        #expect(Array(rest) == [0xaa, 0xbb])
    }

    @Test(arguments: [
        "18", "19ff", "1a0000", "1b00000000000000", "41", "5a0001000001", "62c3", "8201", "a2010203", "c1", "f9", "fa0000", "fb00",
    ])
    func truncatedItems(hex: String) {
        let code = decodeError(hex)?.code
        #expect(code == .truncated || code == .lengthExceedsInput, "\(hex): \(String(describing: code))")
    }

    @Test func declaredLengthsAreCheckedBeforeAllocation() {
        // A byte string and an array each claiming 2^64-1 items in a 9-byte input.
        #expect(decodeError("5bffffffffffffffff")?.code == .lengthExceedsInput)
        #expect(decodeError("9bffffffffffffffff")?.code == .lengthExceedsInput)
        #expect(decodeError("bbffffffffffffffff")?.code == .lengthExceedsInput)
        // A map of 2 entries needs at least 4 bytes.
        #expect(decodeError("a20102")?.code == .lengthExceedsInput)
    }

    @Test func duplicateKeysAreRejected() {
        #expect(decodeError("a201020103")?.code == .duplicateMapKey)
        #expect(decodeError("a2616101616102")?.code == .duplicateMapKey)
        // The integer 1 and the text "1" are different keys.
        #expect(decodeError("a20102613103") == nil)
    }

    @Test func indefiniteLengthsAreRejected() {
        for hex in ["5f42010243030405ff", "7f657374726561646d696e67ff", "9fff", "bf6346756ef563416d7421ff"] {
            #expect(decodeError(hex)?.code == .indefiniteLength, "\(hex)")
        }
    }

    @Test func nonMinimalEncodingsAreRejected() {
        for hex in ["1800", "1817", "190010", "1a0000ffff", "1b00000000ffffffff", "3800", "5801ff", "780161", "980100", "b8010102"] {
            #expect(decodeError(hex)?.code == .nonMinimalEncoding, "\(hex)")
        }
    }

    @Test func reservedAndBreakBytesAreMalformed() {
        for hex in ["1c", "1d", "1e", "3f", "df", "fc", "ff", "f800", "f81f"] {
            #expect(decodeError(hex)?.code == .malformedItem, "\(hex)")
        }
    }

    @Test func invalidUTF8IsRejected() {
        #expect(decodeError("62c328")?.code == .invalidUTF8)
        #expect(decodeError("61ff")?.code == .invalidUTF8)
    }

    @Test func depthIsLimited() {
        let deep = String(repeating: "81", count: 20) + "00"
        #expect(decodeError(deep)?.code == .depthLimitExceeded)
        #expect(decodeError(String(repeating: "81", count: 15) + "00") == nil)
        #expect(decodeError(String(repeating: "c1", count: 17) + "00")?.code == .depthLimitExceeded)
    }

    @Test func emptyInputIsTruncated() {
        #expect(decodeError("")?.code == .truncated)
    }

    /// Drip-feed: every strict prefix of a valid COSE key must fail cleanly, and the whole
    /// key must decode.
    @Test func everyPrefixOfAValidItemFails() throws {
        let key = bytes("a501020326200121582065eda5a12577c2bae829437fe338701a10aaa375e1bb5b5de108de439c08551d2258201e52ed75701163f7f9e40ddf9f341b3dc9ba860af7e0ca7ca7e9eecd0084d19c")
        for length in 0..<key.count {
            #expect(throws: CBORError.self) { try CBORDecoder().decode(key.prefix(length)) }
        }
        #expect(try CBORDecoder().decode(key)[intKey: 3]?.value.int64 == -7)
    }
}
