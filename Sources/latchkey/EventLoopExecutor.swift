#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix

/// Runs Swift's global jobs on the NIO event loops, as the global executor.
///
/// The server's connections live on NIO's event loops, and by default its request-handling
/// tasks run on Swift's own thread pool, so every request crosses threads at least twice.
/// NIO can take over Swift's global executor (`NIOSingletons`), but it runs each job as
/// if on the event loop's serial executor, and code that expects the global executor then
/// hops (enqueues itself again) at every `await`, which measured as several thousand extra
/// jobs per second at load. Here a job is queued on the event loop it was enqueued from
/// (or any loop when enqueued from elsewhere) and run on the global concurrent executor,
/// so `await`s between ordinary async functions stay where they are.
///
/// The hook is Swift's documented-only-in-its-runtime `swift_task_enqueueGlobal_hook`; it is
/// installed once, from the main thread, before any task starts, unless
/// `LATCHKEY_EVENT_LOOP_EXECUTOR=0`. Measured on 2 cores with 0.14 (SQLite, 32 clients, median
/// of three 12-second runs in one session): 2,025 logins/s with it, 1,702 without (1.19×), at
/// 0.7 against 0.8 ms of server CPU per login. Worth keeping; the switch is there for a runtime
/// whose hook misbehaves.
enum EventLoopExecutor {
    private typealias EnqueueGlobalHook = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void

    /// Installs the hook.
    /// - Returns: `false` when this runtime has no hook to install (jobs then stay on Swift's pool).
    @discardableResult
    static func install() -> Bool {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else { return false }
        let hook: EnqueueGlobalHook = { job, _ in
            MultiThreadedEventLoopGroup.singleton.any().execute {
                job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
            }
        }
        // A thin function is a plain code pointer; the runtime reads the hook as one.
        withUnsafeBytes(of: hook) { bytes in
            symbol.assumingMemoryBound(to: UnsafeRawPointer?.self).pointee = bytes.load(as: UnsafeRawPointer?.self)
        }
        return true
    }
}
