import Foundation
public import IdentityCore
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
public import Logging
import ServiceLifecycle
import WebAuthn

/// Where the FIDO metadata BLOB comes from (a file or an https URL), and how the server and
/// `latchkey mds update` take it in: fetch, validate, store, install.
public struct MetadataSource: Sendable {
    /// The configured metadata settings.
    public let settings: LatchkeyConfiguration.Passkeys.Metadata
    /// The holder registrations read.
    public let metadata: AttestationMetadata
    /// Validates, stores and installs.
    public let updater: MetadataUpdater

    /// The largest BLOB accepted. FIDO's is about 5 MB today.
    static let maximumBytes = 64 << 20

    /// The bundled FIDO root, or the configured `root_certificate`.
    static func roots(_ settings: LatchkeyConfiguration.Passkeys.Metadata) throws(ConfigurationError) -> [AttestationCertificate] {
        let key = "passkeys.attestation.metadata.root_certificate"
        let name = settings.rootCertificateFile ?? "the bundled FIDO root"
        guard let url = settings.rootCertificateFile.map({ URL(fileURLWithPath: $0) }) ?? Bundle.module.url(forResource: "fido-mds-root", withExtension: "pem") else {
            throw ConfigurationError(key: key, "the bundled FIDO root certificate is missing from this build")
        }
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw ConfigurationError(key: key, "cannot read \(name)")
        }
        let roots: [AttestationCertificate]
        do {
            roots = try AttestationCertificate.parsePEM(text)
        } catch {
            throw ConfigurationError(key: key, "\(name) holds no usable PEM certificate: \(error.reason)")
        }
        guard !roots.isEmpty else { throw ConfigurationError(key: key, "\(name) holds no certificate") }
        return roots
    }

    /// Creates the source for a configuration with metadata, over `storage`.
    public static func make(
        _ settings: LatchkeyConfiguration.Passkeys.Metadata,
        storage: any MetadataStore & AuditLog,
        clock: any WallClock
    ) throws(ConfigurationError) -> MetadataSource {
        let metadata = AttestationMetadata(roots: try roots(settings), refusedStatuses: settings.refusedStatuses)
        return MetadataSource(settings: settings, metadata: metadata, updater: MetadataUpdater(metadata: metadata, storage: storage, clock: clock))
    }

    /// A failure to obtain the BLOB's bytes (not a failed validation).
    public struct FetchError: Error, CustomStringConvertible {
        /// What went wrong, naming the source.
        public let description: String
    }

    /// Reads the BLOB from `location` (a file path or an https URL), or from the configured
    /// source.
    public func fetch(_ location: String? = nil) async throws -> [UInt8] {
        let location = location ?? settings.source
        guard location.hasPrefix("https://") || location.hasPrefix("http://") else {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: location))
                guard data.count <= Self.maximumBytes else { throw FetchError(description: "\(location) is larger than \(Self.maximumBytes) bytes") }
                return Array(data)
            } catch let error as FetchError {
                throw error
            } catch {
                throw FetchError(description: "cannot read \(location): \(error.localizedDescription)")
            }
        }
        guard URL(string: location) != nil else { throw FetchError(description: "\(location) is not a URL") }
        return try await Self.download(location)
    }

    /// One GET of the BLOB, redirects not followed (the configured URL should be the BLOB's
    /// own), with AsyncHTTPClient as the webhook and back-channel senders use it.
    private static func download(_ location: String) async throws -> [UInt8] {
        let limit = TimeAmount.seconds(60)
        let configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: limit, read: limit))
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        // Shut down before answering, whichever way the download ends.
        do {
            let bytes = try await get(location, with: client, limit: limit)
            try? await client.shutdown()
            return bytes
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// With telemetry, AsyncHTTPClient makes the request's client span (the BLOB's URL is
    /// public) and sends its `traceparent`.
    private static func get(_ location: String, with client: HTTPClient, limit: TimeAmount) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: location)
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "latchkey-mds")
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: limit)
        } catch {
            throw FetchError(description: "cannot download \(location): \(error)")
        }
        guard response.status == .ok else {
            let redirect = response.headers.first(name: "Location").map { " (redirected to \($0); configure that URL)" } ?? ""
            throw FetchError(description: "cannot download \(location): HTTP \(response.status.code)\(redirect)")
        }
        do {
            return Array(buffer: try await response.body.collect(upTo: maximumBytes))
        } catch is NIOTooManyBytesError {
            throw FetchError(description: "cannot download \(location): the body is larger than \(maximumBytes) bytes")
        } catch {
            throw FetchError(description: "cannot download \(location): \(error)")
        }
    }

    /// Start-up: installs the stored BLOB, then fetches and validates the configured one.
    /// A BLOB that fails validation stops the server (a ``ConfigurationError``, exit 78); a
    /// download that fails is survivable only when a stored BLOB is already in use.
    public func start(logger: Logger) async throws {
        let key = "passkeys.attestation.metadata.blob"
        if let stored = try await updater.installStored() {
            logger.info("metadata BLOB no \(stored.number) loaded from the database (\(stored.entries.count) entries, nextUpdate \(stored.nextUpdate))")
        }
        let bytes: [UInt8]
        do {
            bytes = try await fetch()
        } catch let error as FetchError {
            guard let current = metadata.blob else {
                throw ConfigurationError(key: key, "\(error.description), and no metadata BLOB is stored yet")
            }
            logger.warning("\(error.description); keeping the stored metadata BLOB no \(current.number)")
            return
        }
        do {
            log(try await updater.update(with: bytes), logger: logger)
        } catch let error as WebAuthnError {
            throw ConfigurationError(key: key, "\(settings.source) failed validation: \(error.reason)")
        } catch let error as IdentityError where error.code == .conflict {
            logger.warning("\(settings.source): \(error.message); keeping the stored one")
        }
    }

    /// One refresh: picks up a BLOB another instance stored, then fetches the configured
    /// one. Failures keep the BLOB in use and are logged.
    public func refresh(logger: Logger) async {
        do {
            if let stored = try await updater.installStored() {
                logger.info("metadata BLOB no \(stored.number) picked up from the database")
            }
            log(try await updater.update(with: try await fetch()), logger: logger)
        } catch let error as FetchError {
            logger.warning("metadata refresh: \(error.description); keeping BLOB no \(metadata.blob.map { String($0.number) } ?? "none")")
        } catch let error as WebAuthnError {
            logger.warning("metadata refresh: \(settings.source) failed validation (\(error.reason)); keeping BLOB no \(metadata.blob.map { String($0.number) } ?? "none")")
        } catch let error as IdentityError {
            logger.warning("metadata refresh: \(error.message); keeping BLOB no \(metadata.blob.map { String($0.number) } ?? "none")")
        } catch {
            logger.warning("metadata refresh failed: \(error); keeping BLOB no \(metadata.blob.map { String($0.number) } ?? "none")")
        }
    }

    /// Installs a BLOB another process stored, when there is a newer one: a read of its
    /// serial number otherwise. Failures keep the BLOB in use and are logged.
    public func pickUpStored(logger: Logger) async {
        do {
            if let stored = try await updater.installStored() {
                logger.notice("metadata BLOB no \(stored.number) picked up from the database (\(stored.entries.count) entries)")
            }
        } catch {
            logger.warning("metadata: the stored BLOB could not be read (\(error)); keeping BLOB no \(metadata.blob.map { String($0.number) } ?? "none")")
        }
    }

    private func log(_ update: MetadataUpdate, logger: Logger) {
        let blob = update.blob
        switch update.outcome {
        case .unchanged:
            logger.debug("metadata BLOB no \(blob.number) is current")
        case .installed(let previous):
            let replaced = previous.map { ", replacing no \($0)" } ?? ""
            logger.info("metadata BLOB no \(blob.number) in use (\(blob.entries.count) entries, nextUpdate \(blob.nextUpdate)\(replaced))")
            if update.flaggedCredentials > 0 {
                logger.warning("metadata BLOB no \(blob.number) gives \(update.flaggedCredentials) registered passkey(s) a refused authenticator status; see the audit log (authenticator_status_flagged)")
            }
        }
        for note in blob.notes.prefix(20) {
            logger.notice("metadata BLOB no \(blob.number): \(note)")
        }
    }
}

/// Fetches the metadata BLOB again on the configured interval, and, every few seconds in
/// between, picks up a BLOB another process stored (`latchkey mds update`, another
/// instance): an operator's urgent update reaches every instance within seconds, whatever
/// `refresh` says.
struct MetadataRefreshService: Service {
    let source: MetadataSource
    let logger: Logger
    /// How often the stored BLOB's serial number is read.
    let pollInterval: Duration

    init(source: MetadataSource, logger: Logger, pollInterval: Duration = .seconds(5)) {
        self.source = source
        self.logger = logger
        self.pollInterval = pollInterval
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: .seconds(source.settings.refresh))
                        await source.refresh(logger: logger)
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: pollInterval)
                        await source.pickUpStored(logger: logger)
                    }
                }
            }
        }
    }
}
