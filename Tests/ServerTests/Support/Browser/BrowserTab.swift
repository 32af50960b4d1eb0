import Foundation
import Synchronization
import WebAuthnCorpus

/// One page of a `ChromiumProcess`, reached through its flattened CDP session. Made by
/// `ChromiumProcess.newTab()`, which has already enabled the Page and Runtime domains.
///
/// The helpers run JavaScript in the page, so they see what a user would: `click` fires the
/// element's handlers, `fill` raises the events a framework listens to.
final class BrowserTab: Sendable {
    /// The browser-level connection; page events arrive on it tagged with `sessionID`.
    let connection: DevToolsConnection
    let targetID: String
    /// The session to pass with page-level commands and to filter page events by.
    let sessionID: String

    /// The one `WebAuthn.enable` call for this tab, shared by every caller.
    private let webAuthnEnabling = Mutex<Task<Void, any Error>?>(nil)

    init(connection: DevToolsConnection, targetID: String, sessionID: String) {
        self.connection = connection
        self.targetID = targetID
        self.sessionID = sessionID
    }

    /// Sends a command on this tab's session and returns its `result`.
    func send(_ method: String, _ params: [String: JSONValue] = [:], timeout: Duration = .seconds(30)) async throws -> JSONValue {
        try await connection.send(method, params, sessionID: sessionID, timeout: timeout)
    }

