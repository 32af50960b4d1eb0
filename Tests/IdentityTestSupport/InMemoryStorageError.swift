public import IdentityCore

/// Why ``InMemoryStorage`` refused a write that is not a uniqueness conflict (where SQLite
/// would raise a constraint error of its own): the backends' one error type.
public typealias InMemoryStorageError = StorageError
