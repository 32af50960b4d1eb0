import AppAssociation
import Foundation
import LatchkeyDoctor
import LatchkeyServer
import Testing
import WebAuthn

/// `latchkey doctor` against the real server, and against deployments broken one way at
/// a time: every break must be reported as the right check with the right fix.
@Suite("latchkey doctor", .serialized)
struct DoctorTests {
    static let settings: AssociationSettings = {
        // The configuration the native-apps tests run the server with.
        (try? ConfigurationLoader.load(overrides: .init(configFile: "latchkey.yaml"), environment: [:]) { _ in NativeAppsTests.configuration })!.association
    }()

    static func correctDeployment() -> [String: FixedResponseServer.Answer] {
        NativeAppsTests.expectedDocuments.mapValues { FixedResponseServer.Answer(body: $0) }
    }

    /// One way to break a deployment, the check that must catch it, and words its fix must use.
    enum Break: String, CaseIterable, CustomTestStringConvertible {
        case redirect, htmlContentType, missingFingerprint, wrongTeamID, invalidJSON, notFound, wrongShape, missingLoginCredentials

        var testDescription: String { rawValue }

        func apply(to answers: inout [String: FixedResponseServer.Answer]) {
            let aasa = "/.well-known/apple-app-site-association"
            let assetLinks = "/.well-known/assetlinks.json"
            switch self {
            case .redirect:
                answers[aasa] = .init(status: .movedPermanently, contentType: "text/html", location: "https://www.example.com/.well-known/apple-app-site-association", body: "moved")
            case .htmlContentType:
                answers[assetLinks]?.contentType = "text/html; charset=utf-8"
            case .missingFingerprint:
                let body = answers[assetLinks]!.body
                answers[assetLinks]?.body = body.replacingOccurrences(of: ",\"\(NativeAppsTests.hex(NativeAppsTests.uploadKey))\"", with: "")
            case .wrongTeamID:
                let body = answers[aasa]!.body
                answers[aasa]?.body = body.replacingOccurrences(of: "ABCDE12345", with: "ZZZZZ99999")
            case .invalidJSON:
                answers["/.well-known/passkey-endpoints"]?.body = #"{"enroll":"http://localhost:8080/account/passkeys/new","#
            case .notFound:
                answers["/.well-known/webauthn"] = nil
            case .wrongShape:
                answers[aasa]?.body = #"{"webcredentials":{"apps":"ABCDE12345.com.example.shiny"}}"#
            case .missingLoginCredentials:
                let body = answers[assetLinks]!.body
                answers[assetLinks]?.body = body.replacingOccurrences(of: #","delegate_permission/common.get_login_creds""#, with: "")
            }
        }

        var failedCheck: String {
            switch self {
            case .redirect: "aasa.status"
            case .htmlContentType: "assetlinks.content_type"
            case .missingFingerprint: "assetlinks.fingerprints"
            case .wrongTeamID: "aasa.app"
            case .invalidJSON: "endpoints.json"
            case .notFound: "webauthn.status"
            case .wrongShape: "aasa.json"
            case .missingLoginCredentials: "assetlinks.relation"
            }
        }

        var fixWords: [String] {
            switch self {
            case .redirect: ["do not follow redirects", "status 200"]
            case .htmlContentType: ["Content-Type: application/json"]
            case .missingFingerprint: [NativeAppsTests.hex(NativeAppsTests.uploadKey), "upload key"]
            case .wrongTeamID: ["ZZZZZ99999", "ABCDE12345", "Membership"]
            case .invalidJSON: ["syntax"]
            case .notFound: ["serve", "/.well-known/webauthn"]
            case .wrongShape: ["webcredentials.apps"]
            case .missingLoginCredentials: ["delegate_permission/common.get_login_creds"]
            }
        }
    }

    private func examine(_ answers: [String: FixedResponseServer.Answer]) async throws -> DoctorReport {
        let server = try await FixedResponseServer.start(answers)
        defer { Task { await server.stop() } }
        return try await Doctor().examine(url: server.url, expecting: Self.settings, expectationsSource: "test", allowHTTP: true)
    }

    @Test func aCorrectDeploymentPassesEveryCheck() async throws {
        let report = try await examine(Self.correctDeployment())
        #expect(report.failures.isEmpty, "\(report.rendered())")
        #expect(report.checks.count >= 25)
        for id in ["aasa.app", "assetlinks.fingerprints", "assetlinks.relation", "endpoints.manage", "webauthn.labels", "domain.rp_id"] {
            #expect(report.check(id)?.passed == true, "\(id)")
        }
    }

    @Test(arguments: Break.allCases)
    func eachBreakIsReportedWithItsFix(_ broken: Break) async throws {
        var answers = Self.correctDeployment()
        broken.apply(to: &answers)
        let report = try await examine(answers)
        #expect(report.failures.map(\.id) == [broken.failedCheck], "\(report.rendered())")
        let failure = try #require(report.failures.first)
        let text = failure.summary + " " + (failure.fix ?? "")
        for words in broken.fixWords {
            #expect(text.contains(words), "\(broken): \(text)")
        }
    }

