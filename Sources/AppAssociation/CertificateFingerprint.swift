import Foundation
import WebAuthn

/// The SHA-256 fingerprint of an Android app's signing certificate: the value `keytool`
/// prints, Digital Asset Links lists, and Android hashes into the app's WebAuthn origin.
public struct CertificateFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes.
    public let bytes: [UInt8]

    /// A reason a text is not a fingerprint, written for the person who pasted it.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Parses 32 hex bytes, with or without colons between them, in either case.
    public init(parsing text: String) throws(ParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let hex: [Character]
        if trimmed.contains(":") {
            let groups = trimmed.split(separator: ":", omittingEmptySubsequences: false)
            guard groups.allSatisfy({ $0.count == 2 }) else {
                throw ParseError(description: "colons must separate pairs of hex digits, as in 14:6D:E9:…")
            }
            hex = Array(groups.joined())
        } else {
            hex = Array(trimmed)
        }
        guard hex.allSatisfy(\.isHexDigit), hex.allSatisfy(\.isASCII) else {
            throw ParseError(description: "must contain only hex digits (0-9, A-F) and optional colons")
        }
        guard hex.count.isMultiple(of: 2) else {
            throw ParseError(description: "has an odd number of hex digits")
        }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            bytes.append(UInt8(String(hex[index...index + 1]), radix: 16)!)
            index += 2
        }
        if bytes.count == 20 {
            throw ParseError(description: "is 20 bytes, a SHA-1 fingerprint; use the SHA256 line that keytool -list -v prints (32 bytes)")
        }
        guard bytes.count == 32 else {
            throw ParseError(description: "is \(bytes.count) bytes; a SHA-256 fingerprint is 32 bytes (64 hex digits)")
        }
        self.bytes = bytes
    }

    /// Creates a fingerprint from the SHA-256 of a certificate.
    public init(sha256: [UInt8]) {
        precondition(sha256.count == 32, "a SHA-256 fingerprint is 32 bytes")
        bytes = sha256
    }

    /// Uppercase hex pairs separated by colons, the form Digital Asset Links uses.
    public var description: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    /// The origin Android reports in clientDataJSON for an app signed with this certificate:
    /// `android:apk-key-hash:` and the unpadded base64url of the fingerprint.
    public var androidOrigin: String { "android:apk-key-hash:" + Base64URL.encode(bytes) }
}
