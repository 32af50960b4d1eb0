public import Foundation
public import IdentityCore
public import WebAuthn

/// Everything `latchkey serve` runs with, validated. Built by ``ConfigurationLoader`` from
/// defaults, a YAML file, `LATCHKEY_*` environment variables and command-line flags, in
/// that order of increasing precedence.
public struct LatchkeyConfiguration: Sendable {
    /// Where the server listens and how it is reached.
    public struct Server: Sendable, Equatable {
        /// The address to bind.
        public var host: String
        /// The port to bind; 0 picks a free one.
        public var port: Int
        /// The URL clients use to reach the server, without a trailing slash. It names the
        /// token issuer and the My Account audience.
        public var publicURL: String
    }

    /// Where data is stored.
    public enum Database: Sendable, Equatable, CustomStringConvertible {
        /// A SQLite file.
        case sqlite(path: String)

        public var description: String {
            switch self {
            case .sqlite(let path): return "sqlite:\(path)"
            }
        }
    }

    /// The WebAuthn relying party.
    public struct RelyingParty: Sendable, Equatable {
        /// The RP ID passkeys are scoped to.
        public var id: String
        /// The display name.
        public var name: String
        /// The origins ceremonies may come from: web origins and
        /// `android:apk-key-hash:` origins.
        public var origins: [String]
    }

    /// A registered application.
    public struct Client: Sendable, Equatable {
        public var id: String
        public var name: String
        public var secret: String?
        public var grantTypes: [GrantType]
    }

    /// Token lifetimes and API audiences.
    public struct Tokens: Sendable, Equatable {
        public var accessTokenLifetime: TimeInterval
        public var idTokenLifetime: TimeInterval
        public var refreshTokenLifetime: TimeInterval
        /// The relying party's own APIs that clients may request tokens for.
        public var audiences: [String]
    }

    /// Passkey ceremonies and verification policy.
    public struct Passkeys: Sendable {
        public var ceremonyLifetime: TimeInterval
        public var userVerification: UserVerificationRequirement
        public var signCountPolicy: SignCountPolicy
        public var signupIdentifiers: [ProfileValidation.IdentifierKind]
        public var attestationRequirement: AttestationRequirement
        /// PEM files of trust anchors, per attestation format.
        public var trustAnchorFiles: [AttestationFormat: [String]]
        /// Whether RS1 from legacy TPMs is accepted.
        public var allowsLegacyRS1: Bool
    }

    public var server: Server
    public var database: Database
    public var relyingParty: RelyingParty
    public var clients: [Client]
    public var tokens: Tokens
    public var passkeys: Passkeys
    /// The largest request body accepted, in bytes.
    public var maximumBodyBytes: Int
    /// The log level: trace, debug, info, notice, warning, error or critical.
    public var logLevel: String
    /// A replacement for the bundled passkey provider names (AAGUID → name) file.
    public var authenticatorNamesFile: String?
    /// Where the configuration came from, for the start-up log.
    public var sources: [String]
}
