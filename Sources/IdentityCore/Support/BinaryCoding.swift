import Foundation

/// Writes the compact binary form of values Latchkey seals (ceremonies): fixed-width
/// big-endian integers and length-prefixed bytes. Hand-written because the form must be
/// small (it travels in every ceremony handle) and fast (it is built on every ceremony start),
/// where JSON would be neither.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func write(_ byte: UInt8) { bytes.append(byte) }

    mutating func write(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func write(_ value: Double) {
        let bits = value.bitPattern
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// Bytes with a 32-bit length before them.
    mutating func write(_ value: some Collection<UInt8>) {
        write(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    /// Bytes of a known, fixed length, without a length.
    mutating func writeFixed(_ value: [UInt8]) { bytes.append(contentsOf: value) }

    mutating func write(_ text: String) { write(text.utf8) }

    /// A presence byte, then the value when present.
    mutating func writeOptional<T>(_ value: T?, _ body: (inout BinaryWriter, T) -> Void) {
        write(value != nil)
        if let value { body(&self, value) }
    }
}

/// Reads what ``BinaryWriter`` wrote, consuming a slice: every read checks the bytes left,
/// and a truncated or malformed input is `nil`, never a crash.
struct BinaryReader {
    private var rest: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { rest = bytes[...] }

    var isAtEnd: Bool { rest.isEmpty }

    mutating func byte() -> UInt8? { rest.popFirst() }

    mutating func uint32() -> UInt32? {
        guard let four = fixed(4) else { return nil }
        return four.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    mutating func double() -> Double? {
        guard let eight = fixed(8) else { return nil }
        return Double(bitPattern: eight.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    mutating func bool() -> Bool? {
        switch byte() {
        case 0: return false
        case 1: return true
        default: return nil
        }
    }

    mutating func fixed(_ count: Int) -> [UInt8]? {
        guard rest.count >= count else { return nil }
        defer { rest = rest.dropFirst(count) }
        return Array(rest.prefix(count))
    }

    mutating func lengthPrefixed() -> [UInt8]? {
        guard let count = uint32(), count <= rest.count else { return nil }
        return fixed(Int(count))
    }

    mutating func string() -> String? {
        lengthPrefixed().flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Reads a presence byte, then the value when present. `.some(nil)` is "absent";
    /// `nil` is malformed.
    mutating func optional<T>(_ body: (inout BinaryReader) -> T?) -> T?? {
        switch bool() {
        case false?: return .some(nil)
        case true?: return body(&self).map { .some($0) }
        case nil: return nil
        }
    }
}
