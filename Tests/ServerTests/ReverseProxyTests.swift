import Foundation
import ProcessTestSupport
import Testing

/// The README's nginx configuration, as written, in front of a real `latchkey serve`: TLS
/// terminated by nginx (a certificate made by openssl for localhost), the plain-HTTP server
/// redirecting, and Latchkey answering as its https public URL.
@Suite(
    "Reverse proxy: the README's nginx configuration",
    .serialized, .timeLimit(.minutes(10)),
    .enabled(if: Nginx.executable != nil, "nginx is missing: scripts/test.sh fetches it, or set LATCHKEY_NGINX"),
    .enabled(if: ["/usr/bin/openssl", "/usr/bin/curl"].allSatisfy(FileManager.default.isExecutableFile(atPath:)), "needs openssl and curl")
)
struct ReverseProxyTests {
    /// The nginx block of the README's "TLS with nginx" section.
    static func readmeConfiguration() throws -> String {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/deploying.md").standardizedFileURL
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: "## TLS with nginx"))
        let start = try #require(text.range(of: "```nginx\n", range: section.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// Runs a command to completion and returns its status and output.
    static func run(_ executable: String, _ arguments: [String]) async throws -> (Int32, String) {
        let run = try await ExternalCommand.run(executable, arguments)
        return (run.status, run.output)
    }

    @Test func theREADMEsNginxConfigurationServesLatchkeyOverTLS() async throws {
        let nginx = try #require(Nginx.executable)
        let directory = try TemporaryDirectory()
        let (httpsPort, httpPort) = (try freePort(), try freePort())
        let publicURL = "https://localhost:\(httpsPort)"

        // A certificate for localhost, as a CA would issue for login.example.com.
        let (made, madeOutput) = try await Self.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            "-keyout", directory.path("privkey.pem"), "-out", directory.path("fullchain.pem"),
        ])
        try #require(made == 0, "openssl: \(madeOutput)")

        let server = try await ServerProcess.start(configuration: """
            server: { public_url: \(publicURL) }
            relying_party: { id: localhost, name: Proxied, origins: [\(publicURL)] }
            """, in: directory)
        defer { server.stop() }
        let upstream = try #require(server.baseURL.port)

        // The README's block, with only names, ports and paths replaced.
        var site = try Self.readmeConfiguration()
        for (from, to) in [
            ("listen 443 ssl;", "listen 127.0.0.1:\(httpsPort) ssl;"),
            ("listen 80;", "listen 127.0.0.1:\(httpPort);"),
            ("login.example.com", "localhost"),
            ("/etc/letsencrypt/live/localhost/", directory.path("") + "/"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:\(upstream)"),
        ] {
            #expect(site.contains(from), "the README's nginx block no longer has \(from)")
            site = site.replacingOccurrences(of: from, with: to)
        }
        let temporary = directory.path("nginx-temp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let configuration = """
            daemon off;
            pid \(directory.path("nginx.pid"));
            error_log stderr warn;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(temporary)/body;
                proxy_temp_path \(temporary)/proxy;
                fastcgi_temp_path \(temporary)/fastcgi;
                uwsgi_temp_path \(temporary)/uwsgi;
                scgi_temp_path \(temporary)/scgi;
            \(site)
            }
            """
        try configuration.write(toFile: directory.path("nginx.conf"), atomically: true, encoding: .utf8)
        let (checked, checkOutput) = try await Self.run(nginx, ["-t", "-p", directory.path(""), "-c", directory.path("nginx.conf")])
        try #require(checked == 0, "nginx -t: \(checkOutput)")

        let proxy = ChildProcess()
        proxy.executableURL = URL(fileURLWithPath: nginx)
        proxy.arguments = ["-p", directory.path(""), "-c", directory.path("nginx.conf")]
        proxy.standardOutput = FileHandle.nullDevice
        proxy.standardError = FileHandle.nullDevice
        try proxy.run()
        defer { proxy.terminate() }

        func curl(_ arguments: [String]) async throws -> (Int32, String) {
            try await Self.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", directory.path("fullchain.pem")] + arguments)
        }
        // Wait for nginx to listen.
        var discovery = (Int32(-1), "")
        for _ in 0..<50 {
            discovery = try await curl(["\(publicURL)/.well-known/openid-configuration"])
            if discovery.0 == 0 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(discovery.0 == 0, "\(discovery.1)")
        let document = try JSONSerialization.jsonObject(with: Data(discovery.1.utf8)) as? [String: Any]
        #expect(document?["issuer"] as? String == "\(publicURL)/", "\(discovery.1)")

        // A ceremony starts through the proxy, with the RP ID of the configuration.
        let challenge = try await curl(["-H", "Content-Type: application/json", "-d", #"{"client_id":"demo"}"#, "\(publicURL)/passkey/challenge"])
        #expect(challenge.1.contains(#""rpId":"localhost""#), "\(challenge.1)")

        // The hosted pages see https: secure, host-only cookies.
        let page = try await curl(["-D", "-", "-o", "/dev/null", "\(publicURL)/signup"])
        #expect(page.1.contains("set-cookie: __Host-latchkey_csrf=") || page.1.contains("Set-Cookie: __Host-latchkey_csrf="), "\(page.1)")
        #expect(page.1.lowercased().contains("; secure"), "\(page.1)")

        // Plain HTTP is sent to https.
        let redirect = try await Self.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "-H", "Host: localhost", "http://127.0.0.1:\(httpPort)/login"])
        #expect(redirect.1 == "301 https://localhost/login", "\(redirect.1)")
    }
}

/// Where nginx is: `LATCHKEY_NGINX` (scripts/test.sh unpacks Debian's package there), else the system's.
enum Nginx {
    static let executable: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["LATCHKEY_NGINX"], FileManager.default.isExecutableFile(atPath: path) { return path }
        return ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
}
