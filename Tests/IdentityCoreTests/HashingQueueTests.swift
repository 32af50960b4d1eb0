import Foundation
@testable import IdentityCore
import Testing

/// Slow hashing waits in a bounded queue: past the bound a request is refused at once with
/// `busy` and a `Retry-After`, never left waiting behind seconds of work.
@Suite("Hashing queue")
struct HashingQueueTests {
    @Test(.timeLimit(.minutes(1))) func aFullQueueRefusesAtOnce() async throws {
        let queue = HashingQueue(limit: 4, concurrency: 1)
        // The work waits for the gate, so the queue stays full for as long as the test
        // wants, however slowly the requests arrive on a busy machine: the first four are
        // taken, and every later one is refused.
        let gate = DispatchSemaphore(value: 0)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    do {
                        _ = try await queue.run { gate.wait() }
                        return "done"
                    } catch let error as IdentityError {
                        return "\(error.code.rawValue) \(error.reason?.rawValue ?? "") \(error.retryAfter ?? 0)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            var outcomes: [String] = []
            for await outcome in group {
                outcomes.append(outcome)
                // Every refusal is in: let the four taken finish.
                if outcomes.count == 8 { for _ in 0..<4 { gate.signal() } }
            }
            return outcomes
        }
        let refused = outcomes.filter { $0 == "temporarily_unavailable busy 2" }
        #expect(refused.count == 8, "\(outcomes)")
        #expect(outcomes.filter { $0 == "done" }.count == 4, "\(outcomes)")
    }
}
