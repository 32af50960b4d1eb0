import Foundation
import Testing
import WebAuthn
import WebAuthnCorpus

/// A real Android device's registration from an app (origin `android:apk-key-hash:…`,
/// `androidPackageName` in clientDataJSON), checked against app configurations.
@Suite("Android app origins on a real device's registration")
struct AndroidAppOriginTests {
    static let caseID = "swa-verifyRegistrationResponse-should-return-authenticator-extension-output"
    static let appOrigin = "android:apk-key-hash:gx7sq_pxhxhrIQdLyfG0pxKwiJ7hOk2DJQ4xvKd438Q"
    static let package = "com.fido.example.fido2apiexample"

    private func verify(origins: [String], packages: [String: Set<String>]) throws(WebAuthnError) -> VerifiedRegistration {
        guard let entry = CorpusFixture.cases.first(where: { $0.id == Self.caseID })?.entry, case .valid(let corpusCase) = entry else {
            throw WebAuthnError(.malformedResponse, "corpus case \(Self.caseID) is missing")
        }
        let policy = RelyingPartyPolicy(
            relyingPartyIDs: corpusCase.expected.rpId.values,
            origins: OriginPolicy(origins, androidPackageNames: packages, sourceDescription: "the test's app configuration")
        )
        let response = try RegistrationResponseJSON.decode(from: corpusCase.response.data())
        let ceremony = RegistrationCeremony(challenge: Base64URL.decode(corpusCase.expected.challenge) ?? [], userVerification: .required)
        return try WebAuthnVerifier(policy: policy).verifyRegistration(response, for: ceremony, at: Date())
    }

    @Test func theConfiguredAppIsAccepted() throws {
        let result = try verify(origins: [Self.appOrigin], packages: [Self.appOrigin: [Self.package, "com.example.sibling"]])
        #expect(result.origin == Self.appOrigin)
    }

    private func failure(origins: [String], packages: [String: Set<String>]) -> WebAuthnError? {
        do {
            _ = try verify(origins: origins, packages: packages)
            return nil
        } catch {
            return error
        }
    }

    @Test func anotherAppSignedWithTheSameKeyIsNot() throws {
        let error = try #require(failure(origins: [Self.appOrigin], packages: [Self.appOrigin: ["com.example.other"]]))
        #expect(error.code == .androidPackageNotAllowed)
        #expect(error.reason.contains(Self.package) && error.reason.contains("com.example.other"))
    }

    @Test func anUnconfiguredCertificateIsRejectedNamingTheOrigin() throws {
        let error = try #require(failure(origins: ["https://try-webauthn.appspot.com"], packages: [:]))
        #expect(error.code == .originNotAllowed)
        #expect(error.reason.contains(Self.appOrigin))
        #expect(error.reason.contains("the test's app configuration"))
    }

    @Test func anOriginWithoutPackageBindingAcceptsAnyPackage() throws {
        let result = try verify(origins: [Self.appOrigin], packages: [:])
        #expect(result.origin == Self.appOrigin, "verified as the app's origin, whatever its package")
    }
}
