/// The proleptic Gregorian calendar's date of a day counted from 1970-01-01, by arithmetic
/// (Howard Hinnant's civil-from-days): exact for every day, and far cheaper than a
/// `Calendar`, for code that writes many UTC dates (messages here, the daily rollups).
public enum CivilDate {
    /// The year, month (1–12) and day (1–31) of the day `days` after 1970-01-01 (before it
    /// when negative).
    public static func from(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
