import ArgumentParser
import Foundation
import IdentityCore
import LatchkeyServer
import WebAuthn

/// `latchkey mds …`: the FIDO Metadata Service BLOB.
struct MetadataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mds",
        abstract: "Manage the FIDO Metadata Service (MDS3) BLOB registrations are judged by.",
        subcommands: [Update.self]
    )

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Validate a metadata BLOB and store it in the database; running servers pick it up at their next refresh.",
            discussion: """
                Without --blob or --url the configured passkeys.attestation.metadata.blob is read. Exits 65 when the \
                BLOB fails a check (the message names it) or its serial number is lower than the stored one's, 69 when \
                it cannot be read or downloaded, and 78 for a configuration error.
                """
        )

        @OptionGroup var options: ServerOptions

        @Option(name: .long, help: "A BLOB file to validate and store.")
        var blob: String?

        @Option(name: .long, help: "An https URL to download the BLOB from.")
        var url: String?

        func validate() throws {
            if blob != nil && url != nil { throw ValidationError("give --blob or --url, not both") }
            if let url, !url.hasPrefix("https://") { throw ValidationError("--url must be an https URL") }
        }

        func run() async throws {
            let configuration: LatchkeyConfiguration
            let source: MetadataSource
            do {
                configuration = try options.load()
                let settings = configuration.passkeys.metadata
                    ?? LatchkeyConfiguration.Passkeys.Metadata(
                        source: blob ?? url ?? "", rootCertificateFile: nil, refresh: 86_400, refusedStatuses: AttestationPolicy.defaultRefusedStatuses
                    )
                guard !settings.source.isEmpty else {
                    throw ConfigurationError(key: "passkeys.attestation.metadata.blob", "is not set; give --blob FILE or --url URL, or configure it")
                }
                source = try MetadataSource.make(settings, storage: try await LatchkeyApplication.openStorage(configuration), clock: SystemClock())
            } catch let error as ConfigurationError {
                fail("configuration error: \(error)", code: 78)
            }
            let location = blob ?? url ?? source.settings.source
            let update: MetadataUpdate
            do {
                _ = try await source.updater.installStored()
                update = try await source.updater.update(with: try await source.fetch(location))
            } catch let error as MetadataSource.FetchError {
                fail(error.description, code: 69)
            } catch let error as WebAuthnError {
                fail("\(location) failed validation: \(error.reason)", code: 65)
            } catch let error as IdentityError where error.code == .conflict {
                fail("\(location): \(error.message)", code: 65)
            }
            let blob = update.blob
            switch update.outcome {
            case .unchanged:
                print("metadata BLOB no \(blob.number) is already stored; nothing changed")
            case .installed(let previous):
                print("stored metadata BLOB no \(blob.number) (\(blob.entries.count) entries, nextUpdate \(blob.nextUpdate))\(previous.map { ", replacing no \($0)" } ?? "")")
                if update.flaggedCredentials > 0 {
                    print("\(update.flaggedCredentials) registered passkey(s) now have a refused authenticator status; see the audit log (authenticator_status_flagged)")
                }
            }
            for note in blob.notes.prefix(20) { print("note: \(note)") }
            print("running servers pick it up within \(Int(source.settings.refresh)) s")
        }

        private func fail(_ message: String, code: Int32) -> Never {
            FileHandle.standardError.write(Data("latchkey mds update: \(message)\n".utf8))
            Update.exit(withError: ExitCode(code))
        }
    }
}
