public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, with the part of `Foundation.Process`'s API
/// the tests use. Foundation's `Process.run()` on Linux reads `/proc/self/fd` with a 256-byte
/// copy of each directory entry's name, which reads past glibc's buffer and crashes the
/// whole test process now and then (swift-corelibs-foundation#5472, fixed after the
/// toolchain here). This reads nothing of the kind: the child closes every descriptor above
/// 2 with glibc's `closefrom` action.
public final class ChildProcess: @unchecked Sendable {
    public init() {}

    public var executableURL: URL?
    public var arguments: [String]?
    /// The child's environment; this process's when `nil`.
    public var environment: [String: String]?
    public var currentDirectoryURL: URL?
    /// A `Pipe`, a `FileHandle`, or `nil` for `/dev/null`.
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?
    /// Called once, on a thread of its own, when the child has exited.
    public var terminationHandler: (@Sendable (ChildProcess) -> Void)?

    private let lock = NSCondition()
    public private(set) var processIdentifier: Int32 = 0
    private var exitStatus: Int32?

    public var isRunning: Bool { lock.withLock { processIdentifier != 0 && exitStatus == nil } }

    /// The exit status, or the signal that ended it.
    public var terminationStatus: Int32 { lock.withLock { exitStatus ?? -1 } }

    public func terminate() { signal(SIGTERM) }
    public func interrupt() { signal(SIGINT) }

    private func signal(_ number: Int32) {
        let pid = lock.withLock { exitStatus == nil ? processIdentifier : 0 }
        if pid > 0 { kill(pid, number) }
    }

    /// Blocks until the child has exited.
    public func waitUntilExit() {
        lock.lock()
        while exitStatus == nil { lock.wait() }
        lock.unlock()
    }

    public func run() throws {
        guard let path = executableURL?.path else { throw ChildProcessError("ChildProcess: no executable") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [FileHandle] = []
        for (stream, target) in [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)] {
            switch stream {
            case let pipe as Pipe:
                let end = target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
                childEnds.append(end)
            case let handle as FileHandle:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            default:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // Nothing else of this process reaches the child: a pipe end it kept would hold the
        // pipe open for another test.
        guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else {
            throw ChildProcessError("ChildProcess: posix_spawn_file_actions_addclosefrom_np is not available (glibc 2.34 or later)")
        }
        if let directory = currentDirectoryURL?.path {
            guard let changeDirectory = Self.changeDirectory, changeDirectory(&actions, directory) == 0 else {
                throw ChildProcessError("ChildProcess: posix_spawn_file_actions_addchdir_np is not available")
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default signal handling and an empty mask: an ignored SIGPIPE here is not the child's.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + (arguments ?? [])).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw ChildProcessError("could not start \(path): \(String(cString: strerror(result)))") }
        // The child has its own copies of its ends; ours must go, so that EOF means it is done.
        for end in childEnds { try? end.close() }
        let spawned = pid
        lock.withLock { processIdentifier = spawned }
        let reaper = Thread { [self] in
            var status: Int32 = 0
            while waitpid(spawned, &status, 0) == -1 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
            let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
            lock.withLock {
                exitStatus = code
                lock.broadcast()
            }
            terminationHandler?(self)
        }
        reaper.start()
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc's GNU extensions, which Swift's Glibc module does not declare.
    private static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }
    private static let changeDirectory: ChangeDirectory? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: ChangeDirectory.self) }
}

/// Why a child process could not start.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
