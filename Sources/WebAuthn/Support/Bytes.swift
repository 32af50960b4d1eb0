/// Small byte helpers shared by the verifiers.
public enum Bytes {
    /// Compares two byte sequences in time that depends only on their lengths, for secrets
    /// such as challenges.
    public static func constantTimeEqual(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }

    /// Lowercase hexadecimal, for messages.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads a big-endian unsigned integer of `width` bytes from the front of `input`.
    static func popBigEndian<T: FixedWidthInteger & UnsignedInteger>(
        _ type: T.Type,
        from input: inout ArraySlice<UInt8>
    ) -> T? {
        let width = MemoryLayout<T>.size
        let bytes = input.prefix(width)
        guard bytes.count == width else { return nil }
        input = input.dropFirst(width)
        return bytes.reduce(T.zero) { $0 << 8 | T($1) }
    }

    /// Takes exactly `count` bytes from the front of `input`.
    static func pop(_ count: Int, from input: inout ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let bytes = input.prefix(count)
        guard bytes.count == count else { return nil }
        input = input.dropFirst(count)
        return bytes
    }
}

extension Bytes {
    /// The big-endian bytes of an unsigned integer.
    static func bigEndian<T: FixedWidthInteger & UnsignedInteger>(_ value: T) -> [UInt8] {
        (0..<MemoryLayout<T>.size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
