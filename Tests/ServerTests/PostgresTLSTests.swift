import Foundation
import StoragePostgres
import Testing

/// TLS to PostgreSQL, against a private cluster with a certificate signed by a throwaway
/// CA: `sslmode=verify-full` with that CA connects, with another CA it refuses, and so does
/// an address the certificate does not name; `verify-ca` skips the name, `require` checks
/// nothing.
@Suite(
    "PostgreSQL over TLS", .serialized, .enabled(if: PostgresFixture.runs),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs openssl"), .timeLimit(.minutes(10))
)
struct PostgresTLSTests {
    @Test func verifyFullChecksTheCertificateAndItsName() async throws {
        try await PostgresFixture.withPrivateCluster(verifyFullChecksTheCertificateAndItsName)
    }

    private func verifyFullChecksTheCertificateAndItsName(on cluster: PostgresFixture.PrivateCluster) async throws {
        let files = try TemporaryDirectory()
        let ca = files.path("ca.pem"), otherCA = files.path("other-ca.pem")
        try await Self.makeCA(key: files.path("ca.key"), certificate: ca)
        try await Self.makeCA(key: files.path("other-ca.key"), certificate: otherCA)
        // The server's certificate, for the name localhost only, signed by the first CA. (NIOSSL
        // matches an IP address SAN against the connected address whatever name was asked for,
        // so the name check is shown with a DNS name and a connection by address.)
        let data = cluster.directory.appendingPathComponent("data").path
        try await Self.openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=localhost",
            "-keyout", data + "/server.key", "-out", files.path("server.csr")])
        try "subjectAltName=DNS:localhost\n".write(toFile: files.path("san.ext"), atomically: true, encoding: .utf8)
        try await Self.openssl(["x509", "-req", "-in", files.path("server.csr"), "-CA", ca, "-CAkey", files.path("ca.key"), "-CAcreateserial",
            "-days", "2", "-extfile", files.path("san.ext"), "-out", data + "/server.crt"])
        try await Self.ownedByPostgres([data + "/server.key", data + "/server.crt"])
        try "\nssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n"
            .appendingTo(file: data + "/postgresql.conf")
        try await cluster.stop()
        try await cluster.resume()

        func open(_ parameters: String, host: String = "127.0.0.1") async throws -> PostgresStorage {
            var settings = try PostgresSettings(url: cluster.url.replacingOccurrences(of: "@127.0.0.1:", with: "@\(host):") + "?connect_timeout=3&" + parameters)
            settings.schema = "tls_" + UUID().uuidString.prefix(8).lowercased()
            return try await PostgresStorage(settings)
        }
        let verified = try await open("sslmode=verify-full&sslrootcert=" + ca, host: "localhost")
        #expect(try await verified.signingKeys().isEmpty)
        verified.close()
        try await open("sslmode=verify-ca&sslrootcert=" + ca).close()
        try await open("sslmode=require").close()

        // Refused, and the start-up error says why rather than only that time ran out.
        let otherCAError = await #expect(throws: PostgresStorageError.self, "another CA's certificate is refused") {
            try await open("sslmode=verify-full&sslrootcert=" + otherCA + Self.refusedSoon, host: "localhost").close()
        }
        let otherCAReason = otherCAError?.reason ?? ""
        #expect(otherCAReason.contains("CERTIFICATE_VERIFY_FAILED"), "\(otherCAReason)")
        let nameError = await #expect(throws: PostgresStorageError.self, "an address the certificate does not name is refused") {
            try await open("sslmode=verify-full&sslrootcert=" + ca + Self.refusedSoon).close()
        }
        let nameReason = nameError?.reason ?? ""
        #expect(nameReason.contains("failedToValidateHostname"), "\(nameReason)")
    }

    /// A refused connection is retried until the statement deadline passes; a short one keeps
    /// the refusals quick.
    static let refusedSoon = "&statement_timeout=500"

    static func makeCA(key: String, certificate: String) async throws {
        try await openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=Test CA", "-days", "2",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign", "-keyout", key, "-out", certificate])
    }

    static func openssl(_ arguments: [String]) async throws {
        let run = try await ExternalCommand.run("/usr/bin/openssl", arguments)
        guard run.status == 0 else { throw TestFailure("openssl \(arguments.first ?? ""): \(run.output)") }
    }

    /// PostgreSQL reads its key only when the key belongs to it and no one else can read it.
    static func ownedByPostgres(_ files: [String]) async throws {
        for file in files {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            if getuid() == 0 {
                let run = try await ExternalCommand.run("/bin/chown", ["postgres", file])
                guard run.status == 0 else { throw TestFailure("chown: \(run.output)") }
            }
        }
    }
}

extension String {
    fileprivate func appendingTo(file path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(utf8))
    }
}
