/// A credential ID is base64url and one in 64 begins with "-", which a command line reads as
/// an option: `latchkey admin passkeys delete USER -Ab3…` fails with a missing argument that
/// says nothing of why. The arguments cannot be told apart before parsing (the command has no
/// short options, but which tokens are option values depends on the subcommand), so when
/// parsing fails and such a token is there, the error gets a hint with the standard way out.
enum DashLedArgument {
    /// The hint for these arguments (without the program name), or nil when no token looks
    /// like an ID that begins with "-", or when a `--` already ends the options.
    static func hint(for arguments: [String]) -> String? {
        guard !arguments.contains("--") else { return nil }
        let suspects = arguments.filter(looksLikeID)
        guard !suspects.isEmpty else { return nil }
        let quoted = suspects.map { "\"\($0)\"" }.joined(separator: ", ")
        return "hint: \(quoted) begins with \"-\" and reads as an option; put IDs after \"--\" at the end, as in: latchkey admin passkeys delete --database … -- USER_ID -CREDENTIAL_ID"
    }

    /// A single dash followed by at least three base64url characters: not `-h`, not `--name`.
    static func looksLikeID(_ argument: String) -> Bool {
        guard argument.count >= 4, argument.hasPrefix("-"), !argument.hasPrefix("--") else { return false }
        return argument.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
