public import ArgumentParser
import Foundation
import IdentityCore
import LatchkeyServer

/// `latchkey import kratos|keycloak|auth0 FILE`: brings accounts, passkeys and password
/// hashes from another identity server into the database the server uses (the same
/// `--config`, `--database` or environment).
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import accounts with their passkeys and password hashes from another identity server.",
        discussion: """
            kratos: Ory Kratos identities (the admin API with include_credential=password, webauthn \
            and passkey, or Ory's import format); they keep their UUIDs. keycloak: a realm export \
            (kc.sh export) or its users file; users keep their IDs and passkeys Keycloak's user \
            handle. auth0: Auth0's bulk import format, or its password hash export. Password \
            hashes in bcrypt, PBKDF2, scrypt and Argon2 (through the system's libargon2) import; \
            others are reported and the account comes without a password. A record whose email \
            address both servers verified joins the account here that has it (merged). Each \
            record is written whole or not at all; one that fails leaves nothing behind and the \
            others still import. A record imported before changes nothing, so a file can be \
            imported again. Passkeys sign in only under the RP ID they were \
            registered for: keep relying_party.id what the old server used. Start with --dry-run.
            """
    )

    @OptionGroup var server: ServerOptions
    @Argument(help: "Where the file comes from: kratos, keycloak or auth0.") var source: ImportFormat
    @Argument(help: "The export file: one JSON array, or one JSON object per line.") var file: String
    @Flag(help: "Read and check every record and print the report, writing nothing.") var dryRun = false
    @Option(help: "Also write the report to this file, one JSON object per record.") var report: String?

    /// Reads the file, imports it with a progress line, prints the report.
    /// - Throws: Exit status 1 when records failed and none imported; 66 when the file cannot be read.
    func run() async throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            FileHandle.standardError.write(Data("latchkey: cannot read \(file): \(error.localizedDescription)\n".utf8))
            throw ExitCode(66)
        }
        let records = source.records(data)
        let importer = try await LatchkeyApplication.importer(try server.load())
        let progress = ImportProgress(total: records.count)
        let results = await importer.run(records, from: source.rawValue, dryRun: dryRun) { done, report in progress.show(done, report) }
        progress.finish()
        for entry in results.entries where entry.outcome != .skipped && !entry.notes.isEmpty {
            print("\(entry.position)\t\(entry.sourceID ?? "-")\t\(entry.outcome.rawValue)\t\(entry.notes.joined(separator: "; "))")
        }
        print("\(dryRun ? "dry run, nothing written: " : "")\(results.summary)")
        if let path = report {
            let lines = results.entries.map(ImportCommand.json).joined(separator: "\n") + "\n"
            do {
                try Data(lines.utf8).write(to: URL(fileURLWithPath: path))
            } catch {
                FileHandle.standardError.write(Data("latchkey: cannot write the report to \(path): \(error.localizedDescription)\n".utf8))
                throw ExitCode(73)
            }
        }
        if results.count(.failed) > 0 && results.count(.failed) == results.entries.count { throw ExitCode(1) }
    }

    /// One report line as JSON: `{"position", "source_id", "user_id", "outcome", "notes"}`.
    static func json(_ entry: ImportReport.Entry) -> String {
        var object: [String: Any] = ["position": entry.position, "outcome": entry.outcome.rawValue, "notes": entry.notes]
        object["source_id"] = entry.sourceID
        object["user_id"] = entry.userID?.rawValue
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// A progress line on standard error, rewritten in place at most every half second: long
/// files take minutes, and the count says the import is alive.
final class ImportProgress: @unchecked Sendable {
    private let total: Int
    private var shownAt = Date.distantPast
    private var shown = false

    init(total: Int) { self.total = total }

    func show(_ done: Int, _ report: ImportReport) {
        let now = Date()
        guard now.timeIntervalSince(shownAt) >= 0.5 || done == total else { return }
        shownAt = now
        shown = true
        FileHandle.standardError.write(Data("\rimporting: \(done) of \(total) records (\(report.summary))".utf8))
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

// The core names the formats; the command line reads them by those names.
extension ImportFormat: ExpressibleByArgument {}
