/// The version `latchkey --version` prints; raised with each release.
enum LatchkeyVersion {
    static let current = "0.14.0"
}
