import Synchronization

/// Group commit in the application: concurrent writes of one kind (login finishes) that
/// arrive while earlier ones are being written are written together, by one statement in one
/// transaction, so a batch pays one round trip, one commit and one WAL flush.
///
/// The window adapts to the load, with no timer: a write that finds a free slot (fewer than
/// `concurrency` batches in flight) goes at once, alone, so a lone request is never delayed;
/// one that finds every slot busy waits for the first to free, and then goes with whatever
/// else waited, up to `maxSize`. Under load a batch therefore holds what arrived during one
/// statement's round trip, and at rest every batch is a single write.
///
/// No task is spawned per batch: the request that takes a free slot writes the batch itself
/// (it leads), and when its own write is done, it hands the slot to the first write still
/// waiting, whose request then leads the next batch. A batch that fails as a whole answers
/// each of its writes with that failure; the caller decides what to do alone (see
/// `PostgresStorage.completeCeremony`), so one request's cancellation or a statement's error
/// never decides a neighbour's outcome.
final class GroupCommit<Item: Sendable, Outcome: Sendable>: Sendable {
    /// Writes a batch, answering one outcome per item, in order.
    typealias Write = @Sendable ([Item]) async throws -> [Outcome]

    /// At most this many items per batch.
    let maxSize: Int
    /// At most this many batches in flight.
    let concurrency: Int
    private let state = Mutex(State())

    private struct State {
        var inFlight = 0
        var waiting: [Ticket] = []
        var waitingStart = 0
    }

    /// A batch failed as a whole, the item's write with it: nothing was written for it.
    struct BatchFailed: Error {
        let underlying: any Error
        /// How many items the batch held: with one, the failure is that item's own.
        let size: Int
    }

    /// A batch's write answered more or fewer outcomes than it had items.
    struct BatchAnswerMismatch: Error {}

    init(maxSize: Int, concurrency: Int) {
        precondition(maxSize >= 1 && concurrency >= 1)
        self.maxSize = maxSize
        self.concurrency = concurrency
    }

    /// Writes `item` in a batch with whatever else is waiting.
    /// - Throws: ``BatchFailed`` when its batch failed.
    func write(_ item: Item, with write: Write) async throws -> Outcome {
        let ticket = Ticket(item)
        let leads = state.withLock { state in
            state.waiting.append(ticket)
            guard state.inFlight < concurrency else { return false }
            state.inFlight += 1
            return true
        }
        if !leads, case .written(let result) = await ticket.answer() {
            return try result.get()
        }
        return try await lead(until: ticket, with: write)
    }

    /// Writes batches from the front of the queue until `own` is written, then hands the slot
    /// on (or frees it), and answers `own`'s outcome.
    private func lead(until own: Ticket, with write: Write) async throws -> Outcome {
        var ownResult: Result<Outcome, any Error>?
        while ownResult == nil {
            let batch = state.withLock { state in
                let end = min(state.waiting.count, state.waitingStart + maxSize)
                let batch = Array(state.waiting[state.waitingStart..<end])
                state.waitingStart = end
                if state.waitingStart == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: true)
                    state.waitingStart = 0
                }
                return batch
            }
            var results: [Result<Outcome, any Error>]
            do {
                results = try await write(batch.map(\.item)).map { .success($0) }
            } catch {
                results = Array(repeating: .failure(BatchFailed(underlying: error, size: batch.count)), count: batch.count)
            }
            if results.count != batch.count {
                let error = BatchFailed(underlying: BatchAnswerMismatch(), size: batch.count)
                results = Array(repeating: .failure(error), count: batch.count)
            }
            for (ticket, result) in zip(batch, results) {
                if ticket === own {
                    ownResult = result
                } else {
                    ticket.resolve(.written(result))
                }
            }
        }
        let next = state.withLock { state -> Ticket? in
            guard state.waitingStart < state.waiting.count else {
                state.inFlight -= 1
                return nil
            }
            // The slot passes on: the next waiting request leads, and the count stays.
            return state.waiting[state.waitingStart]
        }
        next?.resolve(.lead)
        return try ownResult!.get()
    }

    /// One write waiting in the queue, and how its request hears back.
    private final class Ticket: Sendable {
        let item: Item
        private let state = Mutex<Waiting>(.none)

        enum Answer: Sendable {
            case written(Result<Outcome, any Error>)
            /// Its request is to write the batches from here on.
            case lead
        }

        private enum Waiting {
            case none
            case suspended(CheckedContinuation<Answer, Never>)
            case answered(Answer)
        }

        init(_ item: Item) { self.item = item }

        /// Waits for the ticket's answer (at once when it came first).
        func answer() async -> Answer {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { waiting -> Answer? in
                    if case .answered(let answer) = waiting {
                        waiting = .none
                        return answer
                    }
                    waiting = .suspended(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        func resolve(_ answer: Answer) {
            let continuation = state.withLock { waiting -> CheckedContinuation<Answer, Never>? in
                if case .suspended(let continuation) = waiting {
                    waiting = .none
                    return continuation
                }
                waiting = .answered(answer)
                return nil
            }
            continuation?.resume(returning: answer)
        }
    }
}
