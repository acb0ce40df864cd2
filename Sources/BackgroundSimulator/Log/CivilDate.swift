/// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`): wall-clock dates for scenarios and timelines without Foundation's
/// calendars, so they never depend on the machine's locale or time zone.
func civilDate(daysSince1970 days: Int64) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shifted = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shifted + 2) / 5 + 1
    let month = shifted < 10 ? shifted + 3 : shifted - 9
    return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
}
