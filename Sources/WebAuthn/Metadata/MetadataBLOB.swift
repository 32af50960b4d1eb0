public import Foundation

/// A FIDO Metadata Service BLOB (MDS3 §3.1.6) whose signature, certificate path and dates
/// have been checked, indexed by AAGUID and by attestation certificate key identifier.
///
/// Verification is pure like the rest of the engine: the caller fetches the bytes, supplies
/// the root (the FIDO root, or its own) and the instant to judge dates at.
public struct MetadataBLOB: Sendable {
    /// `no`: the BLOB's serial number. A relying party never goes back to a lower one.
    public let number: Int
    /// `nextUpdate` as written (`YYYY-MM-DD`).
    public let nextUpdate: String
    /// The start (00:00 UTC) of the `nextUpdate` day.
    public let nextUpdateDate: Date
    /// `legalHeader`, when given.
    public let legalHeader: String?
    /// The entries that name a FIDO2 or U2F authenticator, in BLOB order.
    public let entries: [MetadataEntry]
    /// The certificate that signed the BLOB.
    public let signer: AttestationCertificate
    /// What was left out while reading entries (an unreadable root certificate, a repeated
    /// AAGUID), for the operator's log. Empty for a clean BLOB.
    public let notes: [String]

    private let byAAGUID: [AAGUID: Int]
    private let byKeyIdentifier: [String: Int]

    /// The BLOB is out of date once the whole `nextUpdate` day has passed: by then FIDO has
    /// published a newer one.
    public func isOutOfDate(at time: Date) -> Bool {
        time >= nextUpdateDate.addingTimeInterval(86_400)
    }

    /// The entry for a FIDO2 authenticator model.
    public func entry(aaguid: AAGUID) -> MetadataEntry? {
        byAAGUID[aaguid].map { entries[$0] }
    }

    /// The entry listing an attestation certificate key identifier (lower-case hex).
    public func entry(keyIdentifier: String) -> MetadataEntry? {
        byKeyIdentifier[keyIdentifier.lowercased()].map { entries[$0] }
    }

    /// The entry for an attestation: by AAGUID when the authenticator has one, else by the
    /// key identifier of a certificate in its chain (U2F authenticators have no AAGUID).
    public func entry(aaguid: AAGUID, certificates: [AttestationCertificate]) -> MetadataEntry? {
        if !aaguid.isZero { return entry(aaguid: aaguid) }
        for certificate in certificates {
            if let entry = entry(keyIdentifier: certificate.keyIdentifier) { return entry }
        }
        return nil
    }

    /// Verifies a BLOB: its JWS signature by `x5c[0]`, the path from `x5c[0]` through the
    /// rest of `x5c` to one of `roots` at `time`, and that `nextUpdate` has not passed.
    /// - Parameters:
    ///   - jwt: The BLOB as downloaded (a compact JWS).
    ///   - roots: The roots the signing chain must end at (FIDO's, or a private one).
    ///   - time: The instant certificates and `nextUpdate` are judged at.
    ///   - requireCurrent: Whether a passed `nextUpdate` fails the BLOB. Off only to reload
    ///     the last good BLOB a relying party already accepted.
    /// - Throws: ``WebAuthnError`` with code `metadata_invalid` naming the failed check.
    public static func verify(
        _ jwt: some Collection<UInt8>,
        roots: [AttestationCertificate],
        at time: Date,
        requireCurrent: Bool = true
    ) throws(WebAuthnError) -> MetadataBLOB {
        let jws = try CompactJWS(jwt) { invalid($0) }
        let certificates = try jws.certificates()
        guard let leaf = certificates.first else {
            throw invalid("the JWS header has no x5c certificates; the signer must be named by its certificate chain")
        }
        let chain = CertificateChainVerifier(anchors: roots, time: time, keyPolicy: KeyPolicy(), leafHandledExtensions: [])
        if case .untrusted(let reasons) = chain.verify(leaf: leaf, intermediates: Array(certificates.dropFirst())) {
            throw invalid("the signing certificate \(leaf) does not chain to the metadata root: " + reasons.joined(separator: "; "))
        }
        try jws.verifySignature(with: leaf)
        let payload: Payload = try jws.payload(as: "an MDS3 BLOB payload")

        let index = try Index(payload)
        let blob = MetadataBLOB(
            number: payload.no, nextUpdate: payload.nextUpdate, nextUpdateDate: index.nextUpdateDate, legalHeader: payload.legalHeader,
            entries: index.entries, signer: leaf, notes: index.notes, byAAGUID: index.byAAGUID, byKeyIdentifier: index.byKeyIdentifier
        )
        guard !requireCurrent || !blob.isOutOfDate(at: time) else {
            throw invalid("the BLOB is out of date: its nextUpdate \(payload.nextUpdate) has passed (now \(time.iso8601))")
        }
        return blob
    }

    static func invalid(_ reason: String) -> WebAuthnError {
        WebAuthnError(.metadataInvalid, "metadata BLOB: \(reason)")
    }

    /// `YYYY-MM-DD` as the start of that day in UTC.
    static func parseDay(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        // Days from civil (Howard Hinnant), as ASN1Time does, so no calendar is consulted.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days) * 86_400)
    }

