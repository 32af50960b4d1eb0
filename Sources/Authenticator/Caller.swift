import WebAuthn

/// Who asks the authenticator for a credential: a web page, or a native app through its
/// platform's API. It decides the origin members of clientDataJSON, written the way each
/// platform writes them.
public struct Caller: Sendable, Hashable {
    /// The `origin` member.
    public let origin: String
    /// The `androidPackageName` member, which Android's Credential Manager adds for apps.
    public let androidPackageName: String?
    /// Whether `crossOrigin` is written; browsers write it, native platforms do not.
    public let writesCrossOrigin: Bool

    /// A web page at `origin`, as a browser reports it.
    public static func webPage(origin: String) -> Caller {
        Caller(origin: origin, androidPackageName: nil, writesCrossOrigin: true)
    }

    /// An Android app, as Credential Manager reports it: the origin is
    /// `android:apk-key-hash:` and the base64url SHA-256 of the app's signing certificate.
    public static func androidApp(packageName: String, signingCertificateSHA256: [UInt8]) -> Caller {
        Caller(origin: "android:apk-key-hash:" + Base64URL.encode(signingCertificateSHA256), androidPackageName: packageName, writesCrossOrigin: false)
    }

    /// An Apple platform app with the `webcredentials` associated domain: the origin is
    /// `https://` and the RP ID.
    public static func appleApp(relyingPartyID: String) -> Caller {
        Caller(origin: "https://" + relyingPartyID, androidPackageName: nil, writesCrossOrigin: false)
    }

    func clientData(type: String, challenge: [UInt8]) -> [UInt8] {
        var builder = ClientDataBuilder(type: type, challenge: challenge, origin: origin, crossOrigin: writesCrossOrigin ? false : nil)
        if let androidPackageName { builder.extraMembers = [("androidPackageName", androidPackageName)] }
        return builder.build()
    }
}
