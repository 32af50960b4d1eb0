import Mail
import AppAssociation
import HostedUI
public import Foundation
import Localization
import StoragePostgres
import StorageSQLite
public import IdentityCore
import WebAuthn

/// Values given on the command line; each overrides the same value from the environment
/// and the configuration file.
public struct ConfigurationOverrides: Sendable {
    public var configFile: String?
    public var host: String?
    public var port: Int?
    public var database: String?
    public var relyingPartyID: String?
    public var origins: [String]
    public var publicURL: String?

    /// Creates overrides.
    public init(configFile: String? = nil, host: String? = nil, port: Int? = nil, database: String? = nil, relyingPartyID: String? = nil, origins: [String] = [], publicURL: String? = nil) {
        self.configFile = configFile
        self.host = host
        self.port = port
        self.database = database
        self.relyingPartyID = relyingPartyID
        self.origins = origins
        self.publicURL = publicURL
    }
}

/// Builds a ``LatchkeyConfiguration`` from defaults, a YAML file, the environment and
/// flags, and validates every value. Every failure names the key it is about.
public enum ConfigurationLoader {
    /// Every top-level key of the configuration file.
    static let topLevelKeys = [
        "server", "database", "relying_party", "clients", "tokens", "passkeys", "limits", "logging", "metrics", "audit", "authenticator_names", "well_known",
        "hosted_pages", "faces", "secrets", "email", "verification", "admin", "webhooks", "branding", "telemetry",
    ]

    /// Loads the configuration: reads the file, then parses each section on its own (each in
    /// a function of its own that names every key at fault), so that one run reports every
    /// problem; then composes them.
    /// - Parameters:
    ///   - overrides: Command-line values.
    ///   - environment: The process environment (`LATCHKEY_*` variables are read).
    ///   - readFile: Reads a file; injected for tests.
    public static func load(
        overrides: ConfigurationOverrides,
        environment: [String: String],
        readFile: (String) throws -> String = { try String(contentsOfFile: $0, encoding: .utf8) }
    ) throws(ConfigurationError) -> LatchkeyConfiguration {
        let env = Environment(values: environment)
        let (yaml, file) = try readYAML(overrides: overrides, environment: env, readFile: readFile)
        let input = Input(yaml: yaml, environment: env, overrides: overrides)
        var collector = ProblemCollector()
        _ = collector.read { () throws(ConfigurationError) in try yaml.requireKeys(topLevelKeys) }
        var warnings: [String] = []

        let server = collector.read { () throws(ConfigurationError) in try parseServer(input) }
        let database = collector.read { () throws(ConfigurationError) in try parseDatabaseSetting(input) }
        let relyingParty = collector.read { () throws(ConfigurationError) in try parseRelyingParty(input, publicURL: server?.publicURL, warnings: &warnings) }
        let clients = collector.read { () throws(ConfigurationError) in try parseClients(yaml.child("clients")) }
        let tokens = collector.read { () throws(ConfigurationError) in try parseTokens(yaml.child("tokens")) }
        let passkeys = collector.read { () throws(ConfigurationError) in try parsePasskeys(yaml.child("passkeys")) }
        let limits = collector.read { () throws(ConfigurationError) in try parseLimits(yaml.child("limits")) }
        let wellKnownCacheControl = collector.read { () throws(ConfigurationError) in try parseWellKnown(yaml.child("well_known")) }
        let logging = collector.read { () throws(ConfigurationError) in try parseLogging(yaml.child("logging"), environment: env) }
        let metrics = collector.read { () throws(ConfigurationError) in try parseMetrics(yaml.child("metrics")) }
        let auditRetention = collector.read { () throws(ConfigurationError) in try parseAudit(yaml.child("audit")) }
        let authenticatorNamesFile = collector.read { () throws(ConfigurationError) in try yaml.child("authenticator_names").string() }
        let hostedPages = collector.read { () throws(ConfigurationError) in try parseHostedPages(yaml.child("hosted_pages")) }
        let faces = collector.read { () throws(ConfigurationError) in try parseFaces(yaml.child("faces")) }
        let secrets = collector.read { () throws(ConfigurationError) in try parseSecrets(yaml.child("secrets"), variable: env["LATCHKEY_KEY_ENCRYPTION_KEY"]) }
        let email = collector.read { () throws(ConfigurationError) in
            try parseEmail(yaml.child("email"), password: env["LATCHKEY_SMTP_PASSWORD"])
        }
        let verification = collector.read { () throws(ConfigurationError) in try parseVerification(yaml.child("verification")) }
        let admin = collector.read { () throws(ConfigurationError) in try parseAdmin(yaml.child("admin")) }
        let webhooks = collector.read { () throws(ConfigurationError) in try parseWebhooks(yaml.child("webhooks")) }
        let telemetry = collector.read { () throws(ConfigurationError) in try parseTelemetry(yaml.child("telemetry"), environment: env) }
        let brandingAndWords = collector.read { () throws(ConfigurationError) in
            try parseBranding(yaml.child("branding"), publicURL: server?.publicURL, readFile: readFile)
        }
        try collector.throwIfAny()

        // Every part that failed recorded a problem, so after the check above each is here.
        guard let server, let database, let relyingParty, let clients, let tokens, let passkeys, let limits, let wellKnownCacheControl, let logging,
            let metrics, let auditRetention, let authenticatorNamesFile, let hostedPages, let faces, let secrets, let email, let verification, let admin, let webhooks,
            let (branding, catalog, stringWarnings) = brandingAndWords
        else {
            throw ConfigurationError(key: "configuration", "could not be read")  // unreachable: every nil recorded a problem
        }
        var configuration = LatchkeyConfiguration(
            server: server,
            database: database.value,
            relyingParty: relyingParty,
            clients: clients,
            tokens: tokens,
            passkeys: passkeys,
            maximumBodyBytes: limits.maximumBodyBytes,
            rateLimits: limits.rates,
            wellKnownCacheControl: wellKnownCacheControl,
            logLevel: logging.level,
            logging: logging,
            auditRetention: auditRetention,
            metrics: metrics,
            authenticatorNamesFile: authenticatorNamesFile,
            hostedPages: hostedPages,
            faces: faces,
            sources: sources(file: file, environment: env, overrides: overrides),
            warnings: warnings + branding.contrastWarnings + stringWarnings,
            databaseSource: database.source,
            secrets: secrets
        )
        configuration.email = email
        configuration.verification = verification
        configuration.admin = admin
        configuration.webhooks = webhooks
        configuration.telemetry = telemetry ?? nil
        configuration.branding = branding
        configuration.strings = catalog
        return configuration
    }

