import CBOR
import Testing

@Suite("CBOR encoder")
struct CBOREncoderTests {
    @Test func integersUseTheShortestForm() {
        #expect(CBOREncoder.encode(0) == [0x00])
        #expect(CBOREncoder.encode(23) == [0x17])
        #expect(CBOREncoder.encode(24) == [0x18, 0x18])
        #expect(CBOREncoder.encode(256) == [0x19, 0x01, 0x00])
        #expect(CBOREncoder.encode(65536) == [0x1a, 0x00, 0x01, 0x00, 0x00])
        #expect(CBOREncoder.encode(.unsigned(1 << 32)) == [0x1b, 0, 0, 0, 1, 0, 0, 0, 0])
        #expect(CBOREncoder.encode(-1) == [0x20])
        #expect(CBOREncoder.encode(-7) == [0x26])
        #expect(CBOREncoder.encode(-257) == [0x39, 0x01, 0x00])
        #expect(CBOREncoder.encode(.int(Int64.min)) == [0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
    }

    @Test func mapKeysAreSortedCanonically() {
        // CTAP2: shorter encodings first, then bytewise: 1, 3, -1, -2, "a", "fmt", "attStmt".
        let map: CBORItem = ["attStmt": 0, -2: 0, "fmt": 0, 3: 0, "a": 0, -1: 0, 1: 0]
        let decoded = try? CBORDecoder().decode(CBOREncoder.encode(map))
        guard case .map(let entries)? = decoded?.value else {
            Issue.record("did not decode as a map")
            return
        }
        let keys = entries.map { entry -> String in
            if case .text(let text) = entry.key.value { return text }
            return String(entry.key.value.int64 ?? 0)
        }
        #expect(keys == ["1", "3", "-1", "-2", "a", "fmt", "attStmt"])
    }

    @Test func decodedStructuresRoundTrip() throws {
        let item: CBORItem = ["fmt": "packed", "attStmt": ["alg": -7, "sig": .bytes([1, 2, 3]), "x5c": [.bytes([4, 5])]], "authData": .bytes(Array(repeating: 9, count: 300))]
        let encoded = CBOREncoder.encode(item)
        let node = try CBORDecoder().decode(encoded)
        #expect(CBOREncoder.encode(CBORItem(node)) == encoded)
        #expect(Array(node.encodedBytes) == encoded)
    }

    @Test func subscriptReplacesAndRemovesEntries() {
        var map: CBORItem = ["a": 1, "b": 2]
        map["a"] = 5
        map["b"] = nil
        map["c"] = true
        #expect(map == ["a": 5, "c": true])
    }
}
