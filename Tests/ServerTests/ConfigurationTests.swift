import Foundation
import IdentityCore
import LatchkeyServer
import Mail
import Testing
import WebAuthn

/// Loading configuration: defaults, file, environment and flags, and a clear error naming
/// the key for every bad value.
@Suite("Configuration")
struct ConfigurationTests {
    private func load(_ yaml: String? = nil, environment: [String: String] = [:], overrides: ConfigurationOverrides = .init()) throws -> LatchkeyConfiguration {
        var overrides = overrides
        if yaml != nil { overrides.configFile = "latchkey.yaml" }
        return try ConfigurationLoader.load(overrides: overrides, environment: environment) { _ in yaml ?? "" }
    }

    private func error(_ yaml: String? = nil, environment: [String: String] = [:], overrides: ConfigurationOverrides = .init()) -> ConfigurationError? {
        do {
            _ = try load(yaml, environment: environment, overrides: overrides)
            return nil
        } catch let error as ConfigurationError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    /// The README's "every key, with its default" file loads as written, and says what the
    /// defaults are.
    @Test func theREADMEsConfigurationLoads() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/configuration.md").standardizedFileURL
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: "## Configuration file"))
        let start = try #require(text.range(of: "```yaml\n", range: section.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let configuration = try load(String(text[start.upperBound..<end.lowerBound]))
        let defaults = try load()
        #expect(configuration.server.idleTimeout == defaults.server.idleTimeout)
        #expect(configuration.server.maximumConnections == defaults.server.maximumConnections)
        #expect(configuration.server.maximumConnectionsPerAddress == defaults.server.maximumConnectionsPerAddress)
        #expect(configuration.passkeys.ceremonyLifetime == defaults.passkeys.ceremonyLifetime)
        #expect(configuration.maximumBodyBytes == defaults.maximumBodyBytes)
    }

    @Test func defaultsNeedNoConfiguration() throws {
        let configuration = try load()
        #expect(configuration.server.host == "127.0.0.1")
        #expect(configuration.server.port == 8080)
        #expect(configuration.server.publicURL == "http://localhost:8080")
        #expect(configuration.database == .sqlite(path: "latchkey.sqlite"))
        #expect(configuration.relyingParty.id == "localhost")
        #expect(configuration.relyingParty.origins == ["http://localhost:8080"])
        #expect(configuration.clients.map(\.id) == ["demo"])
        #expect(configuration.clients.first?.secret == nil)
        #expect(configuration.sources == ["built-in defaults"])
    }

    @Test func theDocumentedFileLoads() throws {
        let configuration = try load("""
            server: { host: 127.0.0.1, port: 8080, public_url: http://localhost:8080 }
            database: sqlite:latchkey.sqlite
            relying_party: { id: localhost, name: Latchkey, origins: [http://localhost:8080] }
            clients:
              - client_id: demo
                name: Demo app
                client_secret: optional-for-confidential-clients
                grant_types: [webauthn, refresh_token]
            tokens: { access_token_lifetime: 15m, refresh_token_lifetime: 30d, audiences: [https://api.example.com, { identifier: https://rsa.example.com, signing_alg: RS256 }] }
            passkeys: { ceremony_lifetime: 2m, user_verification: required, sign_count_policy: flag }
            """)
        #expect(configuration.clients.first?.secret == "optional-for-confidential-clients")
        #expect(configuration.clients.first?.grantTypes == [.webauthn, .refreshToken])
        #expect(configuration.tokens.accessTokenLifetime == 900)
        #expect(configuration.tokens.refreshTokenLifetime == 30 * 86400)
        #expect(configuration.tokens.audiences == ["https://api.example.com", "https://rsa.example.com"])
        #expect(configuration.tokens.accessTokenAlgorithms == ["https://rsa.example.com": .rs256])
        #expect(configuration.passkeys.ceremonyLifetime == 120)
        #expect(configuration.passkeys.userVerification == .required)
        #expect(configuration.passkeys.signCountPolicy == .acceptAndFlag)
    }

    @Test func flagsOverrideEnvironmentWhichOverridesTheFile() throws {
        let yaml = "server: { port: 9000 }\nrelying_party: { id: example.com, origins: [https://example.com] }"
        let environment = ["LATCHKEY_PORT": "9100", "LATCHKEY_RP_ID": "login.example.com", "LATCHKEY_ORIGINS": "https://login.example.com, https://app.login.example.com"]
        let fromEnvironment = try load(yaml, environment: environment)
        #expect(fromEnvironment.server.port == 9100)
        #expect(fromEnvironment.relyingParty.id == "login.example.com")
        #expect(fromEnvironment.relyingParty.origins == ["https://login.example.com", "https://app.login.example.com"])

        let fromFlags = try load(yaml, environment: environment, overrides: .init(port: 9200, origins: ["https://login.example.com"]))
        #expect(fromFlags.server.port == 9200)
        #expect(fromFlags.relyingParty.origins == ["https://login.example.com"])
    }

    @Test(arguments: [
        ("server: { port: 70000 }", "server.port"),
        ("server: { prot: 8080 }", "server.prot"),
        ("colour: blue", "colour"),
        ("server: { public_url: 'ftp://x' }", "server.public_url"),
        ("database: mysql://x", "database"),
        ("database: 'postgres://localhost/latchkey'", "database"),
        ("database: 'postgres://u:hunter2@localhost/db?sslmode=sometimes'", "database"),
        ("database: 'postgres://u:hunter2@localhost/db?pool_size=0'", "database"),
        ("database: 'postgres://u:hunter2@localhost/db?statement_timeout=5'", "database"),
        ("database: 'postgres://u:hunter2@localhost/db?application=x'", "database"),
        ("database: 'postgres://u:hunter2@localhost/db?sslrootcert=ca.pem'", "database"),
        ("database: 'postgres://u:hunter2@localhost'", "database"),
        ("relying_party: { id: 'https://example.com' }", "relying_party.id"),
        ("relying_party: { id: example.com, origins: [https://evil.com] }", "relying_party.origins[0]"),
        ("relying_party: { id: example.com, origins: [https://example.com, 'http://example.com'] }", "relying_party.origins[1]"),
        ("relying_party: { origins: ['android:apk-key-hash:short'] }", "relying_party.origins[0]"),
        ("clients: [{ name: x }]", "clients[0].client_id"),
        ("clients: [{ client_id: a }, { client_id: a }]", "clients[1].client_id"),
        ("clients: [{ client_id: a, grant_types: [client_credentials] }]", "clients[0].grant_types[0]"),
        ("clients: [{ client_id: a, client_secret: short }]", "clients[0].client_secret"),
        ("tokens: { access_token_lifetime: -5 }", "tokens.access_token_lifetime"),
        ("passkeys: { user_verification: always }", "passkeys.user_verification"),
        ("passkeys: { sign_count_policy: ignore }", "passkeys.sign_count_policy"),
        ("passkeys: { attestation: { trust_anchors: { fido-u3f: [x.pem] } } }", "passkeys.attestation.trust_anchors.fido-u3f"),
        ("limits: { max_body_bytes: 10 }", "limits.max_body_bytes"),
        ("logging: { level: loud }", "logging.level"),
        ("server: [1, 2]", "server"),
        ("faces: { kratos: { flow_lifespan: 10s } }", "faces.kratos.flow_lifespan"),
        ("faces: { kratos: { flow_lifespan: 2d } }", "faces.kratos.flow_lifespan"),
        ("faces: { kratos: { session_lifespan: 1s } }", "faces.kratos.session_lifespan"),
        ("faces: { kratos: { enabled: maybe } }", "faces.kratos.enabled"),
        ("faces: { kratos: { flow_lifetime: 1h } }", "faces.kratos.flow_lifetime"),
        ("faces: { idaas: { admin_applications: [{ application_id: a, shared_secret: short }] } }", "faces.idaas.admin_applications[0].shared_secret"),
        ("faces: { idaas: { admin_applications: [{ name: A, shared_secret: long enough secret }] } }", "faces.idaas.admin_applications[0].application_id"),
        ("faces: { idaas: { admin_applications: [{ application_id: a b, shared_secret: long enough secret }] } }", "faces.idaas.admin_applications[0].application_id"),
        ("faces: { idaas: { admin_applications: [{ application_id: a, shared_secret: long enough secret }, { application_id: a, shared_secret: long enough secret }] } }", "faces.idaas.admin_applications[1].application_id"),
        ("faces: { idaas: { admin_applications: [{ application_id: a, secret: long enough secret }] } }", "faces.idaas.admin_applications[0].secret"),
        ("faces: { idaas: { admin_token_lifespan: 2d } }", "faces.idaas.admin_token_lifespan"),
        ("faces: { idaas: { session_lifespan: 10s } }", "faces.idaas.session_lifespan"),
        ("faces: { idaas: { enabled: perhaps } }", "faces.idaas.enabled"),
        ("faces: { keycloak: {} }", "faces.keycloak"),
        ("server: {", "latchkey.yaml"),
        ("email: { smtp_url: 'http://mail.example.com', from: a@example.com }", "email.smtp_url"),
        ("email: { smtp_url: 'smtp://u:hunter2@mail.example.com:99999', from: a@example.com }", "email.smtp_url"),
        ("email: { smtp_url: 'smtp://u@mail.example.com', from: a@example.com }", "email.smtp_url"),
        ("email: { smtp_url: 'smtp://u:hunter2@mail.example.com' }", "email.from"),
        ("email: { smtp_url: 'smtp://u:hunter2@mail.example.com', from: 'not an address' }", "email.from"),
        ("email: { smtp_url: 'smtp://u:hunter2@mail.example.com', from: \"Eve <a@example.com>\\r\\nBcc: b@example.com\" }", "email.from"),
        ("email: { smtp_url: 'smtp://u:hunter2@mail.example.com', from: a@example.com, starttls: never }", "email.starttls"),
        ("email: { smtp_url: 'smtps://u:hunter2@mail.example.com', from: a@example.com, starttls: required }", "email.smtp_url"),
        ("email: { starttls: required }", "email.starttls"),
        ("email: { smtp_url: 'smtp://u:hunter2@mail.example.com', from: a@example.com, timeout: 0s }", "email.timeout"),
        ("email: { templates: /nonexistent/templates }", "email.templates"),
        ("email: { smtp_url: 'smtp://u:hunter2@mail.example.com', from: a@example.com, ca_file: /nonexistent/ca.pem }", "email.ca_file"),
        ("email: { smpt_url: x }", "email.smpt_url"),
        ("verification: { code_lifetime: 10s }", "verification.code_lifetime"),
        ("verification: { code_digits: 4 }", "verification.code_digits"),
        ("verification: { max_attempts: 0 }", "verification.max_attempts"),
        ("verification: { on_signup: sometimes }", "verification.on_signup"),
        ("verification: { resend_cooldown: 0s }", "verification.resend_cooldown"),
        ("verification: { mails_per_hour: 0 }", "verification.mails_per_hour"),
        ("clients: [{ client_id: a, id_token_signed_response_alg: HS256 }]", "clients[0].id_token_signed_response_alg"),
        ("clients: [{ client_id: a, backchannel_logout_uri: \"https://app.example/logout#x\" }]", "clients[0].backchannel_logout_uri"),
        ("clients: [{ client_id: a, backchannel_logout_uri: /logout }]", "clients[0].backchannel_logout_uri"),
        ("tokens: { audiences: [{ identifier: https://api.example, signing_alg: HS256 }] }", "tokens.audiences[0].signing_alg"),
        ("tokens: { audiences: [{ identifier: https://api.example, alg: RS256 }] }", "tokens.audiences[0].alg"),
        ("clients: [{ client_id: a, backchannel_logout_uri: \"ftp://app.example/logout\" }]", "clients[0].backchannel_logout_uri"),
        ("passkeys: { accept: synced_only }", "passkeys.accept"),
        ("passkeys: { hints: [usb] }", "passkeys.hints[0]"),
        ("clients: [{ client_id: a, passkeys: { accept: bound } }]", "clients[0].passkeys.accept"),
        ("clients: [{ client_id: a, passkeys: { algorithms: [ES256, HS256] } }]", "clients[0].passkeys.algorithms[1]"),
        ("clients: [{ client_id: a, passkeys: { resident_key: always } }]", "clients[0].passkeys.resident_key"),
        ("clients: [{ client_id: a, passkeys: { aaguids_allowed: [not-a-uuid] } }]", "clients[0].passkeys.aaguids_allowed[0]"),
        ("clients: [{ client_id: a, passkeys: { attestation_formats: [jwt] } }]", "clients[0].passkeys.attestation_formats[0]"),
        ("clients: [{ client_id: a, passkeys: { require_device_bound: true } }]", "clients[0].passkeys.require_device_bound"),
        ("branding: { primary_color: blue }", "branding.primary_color"),
        ("branding: { accent_color: '#12345' }", "branding.accent_color"),
        ("branding: { theme: sepia }", "branding.theme"),
        ("branding: { default_language: tlh }", "branding.default_language"),
        ("branding: { default_language: zh-TW }", "branding.default_language"),
        ("branding: { strings_dir: /nonexistent/strings }", "branding.strings_dir"),
        ("branding: { logo: 'https://elsewhere.example/logo.png' }", "branding.logo"),
        ("branding: { logo: /nonexistent/logo.png }", "branding.logo"),
        ("branding: { favicon: /etc/hostname }", "branding.favicon"),
        ("branding: { support_url: 'ftp://help.example' }", "branding.support_url"),
        ("branding: { support_email: 'not an address' }", "branding.support_email"),
        ("branding: { name: '' }", "branding.name"),
        ("branding: { colour: '#2952cc' }", "branding.colour"),
    ])
    func badValuesNameTheirKey(yaml: String, key: String) {
        let failure = error(yaml)
        #expect(failure?.key == key, "\(yaml) → \(failure.map { "\($0)" } ?? "no error")")
        #expect(failure?.message.isEmpty == false)
        #expect(failure.map { !"\($0)".contains("hunter2") } ?? true, "a database password is never repeated: \(String(describing: failure))")
    }

    @Test func emailIsReadWithItsPasswordFromTheEnvironment() throws {
        #expect(try load().email.smtp == nil, "no relay by default: the development mailer")
        let configuration = try load(
            "email: { smtp_url: 'smtp://mailer@mail.example.com', from: 'Example <no-reply@example.com>', reply_to: help@example.com, timeout: 20s }\n"
                + "verification: { code_lifetime: 10m, on_signup: false, code_digits: 8 }",
            environment: ["LATCHKEY_SMTP_PASSWORD": "from-the-environment"]
        )
        let smtp = try #require(configuration.email.smtp)
        #expect(smtp.host == "mail.example.com" && smtp.port == 587 && smtp.security == .required && smtp.timeout == .seconds(20))
        #expect(smtp.username == "mailer" && smtp.password == "from-the-environment")
        #expect(configuration.email.from.name == "Example" && configuration.email.from.address == "no-reply@example.com")
        #expect(configuration.email.replyTo?.address == "help@example.com")
        #expect(configuration.verification.codeLifetime == 600 && !configuration.verification.onSignup && configuration.verification.codeDigits == 8)
    }

    @Test func aPostgreSQLURLIsReadWithItsParameters() throws {
        let configuration = try load("database: 'postgres://app:p%40ss@db.internal:6543/identity?sslmode=verify-full&pool_size=4&statement_timeout=2500&connect_timeout=3'")
        guard case .postgres(let settings) = configuration.database else {
            Issue.record("expected PostgreSQL, got \(configuration.database)")
            return
        }
        #expect(settings.host == "db.internal" && settings.port == 6543 && settings.database == "identity")
        #expect(settings.username == "app" && settings.password == "p@ss")
        #expect(settings.tls == .verifyFull && settings.poolSize == 4 && settings.statementTimeout == 2500 && settings.connectTimeout == 3)
        #expect("\(configuration.database)" == "postgres://app@db.internal:6543/identity", "described without the password")
    }

    @Test func theKratosFaceIsOnByDefaultAndConfigurable() throws {
        let defaults = try load()
        #expect(defaults.faces.kratos.enabled)
        #expect(defaults.faces.kratos.flowLifespan == 3600)
        #expect(defaults.faces.kratos.sessionLifespan == 86400)
        let configured = try load("faces: { kratos: { enabled: false, flow_lifespan: 10m, session_lifespan: 12h } }")
        #expect(configured.faces.kratos.enabled == false)
        #expect(configured.faces.kratos.flowLifespan == 600)
        #expect(configured.faces.kratos.sessionLifespan == 43200)
    }

    @Test func theIDaaSFaceIsOnByDefaultAndConfigurable() throws {
        let defaults = try load()
        #expect(defaults.faces.idaas.enabled)
        #expect(defaults.faces.idaas.adminApplications.isEmpty)
        #expect(defaults.faces.idaas.adminTokenLifespan == 3600)
        #expect(defaults.faces.idaas.sessionLifespan == 900)
        let configured = try load("""
            faces:
              idaas:
                enabled: false
                admin_token_lifespan: 10m
                session_lifespan: 1h
                admin_applications:
                  - { application_id: 7c1e5a2b, name: Backend, shared_secret: a long enough secret }
            """)
        #expect(configured.faces.idaas.enabled == false)
        #expect(configured.faces.idaas.adminTokenLifespan == 600)
        #expect(configured.faces.idaas.sessionLifespan == 3600)
        #expect(configured.faces.idaas.adminApplications == [.init(id: "7c1e5a2b", name: "Backend", sharedSecret: "a long enough secret")])
    }

    /// One run reports every mistake, each under the name it was given: the flag, the
    /// variable or the key.
    @Test func everyProblemIsReportedAtOnce() throws {
        let yaml = """
            server: { idle_timeout: 0s, colour: blue }
            passkeys: { user_verification: always, attestation: { requirement: maybe } }
            tokens: { access_token_lifetime: forever }
            logging: { level: loud }
            faces: { kratos: { flow_lifespan: 1s } }
            unknown_section: 1
            """
        let failure = try #require(error(yaml, environment: ["LATCHKEY_RP_ID": "-bad-"], overrides: .init(port: 70000)))
        let keys = failure.problems.map(\.key)
        for key in ["unknown_section", "server.colour", "server.idle_timeout", "--port", "LATCHKEY_RP_ID", "passkeys.user_verification", "tokens.access_token_lifetime", "logging.level", "faces.kratos.flow_lifespan"] {
            #expect(keys.contains(key), "\(key) missing from \(failure)")
        }
        #expect(failure.description.hasPrefix("\(failure.problems.count) problems:\n"))
        #expect(failure.key == failure.problems[0].key)
        // A bad RP ID does not also blame every origin.
        #expect(!keys.contains { $0.hasPrefix("relying_party.origins") })

        #expect(error(overrides: .init(publicURL: "ftp://x"))?.key == "--public-url")
        #expect(error(environment: ["LATCHKEY_DATABASE": "mysql://user:secret@db/x"])?.key == "LATCHKEY_DATABASE")
        #expect(error(environment: ["LATCHKEY_DATABASE": "mysql://user:secret@db/x"])?.message.contains("secret") == false)
        #expect(error(overrides: .init(host: ""))?.key == "--host")
    }

    @Test func badEnvironmentValuesNameTheirVariable() {
        #expect(error(environment: ["LATCHKEY_PORT": "eighty"])?.key == "LATCHKEY_PORT")
        #expect(error(environment: ["LATCHKEY_RP_ID": "example.com"])?.key == "relying_party.origins[0]")
    }

    @Test func androidOriginsAreAccepted() throws {
        let origin = "android:apk-key-hash:" + Base64URL.encode([UInt8](repeating: 7, count: 32))
        let configuration = try load("relying_party: { id: localhost, origins: [http://localhost:8080, '\(origin)'] }")
        #expect(configuration.relyingParty.origins.last == origin)
    }

    @Test func redirectURIsAndHostedPages() throws {
        let configuration = try load("""
            clients:
              - client_id: web
                redirect_uris: [https://app.example.com/callback, http://127.0.0.1:5173/cb, com.example.app:/oauth]
            hosted_pages: { session_lifetime: 1d }
            """)
        let web = try #require(configuration.clients.first)
        #expect(web.grantTypes == [.authorizationCode, .webauthn, .refreshToken], "redirect URIs imply the code grant")
        #expect(web.redirectURIs.count == 3)
        #expect(configuration.hostedPages.sessionLifetime == 86400)
        #expect(configuration.corsOrigins.contains("https://app.example.com"))
        #expect(configuration.corsOrigins.contains("http://127.0.0.1:5173"))
        #expect(try load().hostedPages.sessionLifetime == 7 * 86400)

        for (yaml, key) in [
            ("clients: [{ client_id: w, redirect_uris: [http://app.example.com/cb] }]", "clients[0].redirect_uris[0]"),
            ("clients: [{ client_id: w, redirect_uris: [https://app.example.com/cb#x] }]", "clients[0].redirect_uris[0]"),
            ("clients: [{ client_id: w, redirect_uris: [myapp:/cb] }]", "clients[0].redirect_uris[0]"),
            ("clients: [{ client_id: w, redirect_uris: [/cb] }]", "clients[0].redirect_uris[0]"),
            ("clients: [{ client_id: w, redirect_uris: [https://a.example/cb, https://a.example/cb] }]", "clients[0].redirect_uris[1]"),
            ("clients: [{ client_id: w, grant_types: [authorization_code] }]", "clients[0].redirect_uris"),
            ("hosted_pages: { session_lifetime: 5s }", "hosted_pages.session_lifetime"),
            ("hosted_pages: { lifetime: 5m }", "hosted_pages.lifetime"),
            ("hosted_pages: { default_region: UK }", "hosted_pages.default_region"),
            ("metrics: { port: 99999 }", "metrics.port"),
            ("clients: [{ client_id: w, allowed_scopes: [openid, admin] }]", "clients[0].allowed_scopes[1]"),
            ("logging: { format: xml }", "logging.format"),
        ] {
            #expect(error(yaml)?.key == key, "\(yaml)")
        }
    }

    /// The keys the rules-every-face work added: IPv6 prefixes, SQLite's durability, the
    /// key-encryption key from a file or a variable; each refused with its key named, never
    /// repeating a key.
    @Test func prefixesDurabilityAndTheKeyEncryptionKey() throws {
        #expect(try load().rateLimits.ipv6PrefixLength == 64)
        #expect(try load("limits: { ipv6_prefix_length: 48 }").rateLimits.ipv6PrefixLength == 48)
        for bad in [0, 129] {
            #expect(error("limits: { ipv6_prefix_length: \(bad) }")?.key == "limits.ipv6_prefix_length")
        }

        #expect(try load(environment: ["LATCHKEY_DATABASE": "sqlite:a.sqlite?synchronous=full"]).database == .sqlite(path: "a.sqlite", durability: .full))
        #expect(try load(environment: ["LATCHKEY_DATABASE": "sqlite:a.sqlite?synchronous=normal"]).database == .sqlite(path: "a.sqlite"))
        #expect(try load(environment: ["LATCHKEY_DATABASE": "sqlite:a.sqlite?synchronous=full"]).database.description == "sqlite:a.sqlite?synchronous=full")
        #expect(error(environment: ["LATCHKEY_DATABASE": "sqlite:a.sqlite?synchronous=off"])?.message.contains("normal or full") == true)
        #expect(error(environment: ["LATCHKEY_DATABASE": "sqlite:a.sqlite?journal=delete"])?.key == "LATCHKEY_DATABASE")

        #expect(try load().secrets.keyEncryption == nil)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-kek-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        try key.write(to: directory.appendingPathComponent("kek"), atomically: true, encoding: .utf8)
        // Readable by others: refused, as ssh refuses such a key.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory.appendingPathComponent("kek").path)
        let open = error("secrets: { key_encryption_key_file: \(directory.appendingPathComponent("kek").path) }")
        #expect(open?.key == "secrets.key_encryption_key_file" && open?.message.contains("chmod 600") == true && open?.message.contains(key) == false, "\(String(describing: open))")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.appendingPathComponent("kek").path)
        let fromFile = try load("secrets: { key_encryption_key_file: \(directory.appendingPathComponent("kek").path) }").secrets
        #expect(fromFile.keyEncryption?.keyID == KeyEncryption(key: (0..<32).map { UInt8($0) })?.keyID)
        #expect(fromFile.source == "secrets.key_encryption_key_file")
        let fromVariable = try load(environment: ["LATCHKEY_KEY_ENCRYPTION_KEY": key]).secrets
        #expect(fromVariable.keyEncryption?.keyID == fromFile.keyEncryption?.keyID && fromVariable.source == "LATCHKEY_KEY_ENCRYPTION_KEY")
        let missing = error("secrets: { key_encryption_key_file: \(directory.appendingPathComponent("absent").path) }")
        #expect(missing?.key == "secrets.key_encryption_key_file" && missing?.message.contains("cannot read") == true)
        try "not a key".write(to: directory.appendingPathComponent("bad"), atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.appendingPathComponent("bad").path)
        #expect(error("secrets: { key_encryption_key_file: \(directory.appendingPathComponent("bad").path) }")?.message.contains("32 bytes") == true)
        let badVariable = error(environment: ["LATCHKEY_KEY_ENCRYPTION_KEY": "short-secret-value"])
        #expect(badVariable?.key == "LATCHKEY_KEY_ENCRYPTION_KEY" && badVariable?.message.contains("short-secret-value") == false)
        #expect(error("secrets: { key_file: x }")?.key == "secrets.key_file")
    }
}
