import NIOCore
import PostgresNIO

/// A one-dimensional array parameter whose elements may be NULL, in PostgreSQL's binary array
/// format. postgres-nio encodes arrays of values only (`Optional` is not an array element
/// there), and the batched finish (``LoginFinishBatch``) sends one array per column, where a
/// login without a session or a failed-finish check has NULLs.
struct NullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresNonThrowingEncodable {
    var elements: [Element?]

    init(_ elements: [Element?]) { self.elements = elements }

    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions (0 for an empty array), whether any element is NULL, the element type;
        // then the one dimension's length and lower bound, and each element by its length
        // (-1: NULL) and value.
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains { $0 == nil } ? 1 : 0, as: Int32.self)
        buffer.writeInteger(Element.psqlType.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            if let element {
                let lengthIndex = buffer.writerIndex
                buffer.writeInteger(0, as: Int32.self)
                let start = buffer.writerIndex
                element.encode(into: &buffer, context: context)
                buffer.setInteger(Int32(buffer.writerIndex - start), at: lengthIndex)
            } else {
                buffer.writeInteger(-1, as: Int32.self)
            }
        }
    }
}
