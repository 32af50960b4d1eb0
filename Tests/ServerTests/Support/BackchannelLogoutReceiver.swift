import Foundation

/// A relying party's back-channel logout endpoint for the tests:
/// `scripts/backchannel-receiver.py`, which verifies every logout token with authlib
/// (PyPI) against the server's published keys, independently of Latchkey's signer, and keeps
/// the ones that verify.
final class BackchannelLogoutReceiver: @unchecked Sendable {
    private let receiver: ReceiverProcess

    private static let python = PythonTools.setUp("oidc-libraries.sh", unless: "LATCHKEY_OIDC_PYTHON")

    /// Starts a receiver expecting tokens of `issuer`, answering the first `failFirst` posts 503.
    static func start(issuer: String, failFirst: Int = 0) async throws -> BackchannelLogoutReceiver {
        BackchannelLogoutReceiver(receiver: try await ReceiverProcess.start(
            python: try python.get(), script: "backchannel-receiver.py", arguments: ["--issuer", issuer, "--fail-first", String(failFirst)]
        ))
    }

    private init(receiver: ReceiverProcess) { self.receiver = receiver }

    /// Where `client` registers its `backchannel_logout_uri`.
    func url(for client: String) -> String { "http://127.0.0.1:\(receiver.port)/logout/\(client)" }

    /// Verifies with the keys of the server at `baseURL` from now on.
    func useKeys(of baseURL: URL) throws {
        try Data(baseURL.appendingPathComponent("oauth/jwks").absoluteString.utf8).write(to: receiver.directory.appendingPathComponent("jwks-url"))
    }

    /// One verified logout token.
    struct Token {
        let client: String
        let header: [String: Any]
        let claims: [String: Any]
        var sessionID: String? { claims["sid"] as? String }
    }

    /// The verified tokens so far, in arrival order.
    func tokens() -> [Token] {
        receiver.records(prefix: "0").compactMap { record in
            guard let client = record["client"] as? String, let header = record["header"] as? [String: Any], let claims = record["claims"] as? [String: Any]
            else { return nil }
            return Token(client: client, header: header, claims: claims)
        }
    }

    /// Tokens that did not verify, with why.
    func rejected() -> [[String: Any]] { receiver.records(prefix: "rejected-") }

    /// Waits until `count` tokens have arrived.
    @discardableResult
    func waitFor(_ count: Int, timeout: TimeInterval = 30) async throws -> [Token] {
        try await ReceiverProcess.waitFor(count, timeout: timeout, tokens) { "\(tokens().map(\.client)); rejected: \(rejected())" }
    }

    /// Stops the receiver and waits for it to exit.
    func stop() { receiver.stop() }
}
