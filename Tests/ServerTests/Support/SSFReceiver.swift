import Foundation

/// A Shared Signals receiver for the tests: `scripts/ssf-receiver.py`, which verifies every
/// Security Event Token with authlib (PyPI) against the transmitter's JWKS, independently of
/// Latchkey's signer: pushed ones on a port of its own, polled ones one request at a time.
struct SSFReceiver {
    private static let python = PythonTools.setUp("ssf-receiver.sh", unless: "LATCHKEY_SSF_RECEIVER_PYTHON")

    /// One verified SET.
    struct SET {
        let jti: String
        let claims: [String: Any]
        /// The one event's type URI and payload.
        var event: (type: String, payload: [String: Any]) {
            let events = claims["events"] as? [String: Any] ?? [:]
            return (events.keys.first ?? "", events.values.first as? [String: Any] ?? [:])
        }
        /// The event type's last part (`session-revoked`).
        var name: String { String(event.type.split(separator: "/").last ?? "") }
        var subject: [String: Any] { claims["sub_id"] as? [String: Any] ?? [:] }
    }

    /// A push receiver, listening.
    struct Push {
        let receiver: ReceiverProcess
        var url: String { "http://127.0.0.1:\(receiver.port)/events" }

        /// Sets what the SETs are verified against, read at each post: the stream's `aud` is
        /// known only once the stream exists, and the JWKS moves with a restarted server.
        func expect(jwksURI: String? = nil, audience: String? = nil) throws {
            if let jwksURI { try jwksURI.write(to: receiver.directory.appendingPathComponent("jwks-uri"), atomically: true, encoding: .utf8) }
            if let audience { try audience.write(to: receiver.directory.appendingPathComponent("audience"), atomically: true, encoding: .utf8) }
        }

        /// The SETs that verified, in arrival order.
        func sets() -> [SET] { SSFReceiver.lines(receiver.directory.appendingPathComponent("sets.jsonl")).compactMap(SSFReceiver.set) }
        /// What was refused, with why.
        func rejected() -> [[String: Any]] { SSFReceiver.lines(receiver.directory.appendingPathComponent("rejected.jsonl")) }

        /// Waits until `count` SETs have verified.
        @discardableResult
        func waitFor(_ count: Int, timeout: TimeInterval = 30) async throws -> [SET] {
            try await ReceiverProcess.waitFor(count, timeout: timeout, sets) { "\(sets().map(\.name)); rejected: \(rejected())" }
        }

        func stop() { receiver.stop() }
    }

    /// Starts a push receiver that wants `authorization` on every post and answers the first
    /// `failFirst` posts 503.
    static func push(issuer: String, authorization: String, failFirst: Int = 0) async throws -> Push {
        let arguments = ["push", "--issuer", issuer, "--authorization", authorization, "--fail-first", String(failFirst)]
        return Push(receiver: try await ReceiverProcess.start(python: try python.get(), script: "ssf-receiver.py", arguments: arguments))
    }

    /// One poll: what `ssf-receiver.py poll` printed (the status, the SETs that verified,
    /// `moreAvailable` and what was refused).
    static func poll(
        endpoint: String, token: String, jwksURI: String, issuer: String, audience: String, acknowledge: [String] = [], returnImmediately: Bool = true
    ) async throws -> (status: Int, sets: [SET], moreAvailable: Bool, rejected: [[String: Any]]) {
        var arguments = [
            SMTPSink.repository.appendingPathComponent("scripts/ssf-receiver.py").path, "poll", "--endpoint", endpoint, "--token", token, "--jwks-uri", jwksURI,
            "--issuer", issuer, "--audience", audience,
        ]
        if !acknowledge.isEmpty { arguments += ["--ack"] + acknowledge }
        if returnImmediately { arguments.append("--return-immediately") }
        let run = try await ExternalCommand.run(try python.get(), arguments)
        // Its output and errors share the pipe (authlib warns on import): the answer is the
        // JSON line.
        guard let line = run.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            throw TestFailure("the poll printed no JSON: \(run.output)")
        }
        let sets = (object["sets"] as? [[String: Any]] ?? []).compactMap(set)
        return (object["status"] as? Int ?? 0, sets, object["moreAvailable"] as? Bool ?? false, object["rejected"] as? [[String: Any]] ?? [])
    }

    static func set(_ record: [String: Any]) -> SET? {
        guard let jti = record["jti"] as? String, let claims = record["claims"] as? [String: Any] else { return nil }
        return SET(jti: jti, claims: claims)
    }

    /// The complete lines of a JSON-lines file, each an object.
    static func lines(_ file: URL) -> [[String: Any]] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}