    @Test func theRealServerPassesAndTheCommandSaysSo() async throws {
        let directory = try TemporaryDirectory()
        let server = try await NativeAppsTests.start(directory)
        defer { server.stop() }
        let url = "http://localhost:\(server.baseURL.port!)"

        let passing = try await CommandRun.run(["doctor", "--url", url, "--config", directory.path("latchkey.yaml"), "--allow-http"], workingDirectory: directory.url)
        #expect(passing.status == 0, "\(passing.output)")
        #expect(passing.output.contains("checks passed"))
        #expect(!passing.output.contains("✗"))

        // Without --allow-http an http deployment fails, with the fix.
        let insecure = try await CommandRun.run(["doctor", "--url", url, "--config", directory.path("latchkey.yaml")], workingDirectory: directory.url)
        #expect(insecure.status == 1)
        #expect(insecure.output.contains("✗ uses HTTP"))
        #expect(insecure.output.contains("fix: iOS and Android fetch association files only over HTTPS"))

        // --import reads the files back into configuration that loads and names the same apps.
        let imported = try await CommandRun.run(["doctor", "--url", url, "--import"], workingDirectory: directory.url)
        #expect(imported.status == 0, "\(imported.output)")
        let configuration = try ConfigurationLoader.load(overrides: .init(configFile: "imported.yaml"), environment: [:]) { _ in imported.output }
        #expect(configuration.association.appleApps.flatMap(\.appIDs) == Self.settings.appleApps.flatMap(\.appIDs))
        #expect(configuration.association.androidApps == Self.settings.androidApps)
        #expect(configuration.relyingParty.relatedOrigins == ["https://example.co.uk"])
        #expect(configuration.allowedOrigins.contains("android:apk-key-hash:" + Base64URL.encode(NativeAppsTests.uploadKey)))
        #expect(imported.output.contains("# Origins Latchkey accepts because of these entries:"))
    }

    @Test func aBrokenDeploymentMakesTheCommandFail() async throws {
        var answers = Self.correctDeployment()
        Break.wrongTeamID.apply(to: &answers)
        let server = try await FixedResponseServer.start(answers)
        defer { Task { await server.stop() } }
        let directory = try TemporaryDirectory()
        try NativeAppsTests.configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let run = try await CommandRun.run(["doctor", "--url", server.url.absoluteString, "--config", directory.path("latchkey.yaml"), "--allow-http"], workingDirectory: directory.url)
        #expect(run.status == 1)
        #expect(run.output.contains("✗ lists ZZZZZ99999.com.example.shiny, not ABCDE12345.com.example.shiny: the team ID is wrong"))
        #expect(run.output.contains("fix: the configuration's team ID is ABCDE12345"))
        #expect(run.output.contains("1 failed"))
    }

    /// Answers from memory, for deployments on hosts a test cannot own.
    struct RecordedFetcher: DocumentFetching {
        let answers: [String: FetchedResponse]

        func fetch(_ url: URL) async -> FetchOutcome {
            .response(answers[url.absoluteString] ?? FetchedResponse(status: 404, contentType: "text/html", location: nil, body: []))
        }
    }

    @Test func filesOnAnAPISubdomainAreNotWhereAndroidLooks() async throws {
        var settings = Self.settings
        settings.relyingPartyID = "example.com"
        settings.relatedOrigins = []
        settings.passkeyEndpoints = .init(enroll: "https://example.com/account/passkeys/new", manage: "https://example.com/account/passkeys")
        var answers: [String: FetchedResponse] = [:]
        for path in ["apple-app-site-association", "assetlinks.json", "passkey-endpoints"] {
            let body = path == "passkey-endpoints"
                ? AssociationSettings.jsonBytes(settings.passkeyEndpoints)
                : (path == "assetlinks.json" ? AssociationSettings.jsonBytes(settings.assetLinks!) : AssociationSettings.jsonBytes(settings.appleAppSiteAssociation!))
            answers["https://login.example.com/.well-known/\(path)"] = FetchedResponse(status: 200, contentType: "application/json", location: nil, body: body)
        }
        let doctor = Doctor(fetcher: RecordedFetcher(answers: answers))
        let report = try await doctor.examine(url: URL(string: "https://login.example.com/")!, expecting: settings)
        #expect(report.check("domain.rp_id")?.passed == true)
        #expect(report.check("domain.rp_id")?.summary.contains("registrable suffix of login.example.com") == true)
        let host = try #require(report.check("assetlinks.host"))
        #expect(!host.passed)
        #expect(host.fix?.contains("only from https://example.com/.well-known/assetlinks.json") == true)
        #expect(report.check("aasa.status")?.passed == false)

        // Once the files are on the RP ID's host, every check passes.
        var moved: [String: FetchedResponse] = [:]
        for (url, response) in answers { moved[url.replacingOccurrences(of: "login.example.com", with: "example.com")] = response }
        let fixed = try await Doctor(fetcher: RecordedFetcher(answers: moved)).examine(url: URL(string: "https://login.example.com")!, expecting: settings)
        #expect(fixed.passed, "\(fixed.rendered())")
    }

    @Test func anRPIDThatDoesNotMatchTheDomainIsReported() async throws {
        var settings = Self.settings
        settings.relyingPartyID = "example.org"
        let report = try await Doctor(fetcher: RecordedFetcher(answers: [:])).examine(url: URL(string: "https://login.example.com")!, expecting: settings)
        let check = try #require(report.check("domain.rp_id"))
        #expect(!check.passed)
        #expect(check.fix?.contains("such as example.com") == true)
    }

    @Test func nothingToImportIsAnError() async throws {
        let server = try await FixedResponseServer.start([:])
        defer { Task { await server.stop() } }
        let run = try await CommandRun.run(["doctor", "--url", server.url.absoluteString, "--import"], workingDirectory: URL(fileURLWithPath: NSTemporaryDirectory()))
        #expect(run.status == 1)
        #expect(run.output.contains("found no association files"))
    }

    @Test func aBadURLIsAUsageError() async throws {
        let run = try await CommandRun.run(["doctor", "--url", "ftp://example.com"], workingDirectory: URL(fileURLWithPath: NSTemporaryDirectory()))
        #expect(run.status == 64)
        #expect(run.output.contains("--url must be an http(s) URL"))
    }
}
