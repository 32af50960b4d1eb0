/// Limits on the keys and algorithms a relying party accepts.
public struct KeyPolicy: Sendable, Hashable {
    /// The smallest RSA modulus accepted, in bits. 2048 by default.
    public var minimumRSAModulusBits: Int
    /// Whether RS1 (RSASSA-PKCS1-v1_5 with SHA-1) is accepted. Only legacy TPMs produce
    /// it, so it is accepted only for `tpm` attestations and the credentials they create.
    public var allowsLegacyRS1ForTPM: Bool

    public init(minimumRSAModulusBits: Int = 2048, allowsLegacyRS1ForTPM: Bool = false) {
        self.minimumRSAModulusBits = minimumRSAModulusBits
        self.allowsLegacyRS1ForTPM = allowsLegacyRS1ForTPM
    }
}
