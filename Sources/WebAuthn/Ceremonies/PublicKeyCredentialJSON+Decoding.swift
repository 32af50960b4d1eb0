public import Foundation
public import LatchkeyWire

extension PublicKeyCredentialJSON {
    /// Decodes the JSON, mapping any failure to ``WebAuthnError/Code/malformedResponse``
    /// with the member that was wrong.
    public static func decode(from json: Data) throws(WebAuthnError) -> Self {
        do {
            return try JSONDecoder().decode(Self.self, from: json)
        } catch let error as DecodingError {
            throw WebAuthnError(.malformedResponse, DecodingErrorDescription.describe(error))
        } catch {
            throw WebAuthnError(.malformedResponse, "the response is not valid JSON")
        }
    }
}