    /// `branding`: every key checked here, images, the stylesheet and the operator's strings
    /// read now, so that a missing file stops the start rather than a page.
    /// - Returns: The brand, the words of the pages and emails, and warnings about strings
    ///   no page uses.
    private static func parseBranding(
        _ node: YAMLReader, publicURL: String?, readFile: (String) throws -> String
    ) throws(ConfigurationError) -> (Branding, StringCatalog, [String]) {
        var branding = Branding()
        guard node.isPresent else { return (branding, .shared, []) }
        try node.requireKeys([
            "name", "logo", "favicon", "primary_color", "accent_color", "theme", "support_url", "support_email", "terms_url", "privacy_url", "stylesheet",
            "default_language", "strings_dir",
        ])
        var catalog = StringCatalog.shared, stringWarnings: [String] = []
        if let directory = try node.child("strings_dir").string() {
            do {
                (catalog, stringWarnings) = try StringCatalog.shared.overlaid(with: directory)
            } catch {
                throw node.child("strings_dir").error("\(error)")
            }
        }
        if let tag = try node.child("default_language").string() {
            guard let language = Language.matching(tag, among: catalog.languages), language.tag.lowercased() == tag.lowercased() || tag.count == 2 else {
                throw node.child("default_language").error(
                    "must be one of \(catalog.languages.map(\.tag).joined(separator: ", ")) (or a language strings_dir adds), found \"\(tag.prefix(20))\""
                )
            }
            branding.defaultLanguage = language
        }
        if let name = try node.child("name").string() {
            guard (1...100).contains(name.count), !name.contains(where: \.isNewline) else { throw node.child("name").error("must be 1 to 100 characters on one line") }
            branding.name = name
        }
        let origin = publicURL.map { originOf($0).lowercased() }
        branding.logo = try brandImage(node.child("logo"), origin: origin)
        branding.favicon = try brandImage(node.child("favicon"), origin: origin)
        for (key, keyPath) in [("primary_color", \Branding.primaryColor), ("accent_color", \Branding.accentColor)] {
            guard let text = try node.child(key).string() else { continue }
            guard let colour = BrandColor(text) else { throw node.child(key).error("must be a colour written #rrggbb, such as #2952cc, found \"\(text.prefix(20))\"") }
            branding[keyPath: keyPath] = colour
        }
        if let text = try node.child("theme").string() {
            guard let theme = Branding.Theme(rawValue: text) else { throw node.child("theme").error("must be auto, light or dark, found \"\(text.prefix(20))\"") }
            branding.theme = theme
        }
        for (key, keyPath) in [("support_url", \Branding.supportURL), ("terms_url", \Branding.termsURL), ("privacy_url", \Branding.privacyURL)] {
            guard let text = try node.child(key).string() else { continue }
            guard postableURL(text) != nil, text.count <= 2000 else { throw node.child(key).error("must be an http or https URL with a host") }
            branding[keyPath: keyPath] = text
        }
        if let email = try node.child("support_email").string() {
            guard (try? MailAddress(email)) != nil else { throw node.child("support_email").error("must be an email address, found \"\(email.prefix(100))\"") }
            branding.supportEmail = email
        }
        if let path = try node.child("stylesheet").string() {
            let css: String
            do { css = try readFile(path) } catch { throw node.child("stylesheet").error("cannot be read: \(path) (\(error.localizedDescription))") }
            guard css.utf8.count <= 256 * 1024 else { throw node.child("stylesheet").error("\(path) is larger than 256 KiB") }
            branding.stylesheet = css
        }
        return (branding, catalog, stringWarnings.map { "branding.strings_dir: " + $0 })
    }

    /// The content types of the images a brand may serve, by file extension.
    private static let imageTypes = [
        "png": "image/png", "svg": "image/svg+xml", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "gif": "image/gif", "ico": "image/x-icon",
    ]

