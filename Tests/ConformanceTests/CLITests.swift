import Foundation
import ProcessTestSupport
import Testing
import WebAuthnCorpus

/// Runs the real `latchkey` executable as a process.
@Suite("latchkey webauthn verify")
struct CLITests {
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("latchkey")
    }

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: [String], stdin: Data? = nil) throws -> Run {
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self), stderr: String(decoding: stderrData, as: UTF8.self))
    }

    static func lines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func printsOneLinePerCaseMatchingTheCorpus() throws {
        let run = try Self.run(["webauthn", "verify", CorpusFixture.file.path])
        #expect(run.status == 0)
        let lines = try Self.lines(run.stdout)
        #expect(lines.count == CorpusFixture.cases.count)
        for (line, corpusCase) in zip(lines, CorpusFixture.cases) {
            #expect(line["id"] as? String == corpusCase.id)
            let verdict = line["verdict"] as? String
            if CorpusFixture.unsupportedAlgorithms.contains(corpusCase.algorithmName ?? "") {
                #expect(line["code"] as? String == "unsupported_algorithm")
            } else if CorpusFixture.placeholderCredentialIDs.contains(corpusCase.id) {
                #expect(line["code"] as? String == "credential_id_mismatch", "\(corpusCase.id)")
            } else if !CorpusFixture.isNamedDivergence(corpusCase.id) {
                #expect(verdict == (corpusCase.expectsValid ? "valid" : "invalid"), "\(corpusCase.id)")
            }
            if verdict == "valid", line["attestationType"] != nil {
                #expect(line["trusted"] is Bool)
            }
            if verdict == "invalid" {
                #expect((line["reason"] as? String)?.isEmpty == false)
            }
        }
        #expect(run.stderr.contains("197 case(s)"))
    }

    @Test func neverReadsTheVerdict() throws {
        // Strip every verdict (and write a bare array): the output must not change.
        let data = try Data(contentsOf: CorpusFixture.file)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var vectors = try #require(object["vectors"] as? [[String: Any]])
        for index in vectors.indices {
            vectors[index]["verdict"] = nil
            vectors[index]["verdictSource"] = nil
            vectors[index]["crosscheck"] = nil
        }
        object["vectors"] = vectors
        let stripped = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-stripped-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: vectors).write(to: stripped)
        defer { try? FileManager.default.removeItem(at: stripped) }

        let original = try Self.run(["webauthn", "verify", "--quiet", CorpusFixture.file.path])
        let withoutVerdicts = try Self.run(["webauthn", "verify", "--quiet", stripped.path])
        #expect(withoutVerdicts.status == 0)
        #expect(withoutVerdicts.stdout == original.stdout)

        // Flipping every verdict changes nothing either.
        let flipped = vectors.map { vector -> [String: Any] in
            var vector = vector
            vector["verdict"] = ["invalid": "flipped"]
            return vector
        }
        let fromStdin = try Self.run(["webauthn", "verify", "--quiet", "-"], stdin: try JSONSerialization.data(withJSONObject: ["vectors": flipped]))
        #expect(fromStdin.stdout == original.stdout)
    }

    @Test func badCasesFailAloneAndBadFilesFailLoudly() throws {
        let corpus = #"[{"id":"no-response","expected":{"challenge":"AA","origin":"https://a","rpId":"a"}},{"id":"garbage","expected":{"challenge":"AA","origin":"https://a","rpId":"a"},"response":{"response":{"attestationObject":"!!"}}},{"nonsense":true}]"#
        let run = try Self.run(["webauthn", "verify", "-"], stdin: Data(corpus.utf8))
        #expect(run.status == 0)
        let lines = try Self.lines(run.stdout)
        #expect(lines.count == 3)
        #expect(lines[0]["code"] as? String == "malformed_case")
        #expect(lines[1]["code"] as? String == "malformed_response")
        #expect(lines[2]["id"] as? String == "#2")

        let missing = try Self.run(["webauthn", "verify", "/nonexistent/corpus.json"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot read"))

        let notJSON = try Self.run(["webauthn", "verify", "-"], stdin: Data("{".utf8))
        #expect(notJSON.status != 0)
        #expect(notJSON.stderr.contains("not a corpus"))
    }
}
