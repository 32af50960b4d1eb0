import AppAssociation
import Testing

@Suite("Signing-certificate fingerprints")
struct CertificateFingerprintTests {
    static let colons = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

    @Test(arguments: [
        colons,
        colons.lowercased(),
        colons.replacingOccurrences(of: ":", with: ""),
        colons.replacingOccurrences(of: ":", with: "").lowercased(),
        " " + colons + " ",
    ])
    func everyWrittenFormParsesToTheCanonicalOne(_ text: String) throws {
        let fingerprint = try CertificateFingerprint(parsing: text)
        #expect(fingerprint.description == Self.colons)
        // The origin Android's documentation gives for this certificate, in base64url.
        #expect(fingerprint.androidOrigin == "android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU")
    }

    @Test(arguments: [
        ("", "0 bytes"),
        ("14:6D:E9", "3 bytes"),
        ("14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42", "SHA-1"),
        (String(repeating: "G", count: 64), "hex digits"),
        ("146:DE9", "pairs"),
        (String(repeating: "A", count: 63), "odd"),
        (colons + ":00", "33 bytes"),
    ])
    func badFingerprintsSayWhatIsWrong(_ text: String, _ expected: String) {
        do {
            _ = try CertificateFingerprint(parsing: text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }
}
