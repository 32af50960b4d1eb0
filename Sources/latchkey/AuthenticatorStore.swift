import Authenticator
import Foundation
import LatchkeyClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The JSON file behind `latchkey authenticator`: the software credentials it created and
/// the tokens of its last sign-in.
///
/// Private keys are written in the clear, so the file is created readable by its owner
/// only. It is a development tool, not a keychain.
struct AuthenticatorStore: Codable {
    /// The credentials, oldest first.
    var credentials: [SoftwareCredential] = []
    /// The tokens of the last signup, login or refresh.
    var tokens: StoredTokens?

    /// Tokens plus what they were issued for.
    struct StoredTokens: Codable {
        /// The server URL that issued them.
        var server: String
        /// The client they were issued to.
        var clientID: String
        /// The access token.
        var accessToken: String
        /// The ID token.
        var idToken: String?
        /// The refresh token.
        var refreshToken: String?
        /// `Bearer`.
        var tokenType: String
        /// The granted scopes.
        var scope: String?
        /// When the access token expires.
        var expiresAt: Date

        /// Records a token response received at `time`. A refresh answer without a refresh
        /// token keeps `previousRefreshToken`.
        init(_ response: TokenResponse, server: String, clientID: String, receivedAt time: Date, previousRefreshToken: String? = nil) {
            self.server = server
            self.clientID = clientID
            accessToken = response.accessToken
            idToken = response.idToken
            refreshToken = response.refreshToken ?? previousRefreshToken
            tokenType = response.tokenType
            scope = response.scope
            expiresAt = time.addingTimeInterval(TimeInterval(response.expiresIn))
        }
    }

    /// Reads the store; a missing file is an empty store.
    static func load(from url: URL) throws(CLIFailure) -> AuthenticatorStore {
        guard FileManager.default.fileExists(atPath: url.path) else { return AuthenticatorStore() }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CLIFailure("cannot read the store \(url.path): \(error.localizedDescription)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(AuthenticatorStore.self, from: data)
        } catch let error as DecodingError {
            throw CLIFailure("the store \(url.path) is not an authenticator store: \(describe(error))")
        } catch {
            throw CLIFailure("the store \(url.path) is not an authenticator store: \(error)")
        }
    }

    /// Writes the store atomically, readable by its owner only: the bytes go to a
    /// temporary file created with mode 0600, which then replaces the store, so the keys are
    /// never briefly world-readable and a crash never leaves half a file.
    func save(to url: URL) throws(CLIFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do {
            data = try encoder.encode(self)
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
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
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

    /// Names the member of the store file that did not fit.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.reduce(into: "") { text, key in
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .keyNotFound(let key, let context): return "\"\(key.stringValue)\" is missing in \(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(path(context)) has the wrong type"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context)) \(context.debugDescription)"
        @unknown default: return "cannot be decoded"
        }
    }

    /// The tokens, when they were issued by `server` to `clientID`.
    func tokens(server: String, clientID: String) -> StoredTokens? {
        guard let tokens, tokens.server == server, tokens.clientID == clientID else { return nil }
        return tokens
    }
}

/// A failure the CLI explains in one sentence.
struct CLIFailure: Error, CustomStringConvertible {
    /// What went wrong and, where possible, what to do.
    let description: String

    init(_ description: String) { self.description = description }
}
