import Authenticator
import Foundation
import LatchkeyClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The JSON file behind `latchkey authenticator`: the software passkeys (what the SDK's
/// provider holds) and the SDK's session, as one file:
///
/// ```json
/// { "credentials": [ … ], "session": { "accessToken": "…", "refreshToken": "…", … } }
/// ```
///
/// Private keys are written in the clear, so the file is created readable by its owner
/// only. It is a development tool, not a keychain.
final class AuthenticatorStore: TokenStore, @unchecked Sendable {
    /// The file.
    let url: URL
    /// Serializes the read-modify-write of the two halves.
    private let lock = NSLock()

    private struct Contents: Codable {
        var credentials: [SoftwareCredential] = []
        var session: StoredSession?
    }

    /// Opens the store at `url` and checks that it can be read.
    init(url: URL) throws(CLIFailure) {
        self.url = url
        _ = try read()
    }

    /// The stored passkeys, oldest first.
    func credentials() throws(CLIFailure) -> [SoftwareCredential] { try read().credentials }

    /// Replaces the stored passkeys.
    func saveCredentials(_ credentials: [SoftwareCredential]) throws {
        try update { $0.credentials = credentials }
    }

    func load() throws -> StoredSession? { try read().session }

    func save(_ session: StoredSession) throws {
        try update { $0.session = session }
    }

    func clear() throws {
        try update { $0.session = nil }
    }

    /// Reads, changes and writes the file under the lock, so that the passkeys and the
    /// session never overwrite each other.
    private func update(_ change: (inout Contents) -> Void) throws(CLIFailure) {
        lock.lock()
        defer { lock.unlock() }
        var contents = try read()
        change(&contents)
        try write(contents)
    }

    /// Reads the store; a missing file is an empty store.
    private func read() throws(CLIFailure) -> Contents {
        guard FileManager.default.fileExists(atPath: url.path) else { return Contents() }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CLIFailure("cannot read the store \(url.path): \(error.localizedDescription)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(Contents.self, from: data)
        } catch let error as DecodingError {
            throw CLIFailure("the store \(url.path) is not an authenticator store: \(DecodingErrorDescription.describe(error))")
        } catch {
            throw CLIFailure("the store \(url.path) is not an authenticator store: \(error)")
        }
    }

    /// Writes the store atomically, readable by its owner only: the bytes go to a
    /// temporary file created with mode 0600, which then replaces the store, so the keys are
    /// never briefly world-readable and a crash never leaves half a file.
    private func write(_ contents: Contents) throws(CLIFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do {
            data = try encoder.encode(contents)
        } catch {
            throw CLIFailure("cannot encode the store: \(error)")
        }
        // The default store's directory (the user's configuration directory) may not exist
        // yet; created private to its owner.
        let directory = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLIFailure("cannot create the store's directory \(directory.path): \(error.localizedDescription)")
            }
        }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else {
            throw CLIFailure("cannot write the store \(url.path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw CLIFailure("cannot write the store \(url.path): \(error.localizedDescription)")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CLIFailure("cannot replace the store \(url.path): \(reason)")
        }
    }
}

/// A failure the CLI explains in one sentence.
struct CLIFailure: Error, CustomStringConvertible {
    /// What went wrong and, where possible, what to do.
    let description: String

    init(_ description: String) { self.description = description }
}
