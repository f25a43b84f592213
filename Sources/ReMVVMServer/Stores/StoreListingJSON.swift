import Journal

/// The JSON of store descriptions (`GET /stores/{id}`, `GET /stores`): `{"id", "version",
/// "createdAt", "lastActionAt", "loaded"}`, times as RFC 3339 UTC strings with milliseconds
/// (`"2026-11-28T10:31:07.250Z"`), `lastActionAt` null before the first action.
enum StoreListingJSON {
    /// One store's object.
    static func object(_ description: StoreDescription, loaded: Bool) -> [UInt8] {
        var bytes = Array(#"{"id":"#.utf8)
        bytes += JSONCoding.string(description.id.rawValue)
        bytes += Array(#","version":\#(description.version),"createdAt":"#.utf8)
        bytes += timestamp(description.createdAt)
        bytes += Array(#","lastActionAt":"#.utf8)
        bytes += description.lastActionAt.map(timestamp) ?? Array("null".utf8)
        bytes += Array(#","loaded":\#(loaded)}"#.utf8)
        return bytes
    }

    /// A page of `GET /stores`.
    static func page(_ stores: [(StoreDescription, Bool)], next: StoreID?) -> [UInt8] {
        var bytes = Array(#"{"stores":["#.utf8)
        for (index, (description, loaded)) in stores.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += object(description, loaded: loaded)
        }
        bytes += Array(#"],"next":"#.utf8)
        bytes += next.map { JSONCoding.string($0.rawValue) } ?? Array("null".utf8)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// `milliseconds` since 1970 as a quoted RFC 3339 UTC time with milliseconds.
    static func timestamp(_ milliseconds: Int64) -> [UInt8] {
        let (days, dayMilliseconds) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, millisecond) = dayMilliseconds < 0 ? (days - 1, dayMilliseconds + 86_400_000) : (days, dayMilliseconds)
        let (year, month, dayOfMonth) = civilDate(daysSince1970: day)
        let second = millisecond / 1_000
        func digits(_ value: Int64, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        let text = "\"\(digits(year, 4))-\(digits(month, 2))-\(digits(dayOfMonth, 2))T"
            + "\(digits(second / 3_600, 2)):\(digits(second / 60 % 60, 2)):\(digits(second % 60, 2))"
            + ".\(digits(millisecond % 1_000, 3))Z\""
        return Array(text.utf8)
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01 (H. Hinnant's
    /// `civil_from_days`, http://howardhinnant.github.io/date_algorithms.html).
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