    /// A logo or favicon: a URL on the public origin (the pages allow images from there
    /// only), or a file of a known image type, at most 1 MiB, read now.
    private static func brandImage(_ node: YAMLReader, origin: String?) throws(ConfigurationError) -> Branding.Image? {
        guard let text = try node.string() else { return nil }
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let origin, lowered.hasPrefix(origin + "/") else {
                throw node.error("must be a file, or a URL on the public origin (\(origin ?? "server.public_url")): the pages load images from there only")
            }
            return .url(text)
        }
        let type = (text as NSString).pathExtension.lowercased()
        guard let contentType = imageTypes[type] else {
            throw node.error("must be a file ending in \(imageTypes.keys.sorted().joined(separator: ", ")), or a URL on the public origin")
        }
        guard let data = FileManager.default.contents(atPath: text) else { throw node.error("cannot be read: \(text)") }
        guard data.count <= 1024 * 1024 else { throw node.error("\(text) is larger than 1 MiB") }
        return .file(bytes: Array(data), contentType: contentType)
    }

    /// `webhooks`: endpoints, each `{url, secret, events}`, and the private ranges they may
    /// reach. A secret is `whsec_` and base64 (a list of them while one is being replaced:
    /// each signs).
    private static func parseWebhooks(_ node: YAMLReader) throws(ConfigurationError) -> LatchkeyConfiguration.Webhooks {
        var webhooks = LatchkeyConfiguration.Webhooks()
        guard node.isPresent else { return webhooks }
        try node.requireKeys(["endpoints", "allow_private_networks"])
        for element in try node.child("allow_private_networks").elements() ?? [] {
            let text = try element.string() ?? ""
            guard let range = AddressRange(text) else { throw element.error("must be an IP address or a CIDR range such as 10.0.0.0/8, found \"\(text.prefix(60))\"") }
            webhooks.allowPrivateNetworks.append(range)
        }
        var seen = Set<String>()
        for element in try node.child("endpoints").elements() ?? [] {
            try element.requireKeys(["url", "secret", "events"])
            let urlNode = element.child("url")
            guard let text = try urlNode.string(), let url = Self.postableURL(text) else { throw urlNode.error("must be an http or https URL with a host") }
            let secretNode = element.child("secret")
            var texts: [String] = []
            if let list = try? secretNode.strings() {
                texts = list
            } else if let one = try secretNode.string() {
                texts = [one]
            }
            let secrets = texts.compactMap(WebhookSecret.init)
            guard !texts.isEmpty, secrets.count == texts.count else {
                throw secretNode.error("must be a Standard Webhooks secret, whsec_ and at least 16 bytes in base64 (or a list of them while rotating)")
            }
            let events = try element.child("events").strings() ?? []
            let types: Set<WebhookEventType>
            do {
                types = try WebhookEventType.subscribed(to: events)
            } catch {
                throw element.child("events").error(error.message)
            }
            guard !types.isEmpty else { throw element.child("events").error("must name at least one event, such as user. or passkey.added") }
            let endpoint = WebhookEndpoint(url: url, secrets: secrets, types: types)
            guard seen.insert(endpoint.id).inserted else { throw urlNode.error("is listed twice") }
            webhooks.endpoints.append(endpoint)
        }
        return webhooks
    }

    /// `admin`: who may reach the Admin API. By default it shares the server's listener and
    /// answers loopback callers only; `public: true` admits any address (the key still
    /// decides), and `host`/`port` serve it on a listener of its own instead.
    private static func parseAdmin(_ node: YAMLReader) throws(ConfigurationError) -> LatchkeyConfiguration.Admin {
        var admin = LatchkeyConfiguration.Admin()
        guard node.isPresent else { return admin }
        try node.requireKeys(["public", "host", "port"])
        admin.isPublic = try node.child("public").bool() ?? false
        let host = try node.child("host").string()
        let port = try node.child("port").int()
        if host != nil || port != nil {
            guard let port, (0...65535).contains(port) else { throw node.child("port").error("must be set, between 0 and 65535, when the Admin API has a listener of its own") }
            let host = host ?? "127.0.0.1"
            guard !host.isEmpty else { throw node.child("host").error("must not be empty") }
            admin.listener = .init(host: host, port: port)
        }
        return admin
    }

    /// `email`: the relay and the sender. Without `smtp_url`, the development mailer logs
    /// each message instead (the README's first command has no mail server).
    private static func parseEmail(_ node: YAMLReader, password: String?) throws(ConfigurationError) -> LatchkeyConfiguration.Email {
        var email = LatchkeyConfiguration.Email()
        guard node.isPresent else { return email }
        try node.requireKeys(["smtp_url", "starttls", "from", "reply_to", "timeout", "templates", "ca_file"])
        let timeout = try node.child("timeout").duration() ?? 30
        guard (1...600).contains(timeout) else { throw node.child("timeout").error("must be between 1s and 10m, found \(Int(timeout))s") }
        let starttls: SMTPSettings.Security?
        switch try node.child("starttls").string() {
        case nil: starttls = nil
        case "required": starttls = .required
        case "opportunistic": starttls = .opportunistic
        case let other?: throw node.child("starttls").error("must be required or opportunistic, found \(other.prefix(40))")
        }
        if let url = try node.child("smtp_url").string() {
            do {
                var smtp = try SMTPSettings(url: url, password: password, starttls: starttls, timeout: .seconds(timeout))
                if let caFile = try node.child("ca_file").string() {
                    guard FileManager.default.isReadableFile(atPath: caFile) else { throw node.child("ca_file").error("cannot be read: \(caFile)") }
                    smtp.additionalTrustRoots = [caFile]
                }
                email.smtp = smtp
            } catch let error as SMTPError {
                // The message names the URL's shape, never its password.
                throw node.child("smtp_url").error(error.message)
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw node.child("smtp_url").error("\(error)")
            }
        } else if starttls != nil {
            throw node.child("starttls").error("applies to smtp_url, which is not set")
        }
        if let from = try node.child("from").string() {
            do { email.from = try MailAddress(parsing: from) } catch { throw node.child("from").error("must be Name <address> or an address: \(error.message)") }
        } else if email.smtp != nil {
            throw node.child("from").error("is required with smtp_url (Name <address>): the relay needs a sender it accepts")
        }
        if let replyTo = try node.child("reply_to").string() {
            do { email.replyTo = try MailAddress(parsing: replyTo) } catch { throw node.child("reply_to").error("must be Name <address> or an address: \(error.message)") }
        }
        if let directory = try node.child("templates").string() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw node.child("templates").error("must be a directory, found nothing at \(directory)")
            }
            do { email.templates = try MailTemplates(directory: directory) } catch { throw node.child("templates").error("\(error)") }
            email.templatesDirectory = directory
        }
        return email
    }

    /// `verification`: emailed codes.
    private static func parseVerification(_ node: YAMLReader) throws(ConfigurationError) -> VerificationSettings {
        try node.requireKeys(["code_lifetime", "on_signup", "max_attempts", "code_digits", "resend_cooldown", "mails_per_hour"])
        let lifetime = try node.child("code_lifetime").duration() ?? 15 * 60
        guard (60...86400).contains(lifetime) else { throw node.child("code_lifetime").error("must be between 1m and 24h, found \(Int(lifetime))s") }
        let attempts = try node.child("max_attempts").int() ?? 5
        guard (1...20).contains(attempts) else { throw node.child("max_attempts").error("must be between 1 and 20, found \(attempts)") }
        let digits = try node.child("code_digits").int() ?? VerificationSettings.defaultCodeDigits
        guard (6...12).contains(digits) else { throw node.child("code_digits").error("must be between 6 and 12, found \(digits)") }
        let cooldown = try node.child("resend_cooldown").duration() ?? 30
        guard (1...3600).contains(cooldown) else { throw node.child("resend_cooldown").error("must be between 1s and 1h, found \(Int(cooldown))s") }
        let mails = try node.child("mails_per_hour").int() ?? 10
        guard (1...1000).contains(mails) else { throw node.child("mails_per_hour").error("must be between 1 and 1000, found \(mails)") }
        return VerificationSettings(
            codeLifetime: lifetime, maximumAttempts: attempts, codeDigits: digits, onSignup: try node.child("on_signup").bool() ?? true, resendCooldown: cooldown,
            mailsPerHour: mails
        )
    }

    /// What every section reads from: the file's values, the environment and the flags.
    private struct Input {
        let yaml: YAMLReader
        let environment: Environment
        let overrides: ConfigurationOverrides
    }

    /// The configuration file, when `--config` or `LATCHKEY_CONFIG` names one.
    private static func readYAML(
        overrides: ConfigurationOverrides, environment: Environment, readFile: (String) throws -> String
    ) throws(ConfigurationError) -> (YAMLReader, String?) {
        guard let file = overrides.configFile ?? environment["LATCHKEY_CONFIG"] else { return (YAMLReader(node: nil, path: ""), nil) }
        let text: String
        do {
            text = try readFile(file)
        } catch {
            throw ConfigurationError(key: file, "cannot be read: \(error.localizedDescription)")
        }
        return (try YAMLReader.parse(text, file: file), file)
    }

    /// Where the values came from, for the start-up log.
    private static func sources(file: String?, environment: Environment, overrides: ConfigurationOverrides) -> [String] {
        var sources: [String] = []
        if let file { sources.append("file \(file)") }
        if !environment.used.isEmpty { sources.append("environment") }
        if overrides.host != nil || overrides.port != nil || overrides.database != nil || overrides.relyingPartyID != nil || !overrides.origins.isEmpty
            || overrides.publicURL != nil
        {
            sources.append("command line")
        }
        return sources.isEmpty ? ["built-in defaults"] : sources
    }

    /// `server`, with `--host`, `--port`, `--public-url` and their variables. A value's
    /// problem is named where the value came from: the flag, the variable or the key.
    private static func parseServer(_ input: Input) throws(ConfigurationError) -> LatchkeyConfiguration.Server {
        let node = input.yaml.child("server")
        let env = input.environment
        var collector = ProblemCollector()
        _ = collector.read { () throws(ConfigurationError) in
            try node.requireKeys(["host", "port", "public_url", "idle_timeout", "max_connections", "max_connections_per_ip", "trusted_proxies"])
        }
        let host = collector.read { () throws(ConfigurationError) -> String in
            let (value, key) = try pick(input.overrides.host, "--host", env["LATCHKEY_HOST"], "LATCHKEY_HOST", try node.child("host").string(), "server.host")
            let host = value ?? "127.0.0.1"
            guard !host.isEmpty else { throw ConfigurationError(key: key, "must not be empty") }
            return host
        }
        let port = collector.read { () throws(ConfigurationError) -> Int in
            let port: Int
            let key: String
            if let value = input.overrides.port {
                (port, key) = (value, "--port")
            } else if let text = env["LATCHKEY_PORT"] {
                guard let value = Int(text) else { throw ConfigurationError(key: "LATCHKEY_PORT", "must be a port number, found \"\(text.prefix(40))\"") }
                (port, key) = (value, "LATCHKEY_PORT")
            } else {
                (port, key) = (try node.child("port").int() ?? 8080, "server.port")
            }
            guard (0...65535).contains(port) else { throw ConfigurationError(key: key, "must be between 0 and 65535, found \(port)") }
            return port
        }
        let publicURL = collector.read { () throws(ConfigurationError) -> String in
            let (value, key) = try pick(
                input.overrides.publicURL, "--public-url", env["LATCHKEY_PUBLIC_URL"], "LATCHKEY_PUBLIC_URL", try node.child("public_url").string(), "server.public_url"
            )
            return try validatePublicURL(value ?? "http://localhost:\(port == 0 || port == nil ? 8080 : port!)", key: key)
        }
        let idleTimeout = collector.read { () throws(ConfigurationError) -> TimeInterval in
            let idleTimeout = try node.child("idle_timeout").duration() ?? 30
            guard (1...3600).contains(idleTimeout) else {
                throw ConfigurationError(key: "server.idle_timeout", "must be between 1s and 1h, found \(Int(idleTimeout))s")
            }
            return idleTimeout
        }
        let maximumConnections = collector.read { () throws(ConfigurationError) -> Int in
            let maximumConnections = try node.child("max_connections").int() ?? 768
            guard (1...1_000_000).contains(maximumConnections) else {
                throw ConfigurationError(key: "server.max_connections", "must be between 1 and 1000000, found \(maximumConnections)")
            }
            return maximumConnections
        }
        let maximumPerAddress = collector.read { () throws(ConfigurationError) -> Int in
            let maximumPerAddress = try node.child("max_connections_per_ip").int() ?? 128
            guard (1...(maximumConnections ?? 1_000_000)).contains(maximumPerAddress) else {
                throw ConfigurationError(
                    key: "server.max_connections_per_ip", "must be between 1 and server.max_connections (\(maximumConnections ?? 768)), found \(maximumPerAddress)"
                )
            }
            return maximumPerAddress
        }
        let trustedProxies = collector.read { () throws(ConfigurationError) -> [AddressRange] in
            var ranges: [AddressRange] = []
            for element in try node.child("trusted_proxies").elements() ?? [] {
                let text = try element.string() ?? ""
                guard let range = AddressRange(text) else {
                    throw element.error("must be an IP address or a CIDR range such as 10.0.0.0/8 or ::1, found \"\(text.prefix(60))\"")
                }
                ranges.append(range)
            }
            return ranges
        }
        try collector.throwIfAny()
        guard let host, let port, let publicURL, let idleTimeout, let maximumConnections, let maximumPerAddress, let trustedProxies else {
            throw ConfigurationError(key: "server", "could not be read")  // unreachable: every nil recorded a problem
        }
        return .init(
            host: host, port: port, publicURL: publicURL, idleTimeout: idleTimeout,
            maximumConnections: maximumConnections, maximumConnectionsPerAddress: maximumPerAddress, trustedProxies: trustedProxies
        )
    }

    /// `database`, `--database` or `LATCHKEY_DATABASE`, and which of them gave it.
    private static func parseDatabaseSetting(_ input: Input) throws(ConfigurationError) -> (value: LatchkeyConfiguration.Database, source: String) {
        let (value, key) = try pick(
            input.overrides.database, "--database", input.environment["LATCHKEY_DATABASE"], "LATCHKEY_DATABASE", try input.yaml.child("database").string(), "database"
        )
        return (try parseDatabase(value ?? "sqlite:latchkey.sqlite", key: key), key)
    }

    /// `relying_party`, with `--rp-id`, `--origin` and their variables. The origins default
    /// to the public URL's, when it could be read.
    private static func parseRelyingParty(
        _ input: Input, publicURL: String?, warnings: inout [String]
    ) throws(ConfigurationError) -> LatchkeyConfiguration.RelyingParty {
        let node = input.yaml.child("relying_party")
        let env = input.environment
        var collector = ProblemCollector()
        _ = collector.read { () throws(ConfigurationError) in try node.requireKeys(["id", "name", "origins", "related_origins", "passkey_endpoints"]) }
        let rpID = collector.read { () throws(ConfigurationError) -> String in
            let (value, key) = try pick(input.overrides.relyingPartyID, "--rp-id", env["LATCHKEY_RP_ID"], "LATCHKEY_RP_ID", try node.child("id").string(), "relying_party.id")
            let rpID = (value ?? "localhost").lowercased()
            try validateRelyingPartyID(rpID, key: key)
            return rpID
        }
        let origins = collector.read { () throws(ConfigurationError) -> [String] in
            var origins = input.overrides.origins
            var keyPrefix = "--origin"
            if origins.isEmpty, let text = env["LATCHKEY_ORIGINS"] {
                origins = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                keyPrefix = "LATCHKEY_ORIGINS"
            }
            if origins.isEmpty {
                origins = try node.child("origins").strings() ?? []
                keyPrefix = "relying_party.origins"
            }
            if origins.isEmpty, let publicURL { origins = [originOf(publicURL)] }
            // Checked against the RP ID only when that is valid: otherwise every origin would
            // repeat its problem.
            if let rpID {
                var problems: [ConfigurationError] = []
                for (index, origin) in origins.enumerated() {
                    do throws(ConfigurationError) {
                        try validateOrigin(origin, relyingPartyID: rpID, key: "\(keyPrefix)[\(index)]")
                    } catch {
                        problems.append(error)
                    }
                }
                if !problems.isEmpty { throw ConfigurationError(combining: problems) }
            }
            return origins
        }
        let relatedOrigins = collector.read { () throws(ConfigurationError) in try parseRelatedOrigins(node.child("related_origins"), warnings: &warnings) }
        let name = collector.read { () throws(ConfigurationError) in try node.child("name").string() ?? "Latchkey" }
        let passkeyEndpoints = collector.read { () throws(ConfigurationError) -> PasskeyEndpoints? in
            guard let rpID, let publicURL else { return nil }
            return try parsePasskeyEndpoints(node.child("passkey_endpoints"), relyingPartyID: rpID, publicURL: publicURL)
        }
        try collector.throwIfAny()
        // Without a public URL (whose problem the server section reported) there are no
        // endpoints to derive.
        guard let rpID, let origins, let relatedOrigins, let name, let endpoints = passkeyEndpoints ?? nil else { throw ConfigurationError.reportedElsewhere }
        return .init(id: rpID, name: name, origins: origins, relatedOrigins: relatedOrigins, passkeyEndpoints: endpoints)
    }

    /// `audit`: how long events are kept.
    private static func parseAudit(_ node: YAMLReader) throws(ConfigurationError) -> TimeInterval {
        try node.requireKeys(["retention"])
        let retention = try node.child("retention").duration() ?? 90 * 86400
        // Short windows are for test and soak runs; a minute keeps a typo in seconds from
        // deleting events as they are written.
        guard retention >= 60 else { throw node.child("retention").error("must be at least 1m, found \(Int(retention))s") }
        return retention
    }

    /// The first value given, with the name it was given under: a flag, then an
    /// environment variable, then the file's key.
    private static func pick(
        _ flag: String?, _ flagName: String, _ variable: String?, _ variableName: String, _ file: String?, _ key: String
    ) throws(ConfigurationError) -> (String?, String) {
        if let flag { return (flag, flagName) }
        if let variable { return (variable, variableName) }
        return (file, key)
    }

    /// A URL this server posts to (webhooks, logout tokens): http or https, with a host, and
    /// without credentials or a fragment.
    private static func postableURL(_ text: String) -> URL? {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false, url.user == nil,
            url.fragment == nil, !text.contains("#")
        else { return nil }
        return url
    }

    // MARK: - Sections

    private static func parseClients(_ node: YAMLReader) throws(ConfigurationError) -> [LatchkeyConfiguration.Client] {
        guard let elements = try node.elements(), !elements.isEmpty else {
            return [.init(id: "demo", name: "Demo app", secret: nil, grantTypes: [.webauthn, .refreshToken, .password], redirectURIs: [], ios: nil, android: nil)]
        }
        var clients: [LatchkeyConfiguration.Client] = []
        for element in elements {
            try element.requireKeys([
                "client_id", "name", "client_secret", "grant_types", "ios", "android", "redirect_uris", "allowed_scopes", "first_party", "id_token_signed_response_alg",
                "post_logout_redirect_uris", "allowed_logout_urls", "backchannel_logout_uri", "passkeys",
            ])
            guard let id = try element.child("client_id").string(), !id.isEmpty else {
                throw element.child("client_id").error("is required")
            }
            guard id.count <= 128, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
                throw element.child("client_id").error("must be 1 to 128 letters, digits, '.', '_' or '-'")
            }
            guard !clients.contains(where: { $0.id == id }) else {
                throw element.child("client_id").error("\"\(id)\" is used by another client")
            }
            let secret = try element.child("client_secret").string()
            if let secret, secret.count < 16 {
                throw element.child("client_secret").error("must be at least 16 characters; omit it for a public client")
            }
            let redirectURIs = try parseRedirectURIs(element.child("redirect_uris"), client: id)
            var grants: [GrantType] = []
            // A client that registers redirect URIs means to use them.
            let defaultGrants = redirectURIs.isEmpty ? ["webauthn", "refresh_token"] : ["authorization_code", "webauthn", "refresh_token"]
            for (index, name) in (try element.child("grant_types").strings() ?? defaultGrants).enumerated() {
                guard let grant = GrantType(configName: name) else {
                    throw ConfigurationError(key: "\(element.path).grant_types[\(index)]", "\"\(name)\" is not a grant type; use webauthn, refresh_token or authorization_code")
                }
                grants.append(grant)
            }
            if grants.contains(.authorizationCode), redirectURIs.isEmpty {
                throw element.child("redirect_uris").error("client \(id): the authorization_code grant needs at least one redirect URI")
            }
            let ios = try NativeAppConfiguration.appleApp(element.child("ios"), client: id)
            let android = try NativeAppConfiguration.androidApp(element.child("android"), client: id)
            for other in clients {
                if let ios, let theirs = other.ios, let shared = ios.appIDs.first(where: theirs.appIDs.contains) {
                    throw element.child("ios").error("client \(id): app \(shared) is already configured for client \(other.id)")
                }
                if let android, android.packageName == other.android?.packageName {
                    throw element.child("android").child("package_name").error("client \(id): \(android.packageName) is already configured for client \(other.id)")
                }
            }
            var allowedScopes: Set<String>?
            if let names = try element.child("allowed_scopes").strings() {
                for (index, name) in names.enumerated() where !Scopes.known.contains(name) {
                    throw ConfigurationError(key: "\(element.path).allowed_scopes[\(index)]", "\"\(name.prefix(60))\" is not a scope Latchkey grants (\(Scopes.known.joined(separator: ", ")))")
                }
                allowedScopes = Set(names)
            }
            let algorithmNode = element.child("id_token_signed_response_alg")
            let algorithmName = try algorithmNode.string() ?? SigningAlgorithm.rs256.rawValue
            guard let algorithm = SigningAlgorithm(rawValue: algorithmName) else {
                throw algorithmNode.error("must be RS256, PS256 or ES256, found \"\(algorithmName.prefix(20))\"")
            }
            let policyNode = element.child("passkeys")
            var policyKeys: PasskeyPolicyKeys?
            if policyNode.isPresent {
                try policyNode.requireKeys(PasskeyPolicyKeys.names)
                policyKeys = try parsePolicyKeys(policyNode)
            }
            let backchannelNode = element.child("backchannel_logout_uri")
            var backchannelLogoutURI: URL?
            if let text = try backchannelNode.string() {
                // Back-Channel Logout §2.2: absolute, no fragment; a query is kept as given.
                guard let url = Self.postableURL(text) else { throw backchannelNode.error("client \(id): must be an http or https URL with a host and no fragment") }
                backchannelLogoutURI = url
            }
            clients.append(.init(
                id: id, name: try element.child("name").string() ?? id, secret: secret, grantTypes: grants, redirectURIs: redirectURIs, ios: ios, android: android,
                allowedScopes: allowedScopes, isFirstParty: try element.child("first_party").bool() ?? false, idTokenSigningAlgorithm: algorithm,
                postLogoutRedirectURIs: try parseRedirectURIs(element.child("post_logout_redirect_uris"), client: id),
                allowedLogoutURLs: try parseRedirectURIs(element.child("allowed_logout_urls"), client: id), backchannelLogoutURI: backchannelLogoutURI,
                passkeys: policyKeys
            ))
        }
        return clients
    }

    /// Redirect URIs are compared exactly, so each must be a complete URL: https, http on a
    /// loopback host (RFC 8252 §7.3), or an app's private scheme with a dot in it (RFC 8252
    /// §7.1, e.g. `com.example.app:/callback`). No fragment (OAuth 2.1 §2.3).
    private static func parseRedirectURIs(_ node: YAMLReader, client: String) throws(ConfigurationError) -> [String] {
        guard let elements = try node.elements() else { return [] }
        var uris: [String] = []
        for element in elements {
            guard let text = try element.string(), let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
                throw element.error("client \(client): must be an absolute URL such as https://app.example.com/callback")
            }
            guard url.fragment == nil, !text.contains("#") else {
                throw element.error("client \(client): \(text.prefix(200)) must not have a fragment")
            }
            switch scheme {
            case "https":
                guard url.host?.isEmpty == false else { throw element.error("client \(client): \(text.prefix(200)) has no host") }
            case "http":
                guard let host = url.host, ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased()) else {
                    throw element.error("client \(client): \(text.prefix(200)) uses http; only loopback hosts may (use https)")
                }
            default:
                guard scheme.contains(".") else {
                    throw element.error("client \(client): a private-use scheme must be a reverse domain name such as com.example.app, found \(scheme.prefix(60))")
                }
            }
            guard !uris.contains(text) else { throw element.error("client \(client): \(text.prefix(200)) is listed twice") }
            uris.append(text)
        }
        return uris
    }

    private static func parseHostedPages(_ node: YAMLReader) throws(ConfigurationError) -> LatchkeyConfiguration.HostedPages {
        try node.requireKeys(["session_lifetime", "default_region"])
        let lifetime = try node.child("session_lifetime").duration() ?? 7 * 86400
        guard lifetime >= 60 else { throw node.child("session_lifetime").error("must be at least 60 seconds") }
        let regionNode = node.child("default_region")
        let region = try regionNode.string()
        if let region, !PhoneNumberInput.isKnownRegion(region) {
            throw regionNode.error("must be a country as an ISO 3166-1 alpha-2 code in upper case, such as US, GB or DE, found \"\(region.prefix(20))\"")
        }
        return .init(sessionLifetime: lifetime, defaultRegion: region)
    }

    private static func parseFaces(_ node: YAMLReader) throws(ConfigurationError) -> LatchkeyConfiguration.Faces {
        try node.requireKeys(["kratos", "idaas"])
        let kratos = node.child("kratos")
        try kratos.requireKeys(["enabled", "flow_lifespan", "session_lifespan"])
        let flowLifespan = try kratos.child("flow_lifespan").duration() ?? 3600
        guard flowLifespan >= 60 else { throw kratos.child("flow_lifespan").error("must be at least 60 seconds") }
        guard flowLifespan <= 86400 else { throw kratos.child("flow_lifespan").error("must be at most 24 hours: a flow's challenge lives as long as the flow") }
        let sessionLifespan = try kratos.child("session_lifespan").duration() ?? 86400
        guard sessionLifespan >= 60 else { throw kratos.child("session_lifespan").error("must be at least 60 seconds") }
        return .init(
            kratos: .init(enabled: try kratos.child("enabled").bool() ?? true, flowLifespan: flowLifespan, sessionLifespan: sessionLifespan),
            idaas: try parseIDaaS(node.child("idaas"))
        )
    }

    private static func parseIDaaS(_ node: YAMLReader) throws(ConfigurationError) -> LatchkeyConfiguration.Faces.IDaaS {
        try node.requireKeys(["enabled", "admin_applications", "admin_token_lifespan", "session_lifespan"])
        var applications: [LatchkeyConfiguration.Faces.IDaaS.AdminApplication] = []
        for element in try node.child("admin_applications").elements() ?? [] {
            try element.requireKeys(["application_id", "name", "shared_secret"])
            guard let id = try element.child("application_id").string(), !id.isEmpty else { throw element.child("application_id").error("is required") }
            guard id.count <= 128, id.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
                throw element.child("application_id").error("must be 1 to 128 visible ASCII characters")
            }
            guard !applications.contains(where: { $0.id == id }) else {
                throw element.child("application_id").error("\"\(id)\" is used by another administration application")
            }
            guard let secret = try element.child("shared_secret").string() else { throw element.child("shared_secret").error("is required") }
            guard secret.count >= 16 else { throw element.child("shared_secret").error("must be at least 16 characters") }
            applications.append(.init(id: id, name: try element.child("name").string() ?? id, sharedSecret: secret))
        }
        let tokenLifespan = try node.child("admin_token_lifespan").duration() ?? 3600
        guard tokenLifespan >= 60, tokenLifespan <= 86400 else { throw node.child("admin_token_lifespan").error("must be between 60 seconds and 24 hours") }
        let sessionLifespan = try node.child("session_lifespan").duration() ?? 900
        guard sessionLifespan >= 60, sessionLifespan <= 86400 * 30 else { throw node.child("session_lifespan").error("must be between 60 seconds and 30 days") }
        return .init(
            enabled: try node.child("enabled").bool() ?? true, adminApplications: applications,
            adminTokenLifespan: tokenLifespan, sessionLifespan: sessionLifespan
        )
    }

    private static func parseRelatedOrigins(_ node: YAMLReader, warnings: inout [String]) throws(ConfigurationError) -> [String] {
        guard let elements = try node.elements() else { return [] }
        var origins: [String] = []
        for element in elements {
            guard let text = try element.string(), let origin = WebOriginText(text) else {
                throw element.error("must be a web origin such as https://example.co.uk (scheme, host and optional port)")
            }
            guard origin.isPotentiallyTrustworthy else {
                throw element.error("\(text) uses http; browsers use related origins only over https")
            }
            guard !origins.contains(text) else { throw element.error("\(text) is listed twice") }
            origins.append(text)
        }
        let ignored = RelatedOrigins.originsBeyondLabelLimit(origins)
        if !ignored.isEmpty {
            warnings.append(
                "relying_party.related_origins: browsers need only honour \(RelatedOrigins.guaranteedLabelCount) distinct domain labels and may ignore \(ignored.joined(separator: ", "))"
            )
        }
        return origins
    }

    private static func parsePasskeyEndpoints(_ node: YAMLReader, relyingPartyID: String, publicURL: String) throws(ConfigurationError) -> PasskeyEndpoints {
        try node.requireKeys(["enroll", "manage", "prf_usage_details"])
        func endpoint(_ key: String) throws(ConfigurationError) -> String? {
            let child = node.child(key)
            guard let text = try child.string() else { return nil }
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
                let origin = WebOriginText("\(scheme)://\(host)"), origin.isPotentiallyTrustworthy
            else {
                throw child.error("must be an absolute https URL, found \"\(text.prefix(200))\"")
            }
            guard PublicSuffixList.bundled.isSameSite(host, relyingPartyID) else {
                throw child.error("\(text) is not on the same site as the RP ID \(relyingPartyID); password managers only follow links on the relying party's own site")
            }
            return text
        }
        return PasskeyEndpoints(
            enroll: try endpoint("enroll") ?? publicURL + "/account/passkeys/new",
            manage: try endpoint("manage") ?? publicURL + "/account/passkeys",
            prfUsageDetails: try endpoint("prf_usage_details")
        )
    }

    private static func parseWellKnown(_ node: YAMLReader) throws(ConfigurationError) -> String {
        try node.requireKeys(["cache_control"])
        let child = node.child("cache_control")
        let value = try child.string() ?? "public, max-age=300"
        guard !value.isEmpty, value.count <= 200, value.allSatisfy({ $0.isASCII && !$0.isNewline && ($0 == " " || !$0.isWhitespace) }) else {
            throw child.error("must be a Cache-Control header value such as \"public, max-age=300\"")
        }
        return value
    }

    private static func parseTokens(_ node: YAMLReader) throws(ConfigurationError) -> LatchkeyConfiguration.Tokens {
        try node.requireKeys(["access_token_lifetime", "id_token_lifetime", "refresh_token_lifetime", "refresh_token_absolute_lifetime", "audiences"])
        // Each API is its identifier, or {identifier, signing_alg} as Auth0 names a resource server's.
        var audiences: [String] = []
        var algorithms: [String: SigningAlgorithm] = [:]
        for element in try node.child("audiences").elements() ?? [] {
            guard element.isMapping else {
                audiences.append(try element.string() ?? "")
                continue
            }
            try element.requireKeys(["identifier", "signing_alg"])
            let identifier = try element.child("identifier").string() ?? ""
            audiences.append(identifier)
            if let name = try element.child("signing_alg").string() {
                guard let algorithm = SigningAlgorithm(rawValue: name) else {
                    throw element.child("signing_alg").error("must be ES256, RS256 or PS256, found \"\(name.prefix(20))\"")
                }
                algorithms[identifier] = algorithm
            }
        }
        let refreshLifetime = try node.child("refresh_token_lifetime").duration() ?? 30 * 86400
        let absolute = try node.child("refresh_token_absolute_lifetime").duration() ?? 90 * 86400
        guard absolute >= refreshLifetime else {
            throw node.child("refresh_token_absolute_lifetime").error("must be at least refresh_token_lifetime (\(Int(refreshLifetime))s), found \(Int(absolute))s")
        }
        for (index, audience) in audiences.enumerated() where audience.isEmpty {
            throw ConfigurationError(key: "tokens.audiences[\(index)]", "must not be empty")
        }
        return .init(
            accessTokenLifetime: try node.child("access_token_lifetime").duration() ?? 3600,
            idTokenLifetime: try node.child("id_token_lifetime").duration() ?? 3600,
            refreshTokenLifetime: refreshLifetime,
            refreshTokenAbsoluteLifetime: absolute,
            audiences: audiences,
            accessTokenAlgorithms: algorithms
        )
    }

    private static func parsePasskeys(_ node: YAMLReader) throws(ConfigurationError) -> LatchkeyConfiguration.Passkeys {
        try node.requireKeys([
            "ceremony_lifetime", "user_verification", "sign_count_policy", "signup_identifiers", "attestation", "allow_legacy_rs1",
            "allowed_aaguids", "denied_aaguids", "require_device_bound", "sensitive_action_max_age",
        ] + PasskeyPolicyKeys.names.filter { $0 != "user_verification" })
        // The policy keys, `user_verification` among them, read once for the global policy.
        let keys = try parsePolicyKeys(node)
        let verification = keys.userVerification ?? .preferred
        let policyNode = node.child("sign_count_policy")
        let policy: SignCountPolicy
        switch try policyNode.string() ?? "reject" {
        case "reject": policy = .reject
        case "flag": policy = .acceptAndFlag
        case let other: throw policyNode.error("must be reject or flag, found \"\(other.prefix(40))\"")
        }
        var identifiers: [ProfileValidation.IdentifierKind] = []
        for (index, name) in (try node.child("signup_identifiers").strings() ?? ["email", "phone_number", "username"]).enumerated() {
            guard let kind = ProfileValidation.IdentifierKind(rawValue: name) else {
                throw ConfigurationError(key: "passkeys.signup_identifiers[\(index)]", "\"\(name)\" is not email, phone_number or username")
            }
            identifiers.append(kind)
        }
        guard !identifiers.isEmpty else { throw node.child("signup_identifiers").error("must name at least one identifier") }

        let attestation = node.child("attestation")
        try attestation.requireKeys(["requirement", "trust_anchors", "crl_files", "metadata"])
        let requirementNode = attestation.child("requirement")
        let requirement: AttestationRequirement
        switch try requirementNode.string() ?? "trusted_when_anchors_configured" {
        case "none", "any": requirement = .any
        case "trusted_when_anchors_configured": requirement = .trustedWhenAnchorsConfigured
        case "trusted": requirement = .trusted
        case let other: throw requirementNode.error("must be none, trusted_when_anchors_configured or trusted, found \"\(other.prefix(40))\"")
        }
        let anchorsNode = attestation.child("trust_anchors")
        var anchorFiles: [AttestationFormat: [String]] = [:]
        for format in try anchorsNode.keys() {
            guard AttestationFormat.all.contains(AttestationFormat(rawValue: format)) else {
                throw ConfigurationError(key: "\(anchorsNode.path).\(format)", "is not an attestation format (\(AttestationFormat.all.map(\.rawValue).joined(separator: ", ")))")
            }
            anchorFiles[AttestationFormat(rawValue: format)] = try anchorsNode.child(format).strings() ?? []
        }
        // The older keys hold for every application at registration (the verifier's own
        // checks, with their own codes), and start the policy every application inherits.
        let allowedAAGUIDs = try aaguids(node.child("allowed_aaguids"))
        let deniedAAGUIDs = try aaguids(node.child("denied_aaguids")) ?? []
        let requiresDeviceBound = try node.child("require_device_bound").bool() ?? false
        var passkeyPolicy = keys.applied(to: PasskeyPolicy(userVerification: verification))
        if keys.accept == nil && requiresDeviceBound { passkeyPolicy.accept = .deviceBound }
        if keys.aaguidsAllowed == nil, let allowedAAGUIDs { passkeyPolicy.aaguidsAllowed = allowedAAGUIDs }
        passkeyPolicy.aaguidsBlocked.formUnion(deniedAAGUIDs)
        return .init(
            ceremonyLifetime: try node.child("ceremony_lifetime").duration() ?? 300,
            userVerification: verification,
            signCountPolicy: policy,
            signupIdentifiers: identifiers,
            attestationRequirement: requirement,
            trustAnchorFiles: anchorFiles,
            revocationListFiles: try attestation.child("crl_files").strings() ?? [],
            allowsLegacyRS1: try node.child("allow_legacy_rs1").bool() ?? false,
            allowedAAGUIDs: allowedAAGUIDs,
            deniedAAGUIDs: deniedAAGUIDs,
            requiresDeviceBound: requiresDeviceBound,
            sensitiveActionMaxAge: try sensitiveActionMaxAge(node.child("sensitive_action_max_age")),
            metadata: try parseMetadata(attestation.child("metadata")),
            policy: passkeyPolicy
        )
    }

    private static func sensitiveActionMaxAge(_ node: YAMLReader) throws(ConfigurationError) -> TimeInterval {
        let maximumAge = try node.duration() ?? 15 * 60
        guard (60...86_400).contains(maximumAge) else { throw node.error("must be between 1m and 24h, found \(Int(maximumAge))s") }
        return maximumAge
    }

    /// A list of AAGUIDs as lower-case hyphenated UUIDs; `nil` when absent or empty.
    static func aaguids(_ node: YAMLReader) throws(ConfigurationError) -> Set<AAGUID>? {
        guard let elements = try node.elements(), !elements.isEmpty else { return nil }
        var values: Set<AAGUID> = []
        for element in elements {
            let text = try element.string() ?? ""
            guard text == text.lowercased(), text.count == 36, let aaguid = AAGUID(uuidString: text) else {
                throw element.error("must be an AAGUID as a lower-case hyphenated UUID (for example fbfc3007-154e-4ecc-8c0b-6e020557d7bd), found \"\(text.prefix(60))\"")
            }
            values.insert(aaguid)
        }
        return values
    }

    /// The statuses of MDS3 §3.1.4 (AuthenticatorStatus), to catch a misspelt one.
    static let metadataStatuses: Set<String> = [
        "NOT_FIDO_CERTIFIED", "FIDO_CERTIFIED", "USER_VERIFICATION_BYPASS", "ATTESTATION_KEY_COMPROMISE",
        "USER_KEY_REMOTE_COMPROMISE", "USER_KEY_PHYSICAL_COMPROMISE", "UPDATE_AVAILABLE", "REVOKED", "SELF_ASSERTION_SUBMITTED",
        "FIDO_CERTIFIED_L1", "FIDO_CERTIFIED_L1plus", "FIDO_CERTIFIED_L2", "FIDO_CERTIFIED_L2plus", "FIDO_CERTIFIED_L3", "FIDO_CERTIFIED_L3plus",
        "FIPS140_CERTIFIED_L1", "FIPS140_CERTIFIED_L2", "FIPS140_CERTIFIED_L3", "FIPS140_CERTIFIED_L4",
    ]

    private static func parseMetadata(_ node: YAMLReader) throws(ConfigurationError) -> LatchkeyConfiguration.Passkeys.Metadata? {
        try node.requireKeys(["blob", "root_certificate", "refresh", "refuse_statuses"])
        guard let source = try node.child("blob").string(), !source.isEmpty else { return nil }
        if source.hasPrefix("http://") {
            throw node.child("blob").error("must be a file path or an https URL; the BLOB is not fetched over plain http")
        }
        var refused = AttestationPolicy.defaultRefusedStatuses
        if let statuses = try node.child("refuse_statuses").elements() {
            refused = []
            for element in statuses {
                let status = try element.string() ?? ""
                guard metadataStatuses.contains(status) else {
                    throw element.error("\"\(status.prefix(60))\" is not an MDS3 authenticator status (\(metadataStatuses.sorted().joined(separator: ", ")))")
                }
                refused.insert(status)
            }
        }
        return .init(
            source: source,
            rootCertificateFile: try node.child("root_certificate").string(),
            refresh: try node.child("refresh").duration() ?? 86_400,
            refusedStatuses: refused
        )
    }

    /// `limits`: the largest body, and the rate limits (0 turns one off).
    private static func parseLimits(_ node: YAMLReader) throws(ConfigurationError) -> (maximumBodyBytes: Int, rates: LatchkeyConfiguration.RateLimits) {
        try node.requireKeys([
            "max_body_bytes", "ceremony_starts_per_minute", "ceremony_finishes_per_minute", "identifier_attempts_per_minute", "ceremony_failures_per_minute",
            "ipv6_prefix_length",
        ])
        var collector = ProblemCollector()
        let bytes = collector.read { () throws(ConfigurationError) -> Int in
            let bytes = try node.child("max_body_bytes").int() ?? 64 * 1024
            guard (4096...(16 * 1024 * 1024)).contains(bytes) else {
                throw node.child("max_body_bytes").error("must be between 4096 and 16777216, found \(bytes)")
            }
            return bytes
        }
        func limit(_ key: String, _ fallback: Int) -> Int? {
            collector.read { () throws(ConfigurationError) -> Int in
                let value = try node.child(key).int() ?? fallback
                guard value >= 0 else { throw node.child(key).error("must be 0 (off) or more, found \(value)") }
                return value
            }
        }
        let starts = limit("ceremony_starts_per_minute", 300)
        let finishes = limit("ceremony_finishes_per_minute", 600)
        let identifiers = limit("identifier_attempts_per_minute", 20)
        let failures = limit("ceremony_failures_per_minute", 60)
        let prefix = collector.read { () throws(ConfigurationError) in try ipv6PrefixLength(node.child("ipv6_prefix_length")) }
        try collector.throwIfAny()
        guard let bytes, let starts, let finishes, let identifiers, let failures, let prefix else { throw ConfigurationError.reportedElsewhere }
        return (bytes, .init(
            startsPerMinute: starts, finishesPerMinute: finishes, identifierAttemptsPerMinute: identifiers, failuresPerMinute: failures, ipv6PrefixLength: prefix
        ))
    }

    /// `secrets`: the key-encryption key, from `LATCHKEY_KEY_ENCRYPTION_KEY` (the key
    /// itself) or, failing that, the file `key_encryption_key_file` names. Neither error
    /// repeats a key.
    private static func parseSecrets(_ node: YAMLReader, variable: String?) throws(ConfigurationError) -> LatchkeyConfiguration.Secrets {
        try node.requireKeys(["key_encryption_key_file"])
        if let variable {
            guard let key = KeyEncryption(text: Array(variable.utf8)) else {
                throw ConfigurationError(key: "LATCHKEY_KEY_ENCRYPTION_KEY", "must be 32 bytes in base64 or hex (for example from `openssl rand -base64 32`)")
            }
            return .init(keyEncryption: key, source: "LATCHKEY_KEY_ENCRYPTION_KEY")
        }
        guard let path = try node.child("key_encryption_key_file").string() else { return .init() }
        return .init(keyEncryption: try keyEncryptionKey(file: path, key: node.child("key_encryption_key_file").path), source: "secrets.key_encryption_key_file")
    }

    /// Reads a key-encryption key file: 32 bytes, in base64 or hex or raw. `key` names the
    /// setting or flag in errors.
    /// A file that its group or others may read is refused, as ssh refuses such a private
    /// key: the key guards every signing key and secret in the database.
    public static func keyEncryptionKey(file path: String, key: String) throws(ConfigurationError) -> KeyEncryption {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError(key: key, "cannot read \(path): \(error.localizedDescription)")
        }
        if let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw ConfigurationError(
                key: key, "\(path) may be read by its group or others (mode \(String(mode & 0o777, radix: 8))); make it the owner's alone: chmod 600 \(path)"
            )
        }
        guard let encryption = KeyEncryption(text: Array(data)) else {
            throw ConfigurationError(key: key, "\(path) must hold a key of 32 bytes in base64 or hex (for example from `openssl rand -base64 32 > \(path)`)")
        }
        return encryption
    }

    /// How many leading bits of an IPv6 address the per-address limits count as one client.
    private static func ipv6PrefixLength(_ node: YAMLReader) throws(ConfigurationError) -> Int {
        let length = try node.int() ?? 64
        guard (1...128).contains(length) else { throw node.error("must be between 1 and 128 (64: a host's usual share), found \(length)") }
        return length
    }

    /// `metrics:` with a mapping (even `{}`) turns the listener on.
    private static func parseMetrics(_ node: YAMLReader) throws(ConfigurationError) -> LatchkeyConfiguration.Metrics? {
        guard node.isPresent else { return nil }
        try node.requireKeys(["host", "port"])
        let host = try node.child("host").string() ?? "127.0.0.1"
        guard !host.isEmpty else { throw node.child("host").error("must not be empty") }
        let port = try node.child("port").int() ?? 9464
        guard (0...65535).contains(port) else { throw node.child("port").error("must be between 0 and 65535, found \(port)") }
        return .init(host: host, port: port)
    }

    private static func parseLogging(_ node: YAMLReader, environment: Environment) throws(ConfigurationError) -> LatchkeyConfiguration.Logging {
        try node.requireKeys(["level", "format", "requests"])
        let fileLevel = try node.child("level").string()
        let level = environment["LATCHKEY_LOG_LEVEL"] ?? fileLevel ?? "info"
        let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
        guard levels.contains(level) else {
            let key = environment["LATCHKEY_LOG_LEVEL"] != nil ? "LATCHKEY_LOG_LEVEL" : "logging.level"
            throw ConfigurationError(key: key, "must be one of \(levels.joined(separator: ", ")), found \"\(level.prefix(40))\"")
        }
        let formatNode = node.child("format")
        let format = try formatNode.string() ?? "text"
        guard ["text", "json"].contains(format) else { throw formatNode.error("must be text or json, found \"\(format.prefix(40))\"") }
        return .init(level: level, format: format, logsRequests: try node.child("requests").bool() ?? false)
    }

    // MARK: - Values

    static func validatePublicURL(_ text: String, key: String = "server.public_url") throws(ConfigurationError) -> String {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil
        else {
            throw ConfigurationError(key: key, "must be an absolute http(s) URL such as https://login.example.com, found \"\(text.prefix(200))\"")
        }
        return trimmed
    }

    static func parseDatabase(_ text: String, key: String = "database") throws(ConfigurationError) -> LatchkeyConfiguration.Database {
        if text.hasPrefix("sqlite:") {
            // `sqlite:PATH` or `sqlite:PATH?synchronous=full|normal`.
            let parts = text.dropFirst("sqlite:".count).split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            let path = String(parts[0])
            guard !path.isEmpty else { throw ConfigurationError(key: key, "sqlite: needs a file path, for example sqlite:latchkey.sqlite") }
            var durability = SQLiteStorage.Durability.normal
            for parameter in parts.count > 1 ? parts[1].split(separator: "&") : [] {
                let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                switch (pair[0], pair.count > 1 ? pair[1] : "") {
                case ("synchronous", "normal"): durability = .normal
                case ("synchronous", "full"): durability = .full
                case ("synchronous", let other):
                    throw ConfigurationError(key: key, "synchronous must be normal or full, found \"\(other.prefix(20))\"")
                case (let other, _):
                    throw ConfigurationError(key: key, "the SQLite URL takes only synchronous=normal|full, found \"\(other.prefix(40))\"")
                }
            }
            return .sqlite(path: path, durability: durability)
        }
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            do {
                return .postgres(try PostgresSettings(url: text))
            } catch {
                // The message never repeats the URL, which holds the password.
                throw ConfigurationError(key: key, "the PostgreSQL URL \(error.description)")
            }
        }
        // The value may hold a password; only its scheme is repeated.
        let scheme = text.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        throw ConfigurationError(key: key, "must be sqlite:PATH or postgres://user:password@host:port/database, found a value starting \"\(scheme.prefix(20)):\"")
    }

    static func validateRelyingPartyID(_ id: String, key: String = "relying_party.id") throws(ConfigurationError) {
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        let valid = !id.isEmpty && id.count <= 253 && labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
        guard valid else {
            throw ConfigurationError(key: key, "must be a domain name such as example.com or localhost (no scheme, port or path), found \"\(id.prefix(200))\"")
        }
        guard !PublicSuffixList.bundled.isListedPublicSuffix(id) else {
            throw ConfigurationError(key: key, "\(id) is a public suffix, shared by unrelated sites; use your own domain, such as example.\(id)")
        }
    }

    /// A web origin must be on the RP ID or one of its subdomains (WebAuthn L3 §5.1.3);
    /// an Android app's origin is `android:apk-key-hash:` and the base64url SHA-256 of its
    /// signing certificate.
    static func validateOrigin(_ origin: String, relyingPartyID: String, key: String) throws(ConfigurationError) {
        if origin.hasPrefix("android:apk-key-hash:") {
            let hash = origin.dropFirst("android:apk-key-hash:".count)
            guard let bytes = Base64URL.decode(hash), bytes.count == 32, !hash.contains("=") else {
                throw ConfigurationError(key: key, "android:apk-key-hash: must be followed by the unpadded base64url SHA-256 of the signing certificate")
            }
            return
        }
        guard let url = URL(string: origin), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host?.lowercased(),
            url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil
        else {
            throw ConfigurationError(key: key, "must be an origin such as https://example.com (scheme, host and optional port), found \"\(origin.prefix(200))\"")
        }
        guard host == relyingPartyID || host.hasSuffix("." + relyingPartyID) else {
            throw ConfigurationError(key: key, "\(origin) is not on the RP ID \(relyingPartyID) or a subdomain of it; set relying_party.id or the origin accordingly")
        }
        if scheme == "http" && host != "localhost" && !host.hasSuffix(".localhost") {
            throw ConfigurationError(key: key, "\(origin) uses http; browsers allow WebAuthn over http only on localhost")
        }
    }

    static func originOf(_ publicURL: String) -> String {
        guard let url = URL(string: publicURL), let scheme = url.scheme, let host = url.host else { return publicURL }
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// Environment access that records which variables were used.
    final class Environment {
        let values: [String: String]
        var used: Set<String> = []

        init(values: [String: String]) {
            self.values = values
            used = Set(values.keys.filter { $0.hasPrefix("LATCHKEY_") && $0 != "LATCHKEY_CONFIG" && $0 != "LATCHKEY_SERVER" })
        }

        subscript(name: String) -> String? {
            guard let value = values[name], !value.isEmpty else { return nil }
            return value
        }
    }
}
