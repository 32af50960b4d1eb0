import Authenticator
import Foundation
import LatchkeyClient

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

    /// Writes the store atomically, readable by its owner only (see
    /// `FileTokenStore.writePrivately`): the keys are never briefly readable by others, and a
    /// crash never leaves half a file.
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
        do {
            try FileTokenStore.writePrivately(data, to: url)
        } catch {
            throw CLIFailure("cannot write the store \(url.path): \(error.localizedDescription)")
        }
    }
}

/// A failure the CLI explains in one sentence.
struct CLIFailure: Error, CustomStringConvertible {
    /// What went wrong and, where possible, what to do.
    let description: String

    init(_ description: String) { self.description = description }
}
