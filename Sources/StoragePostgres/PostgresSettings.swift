import Foundation

/// Where and how to reach PostgreSQL, from a URL in libpq's form:
/// `postgres://user:password@host:port/database?sslmode=require`.
///
/// Query parameters: `sslmode` (`disable`, `prefer`, `require`, `verify-ca`, `verify-full`;
/// libpq's meanings, default `prefer`), `sslrootcert` (a PEM file of the roots that verify
/// the server), `pool_size` (connections per instance, default 10), `statement_timeout`
/// (milliseconds, default 5000), `connect_timeout` (seconds, default 5), `pooler`
/// (`transaction` when the URL names a pooler such as PgBouncer in transaction mode),
/// `batch_size` (concurrent writes of one kind, login finishes or refresh-token rotations,
/// written by one statement at most, default 32; 1 writes each alone) and `batch_concurrency`
/// (such statements of each kind in flight at once, default 1).
public struct PostgresSettings: Sendable, Hashable {
    /// How the connection is protected.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, without verifying its certificate.
        case prefer
        /// TLS or no connection, without verifying the certificate (libpq's meaning).
        case require
        /// TLS with the certificate verified against the roots, any host name.
        case verifyCA = "verify-ca"
        /// TLS with the certificate verified and the host name checked.
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// PEM roots for `verify-ca` and `verify-full`; the system's when `nil`.
    public var rootCertificateFile: String?
    public var poolSize: Int
    /// Milliseconds a statement may run before the server cancels it.
    public var statementTimeout: Int
    /// Seconds to wait for a new connection.
    public var connectTimeout: Int
    /// The connection goes through a pooler in transaction mode (PgBouncer's
    /// `pool_mode = transaction`): each transaction may run on another server connection, so
    /// nothing is prepared by name, and no startup parameter is sent (a pooler refuses those
    /// it does not know; set `statement_timeout` on the database role instead).
    public var throughTransactionPooler: Bool
    /// At most this many concurrent writes of one kind (login finishes, refresh-token
    /// rotations) are written by one statement.
    public var batchSize: Int
    /// At most this many such statements of each kind are in flight at once; a write that
    /// finds them all busy waits for one, and goes with the others that waited.
    public var batchConcurrency: Int
    /// A schema to work in instead of `public` (created if missing); for tests that give
    /// each case an empty database.
    public var schema: String?

    /// The URL without its password, for logs and messages.
    public var redacted: String {
        "postgres://\(username)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }

    /// Reads a URL.
    /// - Throws: ``PostgresSettingsError`` saying what is wrong; the message never repeats
    ///   the password.
    public init(url text: String) throws(PostgresSettingsError) {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"), let components = URLComponents(string: text) else {
            throw PostgresSettingsError("must be postgres://user:password@host:port/database")
        }
        guard let host = components.host, !host.isEmpty else { throw PostgresSettingsError("names no host") }
        guard let user = components.user, !user.isEmpty else { throw PostgresSettingsError("names no user (postgres://user:password@host/database)") }
        let database = String(components.path.dropFirst())
        guard !database.isEmpty, !database.contains("/") else { throw PostgresSettingsError("names no database (postgres://user:password@host/database)") }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? 5432
        username = user
        password = components.password
        self.database = database.removingPercentEncoding ?? database
        tls = .prefer
        poolSize = 10
        statementTimeout = 5000
        connectTimeout = 5
        throughTransactionPooler = false
        batchSize = 32
        batchConcurrency = 1
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw PostgresSettingsError("sslmode must be one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(value.prefix(40))\"")
                }
                tls = mode
            case "sslrootcert":
                rootCertificateFile = value
            case "pool_size":
                guard let size = Int(value), (1...1000).contains(size) else { throw PostgresSettingsError("pool_size must be a number from 1 to 1000") }
                poolSize = size
            case "statement_timeout":
                guard let milliseconds = Int(value), milliseconds >= 100 else { throw PostgresSettingsError("statement_timeout must be milliseconds, at least 100") }
                statementTimeout = milliseconds
            case "connect_timeout":
                guard let seconds = Int(value), (1...600).contains(seconds) else { throw PostgresSettingsError("connect_timeout must be seconds from 1 to 600") }
                connectTimeout = seconds
            case "pooler":
                guard value == "transaction" || value == "none" else { throw PostgresSettingsError("pooler must be transaction or none") }
                throughTransactionPooler = value == "transaction"
            case "batch_size":
                guard let size = Int(value), (1...256).contains(size) else { throw PostgresSettingsError("batch_size must be a number from 1 to 256") }
                batchSize = size
            case "batch_concurrency":
                guard let count = Int(value), (1...1000).contains(count) else {
                    throw PostgresSettingsError("batch_concurrency must be a number from 1 to 1000")
                }
                batchConcurrency = count
            default:
                throw PostgresSettingsError(
                    "unknown parameter \"\(item.name.prefix(40))\"; known: sslmode, sslrootcert, pool_size, statement_timeout, connect_timeout, pooler, batch_size, batch_concurrency"
                )
            }
        }
        if rootCertificateFile != nil, tls != .verifyCA, tls != .verifyFull {
            throw PostgresSettingsError("sslrootcert needs sslmode=verify-ca or sslmode=verify-full")
        }
    }
}

/// A PostgreSQL URL that cannot be used, and why.
public struct PostgresSettingsError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
