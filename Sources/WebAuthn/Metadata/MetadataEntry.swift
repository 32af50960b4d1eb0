/// One authenticator model in a FIDO Metadata Service BLOB (MDS3 §3.1.1,
/// `MetadataBLOBPayloadEntry`): how to recognise it, which roots vouch for its attestations,
/// and what FIDO has said about it since.
public struct MetadataEntry: Sendable {
    /// The model's AAGUID, for FIDO2 authenticators.
    public let aaguid: AAGUID?
    /// Key identifiers of its attestation certificates (lower-case hex SHA-1 of the public
    /// key), for U2F authenticators, which have no AAGUID.
    public let attestationCertificateKeyIdentifiers: [String]
    /// The metadata statement's `description`: the model's name.
    public let description: String?
    /// The metadata statement's `icon`, a `data:` URL.
    public let icon: String?
    /// `attestationRootCertificates`: the roots its attestation chains must end at.
    public let attestationRoots: [AttestationCertificate]
    /// Every status report, in BLOB order.
    public let statusReports: [StatusReport]

    /// A status report (MDS3 §3.1.3).
    public struct StatusReport: Sendable, Hashable {
        /// The status, for example `FIDO_CERTIFIED_L1` or `REVOKED`.
        public let status: String
        /// The date it took effect (`YYYY-MM-DD`), when given.
        public let effectiveDate: String?

        public init(status: String, effectiveDate: String?) {
            self.status = status
            self.effectiveDate = effectiveDate
        }
    }

    public init(
        aaguid: AAGUID?,
        attestationCertificateKeyIdentifiers: [String],
        description: String?,
        icon: String?,
        attestationRoots: [AttestationCertificate],
        statusReports: [StatusReport]
    ) {
        self.aaguid = aaguid
        self.attestationCertificateKeyIdentifiers = attestationCertificateKeyIdentifiers
        self.description = description
        self.icon = icon
        self.attestationRoots = attestationRoots
        self.statusReports = statusReports
    }

    /// The report that counts: the one with the latest `effectiveDate`; among equal dates
    /// (or none), the later in the list. FIDO appends reports, but the BLOB's order is not
    /// a promise, so the date decides.
    public var latestStatus: StatusReport? {
        var latest: StatusReport?
        for report in statusReports where (report.effectiveDate ?? "") >= (latest?.effectiveDate ?? "") {
            latest = report
        }
        return latest
    }

    /// How the entry is named in results and logs: its AAGUID, else its first key identifier.
    public var identifier: String {
        if let aaguid { return "aaguid \(aaguid.uuidString)" }
        return "key \(attestationCertificateKeyIdentifiers.first ?? "?")"
    }
}

/// What a registration's authenticator matched in the metadata, stored on the credential.
public struct MetadataMatch: Sendable, Hashable {
    /// The entry, as ``MetadataEntry/identifier`` names it.
    public let entry: String
    /// The model's description.
    public let description: String?
    /// The latest status when the registration was verified.
    public let status: String?

    public init(entry: String, description: String?, status: String?) {
        self.entry = entry
        self.description = description
        self.status = status
    }

    init(_ entry: MetadataEntry) {
        self.init(entry: entry.identifier, description: entry.description, status: entry.latestStatus?.status)
    }
}
