import AppAssociation
import ArgumentParser
import Foundation
import LatchkeyDoctor
import LatchkeyServer

/// `latchkey doctor`: checks a deployed domain's association files.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a domain's association files (apple-app-site-association, assetlinks.json, passkey-endpoints, webauthn).",
        discussion: """
            Fetches the files the way iOS, Android and browsers do (no redirects followed) and checks \
            each against the platforms' requirements and, with --config, against the configured apps, \
            fingerprints, related origins and passkey endpoints. Prints one line per check and the fix \
            for each failure; exits 1 when a check fails. With --import, prints the configuration \
            entries that match the deployed files instead.
            """
    )

    @Option(help: "The deployment to check, such as https://example.com.")
    var url: String

    @Option(help: "The configuration to check the files against (LATCHKEY_CONFIG).")
    var config: String?

    @Flag(name: .customLong("allow-http"), help: "Accept http:// URLs, for local testing.")
    var allowHTTP = false

    @Flag(name: .customLong("import"), help: "Print configuration entries matching the deployed files instead of checking them.")
    var importFiles = false

    func run() async throws {
        guard let target = URL(string: url) else {
            throw ValidationError("--url must be a URL such as https://example.com")
        }
        let doctor = Doctor()
        do {
            if importFiles {
                let result = try await doctor.importAssociation(from: target)
                guard !result.isEmpty else {
                    FileHandle.standardError.write(Data("latchkey doctor: found no association files to import at \(url)\n".utf8))
                    for problem in result.problems { FileHandle.standardError.write(Data("  \(problem)\n".utf8)) }
                    throw ExitCode.failure
                }
                print(result.yaml(source: url), terminator: "")
                return
            }
            let settings = try loadSettings()
            let report = try await doctor.examine(url: target, expecting: settings, expectationsSource: settings.map { _ in configSource ?? "" }, allowHTTP: allowHTTP)
            print(report.rendered(), terminator: "")
            if !report.passed { throw ExitCode.failure }
        } catch let error as Doctor.UsageError {
            throw ValidationError(error.description)
        }
    }

    private var configSource: String? { config ?? ProcessInfo.processInfo.environment["LATCHKEY_CONFIG"] }

    /// The apps and origins of the configuration file, when one is given.
    private func loadSettings() throws -> AssociationSettings? {
        guard let file = configSource else { return nil }
        do {
            return try ConfigurationLoader.load(overrides: .init(configFile: file), environment: ProcessInfo.processInfo.environment).association
        } catch {
            FileHandle.standardError.write(Data("latchkey: invalid configuration: \(error)\n".utf8))
            throw ExitCode(78)
        }
    }
}
