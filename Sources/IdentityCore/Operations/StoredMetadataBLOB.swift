public import Foundation

/// A FIDO metadata BLOB as stored: the bytes as downloaded, so that every instance (and
/// every restart) verifies the same signed document itself.
public struct StoredMetadataBLOB: Sendable, Hashable {
    /// The BLOB's serial number (`no`).
    public let number: Int
    /// The compact JWS as downloaded.
    public let bytes: [UInt8]
    public let storedAt: Date

    public init(number: Int, bytes: [UInt8], storedAt: Date) {
        self.number = number
        self.bytes = bytes
        self.storedAt = storedAt
    }
}

/// What saving a metadata BLOB did.
public enum MetadataBLOBSave: Sendable, Hashable {
    /// It is now the stored BLOB.
    case stored
    /// A BLOB with the same serial number is already stored; nothing changed.
    case unchanged
    /// The stored BLOB has a higher serial number; nothing changed.
    case older(stored: Int)
}
