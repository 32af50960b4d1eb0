import Hummingbird
import IdentityCore

/// `GET /ready`: 200 when the database answers and a token signing key is there to sign
/// with, else 503 with `Retry-After` and the reason; for load balancers and orchestrators.
/// `GET /health` only says the process is alive.
enum Readiness {
    static func check(keys: any SigningKeyStore) async -> Response {
        let reason: String
        do {
            if try await !keys.signingKeys().isEmpty {
                return Response(status: .ok, headers: [.contentType: "text/plain", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: "ready\n")))
            }
            reason = "no token signing key is loaded"
        } catch {
            reason = "the database does not answer"
        }
        return Response(
            status: .serviceUnavailable,
            headers: [.contentType: "text/plain", .cacheControl: "no-store", .retryAfter: "5"],
            body: .init(byteBuffer: ByteBuffer(string: "not ready: \(reason)\n"))
        )
    }
}
