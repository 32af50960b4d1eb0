public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where ``Latchkey`` keeps the signed-in session between launches: ``InMemoryTokenStore``,
/// ``FileTokenStore``, or `KeychainTokenStore` on Apple platforms.
///
/// Each call replaces or reads the whole session, so a store written by one process (an app
/// extension, a widget) is seen whole by another. ``Latchkey`` writes a rotated refresh token
/// before it forgets the previous one: a process killed mid-rotation leaves either the old
/// session or the new one, never neither.
public protocol TokenStore: Sendable {
    /// The stored session, or `nil` when nobody is signed in.
    func load() async throws -> StoredSession?
    /// Replaces the stored session.
    func save(_ session: StoredSession) async throws
    /// Forgets the stored session.
    func clear() async throws
}

/// The tokens of a signed-in session and who they are for.
public struct StoredSession: Sendable, Hashable, Codable {
    /// Who is signed in.
    public var session: LatchkeySession
    public var accessToken: String
    /// When the access token expires, by this device's clock.
    public var accessTokenExpiresAt: Date
    /// The refresh token, when `offline_access` was granted.
    public var refreshToken: String?
    /// The ID token, when `openid` was granted.
    public var idToken: String?
    /// The server and client the tokens belong to, so that a store shared between
    /// configurations never hands one server's token to another.
    public var server: String
    public var clientID: String

    public init(
        session: LatchkeySession, accessToken: String, accessTokenExpiresAt: Date, refreshToken: String?, idToken: String?,
        server: String, clientID: String
    ) {
        self.session = session
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.server = server
        self.clientID = clientID
    }
}

/// A store that lasts as long as the process: for tests, and for apps that sign in on
/// every launch.
public actor InMemoryTokenStore: TokenStore {
    private var stored: StoredSession?

    /// Creates an empty store, or one holding `session`.
    public init(_ session: StoredSession? = nil) { stored = session }

    public func load() -> StoredSession? { stored }
    public func save(_ session: StoredSession) { stored = session }
    public func clear() { stored = nil }
}

/// A store in one JSON file, readable by its owner only (mode 0600), replaced atomically on
/// each save (written beside it, then renamed over it): a crash leaves the old file or the
/// new one. For command-line tools and servers; apps use `KeychainTokenStore`.
public struct FileTokenStore: TokenStore {
    /// The file.
    public let url: URL

    /// Creates a store in `url`; the file is created on the first save.
    public init(url: URL) { self.url = url }

    public func load() throws -> StoredSession? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try Data(contentsOf: url)
        return try StoredSession(json: data)
    }

    public func save(_ session: StoredSession) throws {
        try Self.writePrivately(try session.json(), to: url)
    }

    public func clear() throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.removeItem(at: url)
    }

    /// Writes `data` to `url` readable by its owner only, in one step: the bytes go to a new
    /// file beside it, created with mode 0600 and flushed to disk, which is then renamed over
    /// `url`. The data is never briefly readable by others, and a crash leaves the old file
    /// or the new one. (The software passkeys and the command line's store use it too.)
    public static func writePrivately(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            // rename(2) replaces the target in one step; FileManager's replace is not atomic
            // on every platform.
            guard rename(temporary.path, url.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}

extension StoredSession {
    /// The session as every store keeps it: JSON, dates in RFC 3339, keys sorted, so that a
    /// stored session is readable by people and by any store.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads a session that ``json()`` wrote.
    public init(json data: Data) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        self = try decoder.decode(StoredSession.self, from: data)
    }
}
