import AppAssociation
import Foundation
import LatchkeyServer
import Testing

/// Apps, related origins and passkey endpoints in the configuration: every document and
/// app origin is derived from them, and a bad value names the client and the key.
@Suite("Configuration: native apps and well-known documents")
struct NativeAppConfigurationTests {
    static let fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

    private func load(_ yaml: String) throws -> LatchkeyConfiguration {
        try ConfigurationLoader.load(overrides: .init(configFile: "latchkey.yaml"), environment: [:]) { _ in yaml }
    }

    private func error(_ yaml: String) -> ConfigurationError? {
        do {
            _ = try load(yaml)
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    @Test func theIssuesExampleLoadsAndDerivesOrigins() throws {
        let configuration = try load("""
            relying_party:
              id: example.com
              origins: [https://example.com]
              related_origins: [https://example.co.uk]
              passkey_endpoints: { enroll: https://example.com/passkeys/new, manage: https://login.example.com/passkeys }
            clients:
              - client_id: shiny
                ios: { team_id: abcde12345, bundle_ids: [com.example.shiny] }
                android:
                  package_name: com.example.shiny
                  sha256_cert_fingerprints: ["\(Self.fingerprint)", "\(Self.fingerprint.replacingOccurrences(of: ":", with: "").lowercased())", "\(String(repeating: "ab", count: 32))"]
            well_known: { cache_control: "public, max-age=60" }
            """)
        let client = try #require(configuration.clients.first)
        #expect(client.ios?.teamID == "ABCDE12345")
        #expect(client.ios?.appIDs == ["ABCDE12345.com.example.shiny"])
        // The same fingerprint written twice is one fingerprint.
        #expect(client.android?.fingerprints.count == 2)
        #expect(configuration.wellKnownCacheControl == "public, max-age=60")
        #expect(configuration.allowedOrigins == [
            "https://example.com",
            "android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU",
            "android:apk-key-hash:q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s",
            "https://example.co.uk",
        ])
        #expect(configuration.relyingParty.passkeyEndpoints.manage == "https://login.example.com/passkeys")
    }

    @Test func passkeyEndpointsDefaultToTheHostedPages() throws {
        let configuration = try load("server: { public_url: https://login.example.com }\nrelying_party: { id: example.com }")
        #expect(configuration.relyingParty.passkeyEndpoints == PasskeyEndpoints(enroll: "https://login.example.com/account/passkeys/new", manage: "https://login.example.com/account/passkeys"))
    }

    @Test(arguments: [
        ("clients: [{ client_id: shiny, ios: { team_id: ABC, bundle_ids: [a.b] } }]", "clients[0].ios.team_id", "client shiny"),
        ("clients: [{ client_id: shiny, ios: { team_id: ABCDE-1234, bundle_ids: [a.b] } }]", "clients[0].ios.team_id", "10 letters and digits"),
        ("clients: [{ client_id: shiny, ios: { team_id: ABCDE12345 } }]", "clients[0].ios.bundle_ids", "client shiny"),
        ("clients: [{ client_id: shiny, ios: { team_id: ABCDE12345, bundle_ids: ['com example'] } }]", "clients[0].ios.bundle_ids[0]", "bundle ID"),
        ("clients: [{ client_id: shiny, ios: { team_id: ABCDE12345, bundle_id: x } }]", "clients[0].ios.bundle_id", "known key"),
        ("clients: [{ client_id: shiny, android: { package_name: shiny, sha256_cert_fingerprints: [\(fingerprint)] } }]", "clients[0].android.package_name", "application ID"),
        ("clients: [{ client_id: shiny, android: { package_name: com.example.shiny } }]", "clients[0].android.sha256_cert_fingerprints", "client shiny"),
        ("clients: [{ client_id: shiny, android: { package_name: com.example.shiny, sha256_cert_fingerprints: ['14:6D:E9'] } }]", "clients[0].android.sha256_cert_fingerprints[0]", "3 bytes"),
        ("clients: [{ client_id: shiny, android: { package_name: com.example.shiny, sha256_cert_fingerprints: ['\(String(repeating: "AB:", count: 19))AB'] } }]", "clients[0].android.sha256_cert_fingerprints[0]", "SHA-1"),
        ("clients: [{ client_id: a, android: { package_name: com.example.x, sha256_cert_fingerprints: ['\(fingerprint)'] } }, { client_id: b, android: { package_name: com.example.x, sha256_cert_fingerprints: ['\(fingerprint)'] } }]", "clients[1].android.package_name", "already configured for client a"),
        ("clients: [{ client_id: a, ios: { team_id: ABCDE12345, bundle_ids: [a.b] } }, { client_id: b, ios: { team_id: ABCDE12345, bundle_ids: [a.b] } }]", "clients[1].ios", "already configured for client a"),
        ("relying_party: { related_origins: [http://example.co.uk] }", "relying_party.related_origins[0]", "https"),
        ("relying_party: { related_origins: [https://example.co.uk/path] }", "relying_party.related_origins[0]", "web origin"),
        ("relying_party: { id: example.com, origins: [https://example.com], passkey_endpoints: { manage: https://evil.com/x } }", "relying_party.passkey_endpoints.manage", "same site"),
        ("relying_party: { id: example.com, origins: [https://example.com], passkey_endpoints: { enroll: /relative } }", "relying_party.passkey_endpoints.enroll", "absolute"),
        ("relying_party: { id: co.uk, origins: [https://example.co.uk] }", "relying_party.id", "public suffix"),
        ("well_known: { cache_control: \"max-age=1\\r\\nSet-Cookie: x\" }", "well_known.cache_control", "Cache-Control"),
    ])
    func badValuesNameTheClientAndKey(yaml: String, key: String, words: String) {
        let failure = error(yaml)
        #expect(failure?.key == key, "\(yaml) → \(failure.map { "\($0)" } ?? "no error")")
        #expect(failure?.message.contains(words) == true, "\(failure.map { "\($0)" } ?? "no error")")
    }

    @Test func tooManyRelatedOriginLabelsIsAWarning() throws {
        let origins = ["https://a.com", "https://b.com", "https://c.com", "https://d.com", "https://e.com", "https://f.com"]
        let configuration = try load("relying_party: { related_origins: [\(origins.joined(separator: ", "))] }")
        #expect(configuration.warnings.count == 1)
        #expect(configuration.warnings.first?.contains("https://f.com") == true)
    }
}
