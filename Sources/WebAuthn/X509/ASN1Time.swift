import Foundation
import SwiftASN1

/// Converts X.509 UTCTime and GeneralizedTime values to `Date` without a calendar object.
enum ASN1Time {
    /// Reads a `Time` choice (RFC 5280 §4.1.2.5).
    static func date(_ node: ASN1Node, _ what: String) throws(WebAuthnError) -> Date {
        do {
            if node.identifier == .utcTime {
                let time = try UTCTime(derEncoded: node)
                return date(time.year, time.month, time.day, time.hours, time.minutes, Double(time.seconds))
            }
            if node.identifier == .generalizedTime {
                let time = try GeneralizedTime(derEncoded: node)
                return date(time.year, time.month, time.day, time.hours, time.minutes, Double(time.seconds) + time.fractionalSeconds)
            }
        } catch {
            throw ASN1Reading.malformed("\(what) is not a valid time: \(error)")
        }
        throw ASN1Reading.malformed("\(what) must be a UTCTime or GeneralizedTime, found \(node.identifier)")
    }

    /// Seconds since 1970 for a UTC civil date (Howard Hinnant's days-from-civil).
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hours: Int, _ minutes: Int, _ seconds: Double) -> Date {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146097 + dayOfEra - 719468
        let interval = Double(days) * 86400 + Double(hours * 3600 + minutes * 60) + seconds
        return Date(timeIntervalSince1970: interval)
    }
}