    /// The payload's checks and lookups, apart from the signature that guards them.
    private struct Index {
        var nextUpdateDate: Date
        var notes: [String] = []
        var entries: [MetadataEntry] = []
        var byAAGUID: [AAGUID: Int] = [:]
        var byKeyIdentifier: [String: Int] = [:]

        init(_ payload: Payload) throws(WebAuthnError) {
            guard payload.no > 0 else { throw invalid("no is \(payload.no); a BLOB's serial number is positive") }
            guard let nextUpdateDate = parseDay(payload.nextUpdate) else {
                throw invalid("nextUpdate \"\(payload.nextUpdate.prefix(32))\" is not a YYYY-MM-DD date")
            }
            self.nextUpdateDate = nextUpdateDate
            for (index, element) in payload.entries.enumerated() {
                guard case .value(let raw) = element else {
                    if case .unreadable(let reason) = element { notes.append("entries[\(index)] cannot be read (\(reason)) and is skipped") }
                    continue
                }
                guard let entry = raw.entry(index: index, notes: &notes) else { continue }
                let position = entries.count
                if let aaguid = entry.aaguid {
                    guard byAAGUID[aaguid] == nil else {
                        notes.append("entries[\(index)] repeats AAGUID \(aaguid.uuidString); the first entry is kept")
                        continue
                    }
                    byAAGUID[aaguid] = position
                }
                for identifier in entry.attestationCertificateKeyIdentifiers where byKeyIdentifier[identifier] == nil {
                    byKeyIdentifier[identifier] = position
                }
                entries.append(entry)
            }
        }
    }

    /// Reads a payload's JSON without any signature, for the fuzzer: the parser behind
    /// ``verify(_:roots:at:requireCurrent:)`` must fail with a typed error on any input.
    @_spi(Fuzzing)
    public static func readUnsignedPayload(_ json: [UInt8]) throws(WebAuthnError) -> (number: Int, entries: [MetadataEntry], notes: [String]) {
        let payload: Payload
        do {
            payload = try JSONDecoder().decode(Payload.self, from: Data(json))
        } catch {
            throw invalid("the payload is not an MDS3 BLOB payload")
        }
        let index = try Index(payload)
        return (payload.no, index.entries, index.notes)
    }

    /// The payload members Latchkey reads (MDS3 §3.1.6 `MetadataBLOBPayload`).
    private struct Payload: Decodable {
        let legalHeader: String?
        let no: Int
        let nextUpdate: String
        let entries: [Lossy<RawEntry>]
    }

    /// One array element decoded on its own, so that one unreadable entry is noted and
    /// skipped instead of sinking the BLOB.
    private enum Lossy<Value: Decodable>: Decodable {
        case value(Value)
        case unreadable(String)

        init(from decoder: any Decoder) throws {
            do {
                self = .value(try Value(from: decoder))
            } catch let error as DecodingError {
                self = .unreadable(DecodingErrorDescription.describe(error))
            }
        }
    }

    /// An entry as written; every member optional so that one odd entry does not sink the
    /// BLOB. Entries for UAF authenticators (`aaid` only) are not WebAuthn's and are skipped.
    private struct RawEntry: Decodable {
        let aaguid: String?
        let attestationCertificateKeyIdentifiers: [String]?
        let metadataStatement: Statement?
        let statusReports: [Report]?

        struct Statement: Decodable {
            let aaguid: String?
            let description: String?
            let icon: String?
            let attestationRootCertificates: [String]?
        }

        struct Report: Decodable {
            let status: String
            let effectiveDate: String?
        }

        func entry(index: Int, notes: inout [String]) -> MetadataEntry? {
            let aaguidText = aaguid ?? metadataStatement?.aaguid
            var parsedAAGUID: AAGUID?
            if let aaguidText {
                guard let value = AAGUID(uuidString: aaguidText) else {
                    notes.append("entries[\(index)] has an unreadable aaguid \"\(aaguidText.prefix(40))\" and is skipped")
                    return nil
                }
                parsedAAGUID = value
            }
            let identifiers = (attestationCertificateKeyIdentifiers ?? []).map { $0.lowercased() }
            guard parsedAAGUID != nil || !identifiers.isEmpty else { return nil }
            var roots: [AttestationCertificate] = []
            for (rootIndex, text) in (metadataStatement?.attestationRootCertificates ?? []).enumerated() {
                guard let der = Base64URL.decode(text), let certificate = try? AttestationCertificate(derEncoded: der) else {
                    notes.append("entries[\(index)].metadataStatement.attestationRootCertificates[\(rootIndex)] is not a certificate and is ignored")
                    continue
                }
                roots.append(certificate)
            }
            return MetadataEntry(
                aaguid: parsedAAGUID,
                attestationCertificateKeyIdentifiers: identifiers,
                description: metadataStatement?.description,
                icon: metadataStatement?.icon,
                attestationRoots: roots,
                statusReports: (statusReports ?? []).map { MetadataEntry.StatusReport(status: $0.status, effectiveDate: $0.effectiveDate) }
            )
        }
    }
}
