package import Foundation

/// Times as the faces write them: RFC 3339 in UTC with milliseconds.
package enum WireTime {
    package static func text(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// Milliseconds since 1970, as IDaaS writes `expires` and `time`.
    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
