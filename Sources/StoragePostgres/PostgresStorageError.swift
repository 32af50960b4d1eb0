public import IdentityCore

/// This backend's errors: the storage backends' one error type.
public typealias PostgresStorageError = StorageError
