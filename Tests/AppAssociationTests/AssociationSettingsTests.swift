import AppAssociation
import Testing

@Suite("Association settings: documents and derived origins")
struct AssociationSettingsTests {
    static let playKey = try! CertificateFingerprint(parsing: CertificateFingerprintTests.colons)
    static let uploadKey = try! CertificateFingerprint(parsing: String(repeating: "AB", count: 32))

    static let settings = AssociationSettings(
        relyingPartyID: "example.com",
        appleApps: [AppleApp(teamID: "ABCDE12345", bundleIDs: ["com.example.shiny", "com.example.shiny.beta"], appLinkPaths: ["/open/*"])],
        androidApps: [
            AndroidApp(packageName: "com.example.shiny", fingerprints: [playKey, uploadKey]),
            AndroidApp(packageName: "com.example.lite", fingerprints: [playKey]),
        ],
        relatedOrigins: ["https://example.co.uk"],
        passkeyEndpoints: PasskeyEndpoints(enroll: "https://example.com/account/passkeys/new", manage: "https://example.com/account/passkeys")
    )

    @Test func documentsAreDerivedFromTheApps() throws {
        let aasa = try #require(Self.settings.appleAppSiteAssociation)
        #expect(
            String(decoding: AssociationSettings.jsonBytes(aasa), as: UTF8.self)
                == #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.shiny","ABCDE12345.com.example.shiny.beta"],"components":[{"/":"/open/*"}]}]},"webcredentials":{"apps":["ABCDE12345.com.example.shiny","ABCDE12345.com.example.shiny.beta"]}}"#
        )
        let links = try #require(Self.settings.assetLinks)
        #expect(links.count == 2)
        #expect(links[0].relation == ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"])
        #expect(links[0].target?.sha256_cert_fingerprints == [Self.playKey.description, Self.uploadKey.description])
        #expect(links[1].target?.package_name == "com.example.lite")
        #expect(String(decoding: AssociationSettings.jsonBytes(try #require(Self.settings.relatedOriginsDocument)), as: UTF8.self) == #"{"origins":["https://example.co.uk"]}"#)
    }

    @Test func nothingConfiguredMeansNoDocuments() {
        let empty = AssociationSettings(relyingPartyID: "example.com", passkeyEndpoints: PasskeyEndpoints(enroll: nil, manage: nil))
        #expect(empty.appleAppSiteAssociation == nil)
        #expect(empty.assetLinks == nil)
        #expect(empty.relatedOriginsDocument == nil)
        #expect(empty.derivedOrigins.isEmpty)
        #expect(String(decoding: AssociationSettings.jsonBytes(empty.passkeyEndpoints), as: UTF8.self) == "{}")
    }

    @Test func originsAreDerivedOnceFromEachFact() {
        let origins = Self.settings.derivedOrigins.map(\.origin)
        #expect(origins == [
            "https://example.com",
            Self.playKey.androidOrigin, Self.uploadKey.androidOrigin,
            Self.playKey.androidOrigin,
            "https://example.co.uk",
        ])
        // Two apps signed with the same key share its origin; each may name itself.
        #expect(Self.settings.androidPackagesByOrigin[Self.playKey.androidOrigin] == ["com.example.shiny", "com.example.lite"])
        #expect(Self.settings.androidPackagesByOrigin[Self.uploadKey.androidOrigin] == ["com.example.shiny"])
    }

    @Test func relatedOriginsBeyondFiveLabelsAreFlagged() {
        let origins = ["https://example.co.uk", "https://example.de", "https://a.com", "https://b.com", "https://c.com", "https://d.com", "https://e.com", "https://www.example.fr"]
        // example.co.uk, example.de and www.example.fr share the label "example", so e.com
        // is the sixth label and the French site still counts.
        #expect(RelatedOrigins.originsBeyondLabelLimit(origins) == ["https://e.com"])
        #expect(RelatedOrigins.originsBeyondLabelLimit(Array(origins.prefix(6))).isEmpty)
    }

    @Test func appIDsAndPackageNames() {
        #expect(AppleApp.validateTeamID("abcde12345") == "ABCDE12345")
        #expect(AppleApp.validateTeamID("ABCDE1234") == nil)
        #expect(AppleApp.validateTeamID("ABCDE-2345") == nil)
        #expect(AppleApp.splitAppID("ABCDE12345.com.example.app")?.bundleID == "com.example.app")
        #expect(AppleApp.splitAppID("com.example.app") == nil)
        #expect(AndroidApp.validatePackageName("com.example.app_2"))
        #expect(!AndroidApp.validatePackageName("example"))
        #expect(!AndroidApp.validatePackageName("com.*"))
        #expect(!AndroidApp.validatePackageName("com.1example"))
        #expect(WebOriginText("https://example.com")?.isPotentiallyTrustworthy == true)
        #expect(WebOriginText("http://example.com")?.isPotentiallyTrustworthy == false)
        #expect(WebOriginText("https://example.com/path") == nil)
    }
}
