import Foundation
import WebAuthnCorpus

// Linux only (Glibc's posix_spawn and siginfo_t), like the Chromium the tests run.
import Glibc

/// A headless Chromium driven over `--remote-debugging-pipe`, with a throwaway profile.
///
/// Chromium runs in its own process group so that `close()` can take its helpers (zygote,
/// renderers, GPU process) down with it. `close()` is synchronous so it can sit in a `defer`;
/// it also runs from `deinit` if the test forgot.
final class ChromiumProcess: @unchecked Sendable {
    /// The Chromium binary: `LATCHKEY_CHROMIUM` if set (returned even if wrong, so a bad
    /// override fails loudly at launch instead of silently skipping tests), else the Debian
    /// package's binary if present, else nil.
    static var executable: String? {
        if let override = ProcessInfo.processInfo.environment["LATCHKEY_CHROMIUM"], !override.isEmpty {
            return override
        }
        let packaged = "/usr/lib/chromium/chromium"
        return FileManager.default.isExecutableFile(atPath: packaged) ? packaged : nil
    }

    /// The browser's process id, which is also its process group id.
    let processID: pid_t
    /// The temporary `--user-data-dir`, removed by `close()`.
    let profileDirectory: String
    /// Chromium's stdout and stderr, inside the profile directory.
    let logPath: String
    /// The browser-level CDP connection.
    let connection: DevToolsConnection

    private let lock = NSLock()
    private var isClosed = false
    /// Set once `close()` has reaped the browser; its pid may then belong to someone else.
    private var isReaped = false

    private init(processID: pid_t, profileDirectory: String, logPath: String, connection: DevToolsConnection) {
        self.processID = processID
        self.profileDirectory = profileDirectory
        self.logPath = logPath
        self.connection = connection
    }

    deinit { close() }

    /// Starts Chromium (`executable`, by default `ChromiumProcess.executable`) headless on a
    /// fresh profile, with `extraArguments` added to the flags.
    static func launch(executable: String? = nil, extraArguments: [String] = []) throws -> ChromiumProcess {
        guard let executable = executable ?? Self.executable else { throw TestFailure("no Chromium found (set LATCHKEY_CHROMIUM)") }
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestFailure("Chromium at \(executable) is not an executable file")
        }
        _ = ignoreSIGPIPE

        let profileDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("latchkey-chromium-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: profileDirectory, withIntermediateDirectories: true)
        let logPath = profileDirectory + "/chromium-output.log"
        let arguments = [
            executable, "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800",
            "--remote-debugging-pipe", "--user-data-dir=\(profileDirectory)", "--no-first-run", "--no-default-browser-check",
        ] + extraArguments + ["about:blank"]

        do {
            let (processID, readFD, writeFD) = try spawnLock.withLock {
                try spawn(executable, arguments: arguments, logPath: logPath)
            }
            let connection = DevToolsConnection.open(readFD: readFD, writeFD: writeFD)
            return ChromiumProcess(processID: processID, profileDirectory: profileDirectory, logPath: logPath, connection: connection)
        } catch {
            try? FileManager.default.removeItem(atPath: profileDirectory)
            throw error
        }
    }

    /// Opens a new `about:blank` tab, attaches a flattened session to it and enables the
    /// Page and Runtime domains. `isolated` opens it in a browser context of its own (no
    /// shared cookies or storage: another browser, as far as a server can tell).
    func newTab(isolated: Bool = false) async throws -> BrowserTab {
        do {
            var parameters: [String: JSONValue] = ["url": .string("about:blank")]
            if isolated {
                let context = try await connection.send("Target.createBrowserContext")
                guard let contextID = context["browserContextId"]?.string else { throw TestFailure("Target.createBrowserContext returned \(context)") }
                parameters["browserContextId"] = .string(contextID)
            }
            let created = try await connection.send("Target.createTarget", parameters)
            guard let targetID = created["targetId"]?.string else {
                throw TestFailure("Target.createTarget returned no targetId: \(created)")
            }
            let attached = try await connection.send("Target.attachToTarget", ["targetId": .string(targetID), "flatten": .bool(true)])
            guard let sessionID = attached["sessionId"]?.string else {
                throw TestFailure("Target.attachToTarget returned no sessionId: \(attached)")
            }
            let tab = BrowserTab(connection: connection, targetID: targetID, sessionID: sessionID)
            _ = try await tab.send("Page.enable")
            _ = try await tab.send("Runtime.enable")
            return tab
        } catch {
            throw TestFailure("opening a Chromium tab failed: \(error)\n\(diagnostics())")
        }
    }

