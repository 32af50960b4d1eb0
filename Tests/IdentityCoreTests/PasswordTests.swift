import Foundation
import Testing
@testable import IdentityCore

/// scrypt hashes in PHC form against RFC 7914's vector, and the NIST SP 800-63B policy.
@Suite struct PasswordTests {
    /// RFC 7914 §12: scrypt("password", "NaCl", N=1024, r=8, p=16, dkLen=64).
    static let rfcVector = "$scrypt$ln=10,r=8,p=16$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWIurzDZLiKjiG/xCSedmDDaxyevuUqD7m2DYMvfoswGQA"

    @Test func verifiesTheRFCVector() {
        #expect(PasswordHasher.verify("password", against: Self.rfcVector))
        #expect(!PasswordHasher.verify("passwore", against: Self.rfcVector))
        #expect(!PasswordHasher.verify("", against: Self.rfcVector))
    }

    @Test func hashesWithTheirOwnParametersAndSalt() throws {
        let hasher = PasswordHasher(logRounds: 10, blockSize: 8, parallelism: 1)
        let first = try hasher.hash("correct horse battery", salt: Array(repeating: 1, count: 16))
        let second = try hasher.hash("correct horse battery", salt: Array(repeating: 2, count: 16))
        #expect(first.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        #expect(first != second, "the salt changes the hash")
        #expect(PasswordHasher.verify("correct horse battery", against: first))
        #expect(PasswordHasher.verify("correct horse battery", against: second))
        #expect(!PasswordHasher.verify("correct horse battery ", against: first))
        // Parameters live in the hash: the standard hasher's hashes verify the same way.
        let standard = try PasswordHasher.standard.hash("ünïcödé pässwörd", salt: Array(repeating: 3, count: 16))
        #expect(standard.hasPrefix("$scrypt$ln=15,r=8,p=1$"))
        #expect(PasswordHasher.verify("ünïcödé pässwörd", against: standard))
    }

    @Test(arguments: [
        "", "scrypt", "$scrypt$ln=10,r=8,p=16$TmFDbA", "$bcrypt$ln=10,r=8,p=16$TmFDbA$AAAA",
        "$scrypt$ln=10,r=8$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWI",
        "$scrypt$ln=30,r=8,p=1$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWI",
        "$scrypt$ln=10,r=64,p=1$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWI",
        "$scrypt$ln=10,r=8,p=1$$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWI",
        "$scrypt$ln=10,r=8,p=1$TmFDbA$AAAA",
        "$scrypt$ln=10,r=8,p=1,x=2$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWI",
        "$scrypt$ln=ten,r=8,p=1$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWI",
    ])
    func malformedOrExcessiveHashesMatchNothing(_ encoded: String) {
        #expect(!PasswordHasher.verify("password", against: encoded))
    }

    @Test func policyFollowsNIST() throws {
        for good in ["8 chars!", "lowercase words only please", "Tr0ub4dor&3", String(repeating: "é", count: 1024)] {
            try PasswordPolicy.check(good)
        }
        for (bad, rule) in [("short", "at least 8"), ("seven77", "at least 8"), (String(repeating: "a", count: 1025), "at most 1024"),
                            ("password", "most common"), ("PASSWORD", "most common"), ("iloveyou", "most common"), ("12345678", "most common")] {
            #expect { try PasswordPolicy.check(bad) } throws: { error in
                guard let error = error as? IdentityError else { return false }
                return error.code == .invalidPassword && error.message.contains(rule)
            }
        }
        #expect(PasswordPolicy.commonPasswords.count > 9_000, "the shipped list loaded")
    }
}
