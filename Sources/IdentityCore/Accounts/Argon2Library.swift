#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Argon2 through the reference implementation, libargon2, found when the process first
/// needs it. No mirrored Swift package has Argon2, and an Argon2 written here would be new
/// code to trust with people's passwords. The library is opened at run time rather than
/// linked: linking would make its development package a requirement of every build
/// (`swift run latchkey serve` on a fresh machine), while only servers holding imported
/// Argon2 hashes need it, and Debian and Ubuntu install its runtime (`libargon2-1`) with
/// cryptsetup on most machines.
enum Argon2Library {
    /// `argon2_hash` from argon2.h: t_cost, m_cost (KiB), parallelism, pwd, pwdlen, salt,
    /// saltlen, hash, hashlen, encoded, encodedlen, type, version; 0 is ARGON2_OK.
    private typealias HashFunction = @convention(c) (
        UInt32, UInt32, UInt32, UnsafeRawPointer?, Int, UnsafeRawPointer?, Int, UnsafeMutableRawPointer?, Int, UnsafeMutablePointer<CChar>?, Int,
        Int32, UInt32
    ) -> Int32

    /// The library's file names, newest ABI first.
    private static let names = ["libargon2.so.1", "libargon2.so", "libargon2.1.dylib", "libargon2.dylib"]

    /// The library's `argon2_hash`, opened once; `nil` where the library is not installed.
    /// The handle stays open for the life of the process.
    private static let hash: HashFunction? = {
        for name in names {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
            guard let symbol = dlsym(handle, "argon2_hash") else {
                dlclose(handle)
                continue
            }
            return unsafeBitCast(symbol, to: HashFunction.self)
        }
        return nil
    }()

    /// Whether this machine has libargon2.
    static var isAvailable: Bool { hash != nil }

    /// What to tell an operator whose machine lacks it.
    static let installHint = "libargon2 (Debian and Ubuntu: apt-get install libargon2-1; macOS: brew install argon2)"

    /// The Argon2 variants, numbered as argon2.h's `argon2_type`.
    enum Variant: Int32, Sendable {
        case d = 0, i = 1, id = 2
    }

    /// The `length`-byte Argon2 output for `password`, or `nil` when the library is missing
    /// or refuses the parameters.
    static func derive(
        _ password: [UInt8], salt: [UInt8], variant: Variant, version: UInt32, iterations: UInt32, memoryKiB: UInt32, parallelism: UInt32, length: Int
    ) -> [UInt8]? {
        guard let hash else { return nil }
        var output = [UInt8](repeating: 0, count: length)
        let status = password.withUnsafeBytes { password in
            salt.withUnsafeBytes { salt in
                output.withUnsafeMutableBytes { output in
                    hash(
                        iterations, memoryKiB, parallelism, password.baseAddress, password.count, salt.baseAddress, salt.count, output.baseAddress,
                        output.count, nil, 0, variant.rawValue, version
                    )
                }
            }
        }
        return status == 0 ? output : nil
    }
}