    /// Waits for (and consumes) the next event named `method` on this tab; see
    /// `DevToolsConnection.waitForEvent`.
    func waitForEvent(
        _ method: String,
        timeout: Duration = .seconds(10),
        where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async throws -> JSONValue {
        try await connection.waitForEvent(method, sessionID: sessionID, timeout: timeout, where: predicate)
    }

    /// Loads `url` and returns once its load event has fired and `document.readyState` is
    /// "complete". Throws if the navigation fails (e.g. connection refused) or times out.
    func navigate(to url: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        // Load events of earlier documents must not satisfy the wait for this one.
        await connection.discardEvents("Page.loadEventFired", sessionID: sessionID)
        let result = try await send("Page.navigate", ["url": .string(url)], timeout: timeout)
        if let errorText = result["errorText"]?.string, !errorText.isEmpty {
            throw TestFailure("navigating to \(url) failed: \(errorText)")
        }
        // Without a loaderId the navigation stayed within the document: no load event follows.
        if result["loaderId"] != nil {
            do {
                _ = try await waitForEvent("Page.loadEventFired", timeout: deadline - ContinuousClock.now)
            } catch {
                throw TestFailure("\(url) did not finish loading: \(error)")
            }
        }
        try await waitUntil("document.readyState === 'complete'", timeout: max(deadline - ContinuousClock.now, .milliseconds(500)))
    }

    /// Evaluates `expression` in the page, awaiting a returned promise, with a user gesture,
    /// and returns its value as JSON (`.null` for undefined). A thrown exception or rejected
    /// promise becomes a `TestFailure` carrying the JavaScript error.
    func evaluate(_ expression: String, timeout: Duration = .seconds(30)) async throws -> JSONValue {
        let response = try await send("Runtime.evaluate", [
            "expression": .string(expression),
            "awaitPromise": .bool(true),
            "returnByValue": .bool(true),
            "userGesture": .bool(true),
        ], timeout: timeout)
        if let details = response["exceptionDetails"] {
            throw TestFailure("JavaScript threw \(Self.exceptionMessage(details))\n  evaluating: \(expression.prefix(300))")
        }
        guard let result = response["result"] else {
            throw TestFailure("Runtime.evaluate returned no result: \(response)")
        }
        return result["value"] ?? .null
    }

    /// Polls the JavaScript expression `condition` every 50 ms until it is truthy (a promise
    /// is awaited). Errors while polling count as "not yet" (the page may be mid-navigation).
    /// On timeout, throws with the condition, the URL, the last error and the page's text.
    func waitUntil(_ condition: String, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        let check = "(async () => Boolean(await (\n\(condition)\n)))()"
        var lastError: String?
        while true {
            do {
                // A single hung evaluation must not outlast the whole wait by much.
                let allowance = min(max(deadline - ContinuousClock.now, .milliseconds(200)), .seconds(5))
                if try await evaluate(check, timeout: allowance) == .bool(true) { return }
                lastError = nil
            } catch {
                if await connection.isClosed { throw error }
                lastError = "\(error)"
            }
            if ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let url = (try? await currentURL()) ?? "(unknown URL)"
        let text = (try? await evaluate("document.body ? document.body.innerText.slice(0, 500) : '(no body)'", timeout: .seconds(2)))?.string
        throw TestFailure(
            "timed out after \(timeout) waiting for `\(condition)` on \(url)"
                + (lastError.map { "\n  last error: \($0)" } ?? "")
                + "\n  page text: \(text ?? "(unavailable)")"
        )
    }

    /// Clicks the first element matching the CSS `selector`; throws if there is none.
    func click(_ selector: String) async throws {
        _ = try await evaluate("""
            (() => {
              const element = document.querySelector(\(Self.literal(selector)));
              if (!element) throw new Error("no element matches " + \(Self.literal(selector)));
              element.click();
            })()
            """)
    }

    /// Sets the value of the first element matching `selector` and dispatches `input` and
    /// `change`, as typing would. Uses the prototype's value setter so that frameworks which
    /// track the value property notice the change.
    func fill(_ selector: String, _ value: String) async throws {
        _ = try await evaluate("""
            (() => {
              const element = document.querySelector(\(Self.literal(selector)));
              if (!element) throw new Error("no element matches " + \(Self.literal(selector)));
              element.focus();
              const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(element), "value")?.set;
              if (setter) setter.call(element, \(Self.literal(value))); else element.value = \(Self.literal(value));
              element.dispatchEvent(new Event("input", { bubbles: true }));
              element.dispatchEvent(new Event("change", { bubbles: true }));
            })()
            """)
    }

    /// The `innerText` of the first element matching `selector`; throws if there is none.
    func text(_ selector: String) async throws -> String {
        let value = try await evaluate("""
            (() => {
              const element = document.querySelector(\(Self.literal(selector)));
              if (!element) throw new Error("no element matches " + \(Self.literal(selector)));
              return element.innerText;
            })()
            """)
        guard let text = value.string else { throw TestFailure("innerText of \(selector) is not a string: \(value)") }
        return text
    }

    /// The page's `location.href`.
    func currentURL() async throws -> String {
        let value = try await evaluate("location.href")
        guard let url = value.string else { throw TestFailure("location.href is not a string: \(value)") }
        return url
    }

    /// Writes a PNG of the viewport to `path`, creating its directory.
    func screenshot(to path: String) async throws {
        let result = try await send("Page.captureScreenshot", ["format": .string("png")])
        guard let encoded = result["data"]?.string, let png = Data(base64Encoded: encoded) else {
            throw TestFailure("Page.captureScreenshot returned no PNG data")
        }
        let file = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try png.write(to: file)
    }

    /// Closes the tab (the browser keeps running).
    func close() async throws {
        _ = try await connection.send("Target.closeTarget", ["targetId": .string(targetID)])
    }

    /// Enables the WebAuthn domain on this tab once, however many callers ask, concurrently or
    /// not. A failed attempt is forgotten so that a later call tries again.
    func enableWebAuthn() async throws {
        let enabling = webAuthnEnabling.withLock { current in
            if let current { return current }
            let task = Task { _ = try await self.send("WebAuthn.enable") }
            current = task
            return task
        }
        do {
            try await enabling.value
        } catch {
            webAuthnEnabling.withLock { if $0 == enabling { $0 = nil } }
            throw error
        }
    }

    /// `text` as a JavaScript string literal (JSON strings are valid JavaScript).
    static func literal(_ text: String) -> String {
        String(decoding: JSONValue.string(text).data(), as: UTF8.self)
    }

    /// The most useful description CDP gives of an exception: the error's `description`
    /// (name, message and stack), a thrown non-Error value, or the summary text.
    private static func exceptionMessage(_ details: JSONValue) -> String {
        if let description = details["exception"]?["description"]?.string { return description }
        if let value = details["exception"]?["value"] { return value.string ?? String(decoding: value.data(), as: UTF8.self) }
        return details["text"]?.string ?? "\(details)"
    }
}
