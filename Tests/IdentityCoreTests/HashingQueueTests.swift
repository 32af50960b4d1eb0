import Foundation
@testable import IdentityCore
import Testing

/// Slow hashing waits in a bounded queue: past the bound a request is refused at once with
/// `busy` and a `Retry-After`, never left waiting behind seconds of work.
@Suite("Hashing queue")
struct HashingQueueTests {
    @Test func aFullQueueRefusesAtOnce() async throws {
        let queue = HashingQueue(limit: 4, concurrency: 1)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    do {
                        _ = try await queue.run { Thread.sleep(forTimeInterval: 0.2) }
                        return "done"
                    } catch let error as IdentityError {
                        return "\(error.code.rawValue) \(error.reason?.rawValue ?? "") \(error.retryAfter ?? 0)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        let refused = outcomes.filter { $0 == "temporarily_unavailable busy 2" }
        #expect(outcomes.filter { $0 == "done" }.count >= 4 && refused.count >= 4 && refused.count + outcomes.filter { $0 == "done" }.count == 12, "\(outcomes)")
    }
}
