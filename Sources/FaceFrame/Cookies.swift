import Foundation
import HTTPTypes
package import Hummingbird

/// Reading the `Cookie` header and writing `Set-Cookie` (RFC 6265).
package enum Cookies {
    /// The value of the cookie `name`, if the request carries it once.
    package static func value(_ name: String, in request: Request) -> String? {
        var found: [String] = []
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
                found.append(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        // Two cookies of one name mean someone planted one (a sibling subdomain can); trust neither.
        return found.count == 1 ? found[0] : nil
    }

    /// A `Set-Cookie` value: `Path=/` unless another is given, always `HttpOnly`; `Secure`
    /// when asked.
    package static func setCookie(_ name: String, _ value: String, maxAge: Int?, sameSite: String, secure: Bool, path: String = "/") -> String {
        var parts = ["\(name)=\(value)", "Path=\(path)", "HttpOnly", "SameSite=\(sameSite)"]
        if let maxAge { parts.append("Max-Age=\(maxAge)") }
        if secure { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }
}
