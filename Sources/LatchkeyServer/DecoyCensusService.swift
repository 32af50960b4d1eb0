import IdentityCore
import Logging
import ServiceLifecycle

/// Reads again, every few minutes, the real allow lists that logins for unknown identifiers
/// imitate (``LoginDecoys``), so decoys follow the deployment's passkeys as they change.
struct DecoyCensusService: Service {
    let passkeys: PasskeyService
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                do {
                    try await passkeys.refreshDecoys()
                } catch {
                    logger.warning("could not read the allow lists decoys imitate; keeping the last ones", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
