import Synchronization

/// Group commit in the application: concurrent writes of one kind (login finishes) that
/// arrive while earlier ones are being written are written together, by one statement in one
/// transaction, so a batch pays one round trip, one commit and one WAL flush.
///
/// With `maxSize` 1 nothing is batched: each write goes at once, alone.
///
/// The window adapts to the load, with no timer: a write that finds a free slot (fewer than
/// `concurrency` batches in flight) goes at once, alone, so a lone request is never delayed;
/// one that finds every slot busy waits for the first to free, and then goes with whatever
/// else waited, up to `maxSize`. Under load a batch therefore holds what arrived during one
/// statement's round trip, and at rest every batch is a single write.
///
/// The request that takes a free slot writes the batch itself (it leads), from the front of
/// the queue until its own write is answered; writes still waiting then go to a task that
/// keeps the slot until the queue is empty, so that no request's answer waits for others'
/// batches, and no task is spawned while the load is light. A batch that fails as a whole answers
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
    func write(_ item: Item, with write: @escaping Write) async throws -> Outcome {
        let ticket = Ticket(item)
        guard maxSize > 1 else {
            // Batching is off: every write goes at once, in its own statement, however many
            // are in flight.
            return try await self.write([ticket], with: write, answering: ticket)!.get()
        }
        let leads = state.withLock { state in
            state.waiting.append(ticket)
            guard state.inFlight < concurrency else { return false }
            state.inFlight += 1
            return true
        }
        guard leads else { return try await ticket.answer().get() }
        // Batches from the front of the queue until this request's own write is answered.
        var own: Result<Outcome, any Error>?
        while own == nil {
            let batch = takeBatch(freeingSlotIfEmpty: false)
            guard !batch.isEmpty else {
                // Another batch (led at the same time) took this write: the answer comes
                // from there.
                own = await ticket.answer()
                break
            }
            own = await self.write(batch, with: write, answering: ticket)
        }
        // The slot stays taken while writes wait: a task of its own writes them, so that
        // this request's answer waits for nothing else.
        let more = state.withLock { state in
            if state.waitingStart < state.waiting.count { return true }
            state.inFlight -= 1
            return false
        }
        if more { Task { await self.drain(with: write) } }
        return try own!.get()
    }

    /// Writes batches until the queue is empty, then frees the slot.
    private func drain(with write: @escaping Write) async {
        while true {
            let batch = takeBatch(freeingSlotIfEmpty: true)
            if batch.isEmpty { return }
            _ = await self.write(batch, with: write, answering: nil)
        }
    }

    /// The next batch from the front of the queue; when there is none and
    /// `freeingSlotIfEmpty`, the caller's slot is freed in the same step, so that a write
    /// queued meanwhile finds it free and leads.
    private func takeBatch(freeingSlotIfEmpty: Bool) -> [Ticket] {
        state.withLock { state in
            let end = min(state.waiting.count, state.waitingStart + maxSize)
            let batch = Array(state.waiting[state.waitingStart..<end])
            state.waitingStart = end
            if state.waitingStart == state.waiting.count {
                state.waiting.removeAll(keepingCapacity: true)
                state.waitingStart = 0
            }
            if batch.isEmpty && freeingSlotIfEmpty { state.inFlight -= 1 }
            return batch
        }
    }

    /// Writes one batch and answers each of its tickets but `own`, whose result it returns.
    private func write(_ batch: [Ticket], with write: Write, answering own: Ticket?) async -> Result<Outcome, any Error>? {
        var results: [Result<Outcome, any Error>]
        do {
            results = try await write(batch.map(\.item)).map { .success($0) }
        } catch {
            results = Array(repeating: .failure(BatchFailed(underlying: error, size: batch.count)), count: batch.count)
        }
        if results.count != batch.count {
            results = Array(repeating: .failure(BatchFailed(underlying: BatchAnswerMismatch(), size: batch.count)), count: batch.count)
        }
        var ownResult: Result<Outcome, any Error>?
        for (ticket, result) in zip(batch, results) {
            if ticket === own {
                ownResult = result
            } else {
                ticket.resolve(result)
            }
        }
        return ownResult
    }

    /// One write waiting in the queue, and how its request hears back.
    private final class Ticket: Sendable {
        let item: Item
        private let state = Mutex<Waiting>(.none)

        private enum Waiting {
            case none
            case suspended(CheckedContinuation<Result<Outcome, any Error>, Never>)
            case answered(Result<Outcome, any Error>)
        }

        init(_ item: Item) { self.item = item }

        /// Waits for the write's outcome (at once when it came first).
        func answer() async -> Result<Outcome, any Error> {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { waiting -> Result<Outcome, any Error>? in
                    if case .answered(let result) = waiting { return result }
                    waiting = .suspended(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        func resolve(_ result: Result<Outcome, any Error>) {
            let continuation = state.withLock { waiting -> CheckedContinuation<Result<Outcome, any Error>, Never>? in
                if case .suspended(let continuation) = waiting {
                    waiting = .none
                    return continuation
                }
                waiting = .answered(result)
                return nil
            }
            continuation?.resume(returning: result)
        }
    }
}