    /// Whether the browser process is still running (without reaping it).
    var isRunning: Bool { !hasExited() }

    /// Where the browser stands and the end of its output, for failure messages.
    func diagnostics() -> String {
        let output = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        let state = isRunning ? "is running" : "has exited"
        return "Chromium (pid \(processID)) \(state); last output:\n\(output.suffix(2000))"
    }

    /// Quits the browser: asks politely with `Browser.close`, waits up to five seconds, then
    /// kills the whole process group, reaps the browser and deletes the profile. Idempotent.
    func close() {
        let alreadyClosed = lock.withLock {
            defer { isClosed = true }
            return isClosed
        }
        guard !alreadyClosed else { return }

        if !hasExited() {
            connection.post("Browser.close")
            let deadline = Date().addingTimeInterval(5)
            while !hasExited(), Date() < deadline {
                usleep(10_000)
            }
        }
        // Killing before reaping means the group id cannot have been recycled yet; it also
        // sweeps up any helper that outlived the browser.
        _ = kill(-processID, SIGKILL)
        var status: Int32 = 0
        while waitpid(processID, &status, 0) < 0, errno == EINTR {}
        lock.withLock { isReaped = true }
        connection.closeWriter()
        try? FileManager.default.removeItem(atPath: profileDirectory)
    }

    /// Whether the browser has exited, leaving it unreaped (a zombie) so its pid stays reserved.
    private func hasExited() -> Bool {
        if lock.withLock({ isReaped }) { return true }
        var info = siginfo_t()
        while true {
            if waitid(P_PID, id_t(processID), &info, WEXITED | WNOHANG | WNOWAIT) == 0 {
                return info._sifields._kill.si_pid != 0
            }
            if errno == EINTR { continue }
            // ECHILD: already reaped (by us or by someone waiting on every child).
            return true
        }
    }

    /// Serializes launches: between `pipe()` and moving the ends to close-on-exec numbers, a
    /// concurrent launch would hand our ends to its browser, and we would never see EOF.
    private static let spawnLock = NSLock()

    /// Writing to the pipe of a browser that died must fail with EPIPE, not kill the test run.
    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Spawns Chromium with the command pipe on its fd 3 and the reply pipe on its fd 4, and
    /// returns its pid with our (close-on-exec) ends: the one to read and the one to write.
    private static func spawn(_ executable: String, arguments: [String], logPath: String) throws -> (pid_t, Int32, Int32) {
        // Every descriptor is moved to a close-on-exec number >= 100 before anything else:
        // dup2 onto the same number is a no-op that would leave FD_CLOEXEC set in the child, and
        // a low pipe end could be clobbered by the dup2 onto 3 or 4 before it is itself copied.
        let commands = try makePipe()  // we write, Chromium reads on fd 3
        let replies: (read: Int32, write: Int32)
        do { replies = try makePipe() } catch {
            closeAll(commands.read, commands.write)
            throw error
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // Chromium is chatty; a file never fills up and blocks it the way an unread pipe would.
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, commands.read, 3)
        posix_spawn_file_actions_adddup2(&actions, replies.write, 4)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Own process group, so close() can kill the helpers too; default signal handling and
        // an empty mask, so our ignored SIGPIPE and any blocked signals don't leak into it.
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        sigaddset(&defaultSignals, SIGPIPE)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var processID: pid_t = 0
        let result = posix_spawn(&processID, executable, &actions, &attributes, argv, envp)
        // The child has its own copies now (or never started); ours of its ends must go so
        // that EOF on the reply pipe means the browser is gone.
        closeAll(commands.read, replies.write)
        guard result == 0 else {
            closeAll(commands.write, replies.read)
            throw TestFailure("could not start \(executable): \(String(cString: strerror(result)))")
        }
        return (processID, replies.read, commands.write)
    }

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe() failed: \(String(cString: strerror(errno)))") }
        let read = fcntl(ends[0], F_DUPFD_CLOEXEC, 100)
        let write = fcntl(ends[1], F_DUPFD_CLOEXEC, 100)
        closeAll(ends[0], ends[1])
        guard read >= 0, write >= 0 else {
            closeAll(read, write)
            throw TestFailure("fcntl(F_DUPFD_CLOEXEC) failed: \(String(cString: strerror(errno)))")
        }
        return (read, write)
    }

    private static func closeAll(_ descriptors: Int32...) {
        for descriptor in descriptors where descriptor >= 0 {
            _ = closeDescriptor(descriptor)
        }
    }
}

/// `close(2)`, callable from inside `ChromiumProcess`, whose own `close()` shadows it there.
private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }
