import Foundation
import Testing
@testable import IdentityCore

/// Password hashes other identity servers export, against published vectors: the
/// crypt_blowfish test vector for bcrypt, RFC 6070 (PBKDF2-SHA1) and RFC 7914 §11
/// (PBKDF2-SHA256) in the PHC form Kratos and Auth0 write, and the Argon2 reference
/// implementation's own test vectors (its `test.c`).
@Suite struct ImportedPasswordHashTests {
    static let vectors: [(password: String, hash: String, scheme: ImportedPasswordHash.Scheme)] = [
        ("U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", .bcrypt),
        ("password", "$pbkdf2-sha1$i=4096,l=20$c2FsdA$SwB5AbdlSJq+rUnZJvch0GWkKcE", .pbkdf2),
        // Padded, and with the URL alphabet: both spellings exports use.
        ("password", "$pbkdf2-sha1$i=4096,l=20$c2FsdA==$SwB5AbdlSJq-rUnZJvch0GWkKcE=", .pbkdf2),
        // `l` is what the key says, as Kratos reads it; Auth0 leaves `i` out for 100,000 only.
        (
            "passwd", "$pbkdf2-sha256$i=1,l=32$c2FsdA$VawEblbjCJ/sFpHCJUS2BflBhSFt3gRl5oudV8INrLxJypzM8Xm2RZkWZLOdd+8xfHG4RbHjC9UJESBB06GXgw",
            .pbkdf2
        ),
        ("password", "$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA", .argon2),
        ("password", "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc", .argon2),
        // Without `v`, version 1.0 (0x10).
        ("password", "$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ", .argon2),
    ]

    /// The machine the tests run on has libargon2 (scripts/test.sh installs it), so every
    /// form verifies; an import elsewhere refuses the record rather than drop the password.
    @Test func argon2IsAvailableWhereTheTestsRun() {
        #expect(ImportedPasswordHash.canVerify(Self.vectors[4].hash), "libargon2.so.1 did not load: \(ImportedPasswordHash.argon2Requirement)")
        #expect(ImportedPasswordHash.canVerify(Self.vectors[0].hash))
    }

    @Test func publishedVectorsVerify() {
        for vector in Self.vectors {
            #expect(ImportedPasswordHash.scheme(of: vector.hash) == vector.scheme, "\(vector.hash)")
            #expect(PasswordHasher.verify(vector.password, against: vector.hash), "\(vector.hash)")
            #expect(!PasswordHasher.verify(vector.password + " ", against: vector.hash), "\(vector.hash)")
            #expect(PasswordHasher.standard.needsRehash(vector.hash))
        }
    }

    @Test func kratosScryptNamesNItself() throws {
        let own = try PasswordHasher(logRounds: 10, blockSize: 8, parallelism: 1).hash("correct horse", salt: Array(repeating: 7, count: 16))
        let kratos = own.replacingOccurrences(of: "ln=10,", with: "ln=1024,")
        #expect(PasswordHasher.verify("correct horse", against: kratos))
        #expect(PasswordHasher.standard.needsRehash(kratos) && PasswordHasher.standard.needsRehash(own))
        #expect(!PasswordHasher.standard.needsRehash(try PasswordHasher.standard.hash("correct horse", salt: Array(repeating: 7, count: 16))))
    }

    /// Forms this build does not verify, and parameters that would let one attempt hold a
    /// hashing thread for minutes: no scheme, and nothing matches.
    @Test(arguments: [
        "$2a$15$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2a$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2x$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOe",
        "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOe!",
        "$pbkdf2-sha1$i=20000000,l=20$c2FsdA$SwB5AbdlSJq+rUnZJvch0GWkKcE",
        "$pbkdf2-sha384$i=4096,l=20$c2FsdA$SwB5AbdlSJq+rUnZJvch0GWkKcE",
        "$pbkdf2-sha1$i=4096,l=20$$SwB5AbdlSJq+rUnZJvch0GWkKcE",
        "$pbkdf2-sha1$i=4096,l=20$c2FsdA$AAAA",
        "$pbkdf2-sha1$i=four,l=20$c2FsdA$SwB5AbdlSJq+rUnZJvch0GWkKcE",
        "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo",
        "$argon2id$v=19$m=4194304,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
        "$argon2id$v=19$m=65536,t=1000,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
        "$argon2id$v=18$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
        "$argon2x$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
        "$argon2id$v=19$m=65536,t=2$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
        "$argon2id$v=19$m=8,t=2,p=4$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
        "{SSHA}aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoMTIzNA==",
        "5f4dcc3b5aa765d61d8327deb882cf99",
    ])
    func unsupportedAndExcessiveHashesMatchNothing(_ encoded: String) {
        #expect(ImportedPasswordHash.scheme(of: encoded) == nil)
        #expect(!PasswordHasher.verify("U*U", against: encoded))
        #expect(!PasswordHasher.verify("password", against: encoded))
    }
}
