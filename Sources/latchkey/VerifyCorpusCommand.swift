import ArgumentParser
import Foundation
import WebAuthnCorpus

/// `latchkey webauthn verify FILE`: verifies every case of a corpus file and prints one
/// JSON line per case.
struct VerifyCorpusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify WebAuthn registration and authentication cases from a corpus file.",
        discussion: """
            FILE holds an object with a "vectors" array, or a bare array, of cases in the schema of \
            the WebAuthn conformance corpus. Each case is decided from its expected, response, \
            credentialPublicKey, priorSignCount, timeOverride / suggestedVerificationTime and \
            trustAnchorsPEM members only; a verdict in the file is never read.

            Each output line is {"id", "verdict": "valid"|"invalid", "code", "reason"}, plus \
            "attestationType" and "trusted" for valid registrations. A summary goes to stderr.
            """
    )

    @Argument(help: "The corpus file, or - for standard input.")
    var file: String

    @Flag(name: .customLong("no-legacy-rs1"), help: "Reject RS1 (RSASSA-PKCS1-v1_5 with SHA-1) from legacy TPMs.")
    var rejectLegacyRS1 = false

    @Flag(name: .customLong("quiet"), help: "Do not print the summary to stderr.")
    var quiet = false

    func run() async throws {
        let data: Data
        do {
            data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ValidationError("cannot read \(file): \(error.localizedDescription)")
        }
        let corpus: CorpusFile
        do {
            corpus = try CorpusFile.decode(data)
        } catch {
            throw ValidationError("\(file) is not a corpus: expected a JSON object with \"vectors\" or an array of cases")
        }

        let runner = CorpusRunner(allowsLegacyRS1ForTPM: !rejectLegacyRS1, now: Date())
        var counts: [String: Int] = [:]
        for (index, entry) in corpus.entries.enumerated() {
            let outcome = runner.run(entry, index: index)
            counts[outcome.code ?? "valid", default: 0] += 1
            print(outcome.jsonLine)
        }
        if !quiet {
            let invalid = counts.filter { $0.key != "valid" }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            let summary = "\(corpus.entries.count) case(s): \(counts["valid", default: 0]) valid, \(corpus.entries.count - counts["valid", default: 0]) invalid"
            FileHandle.standardError.write(Data((summary + (invalid.isEmpty ? "" : " (\(invalid.joined(separator: ", ")))") + "\n").utf8))
        }
    }
}
