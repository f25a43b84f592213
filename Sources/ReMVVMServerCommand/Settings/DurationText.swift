/// Durations as settings write them: a whole number with a unit — `90s`, `30m`, `24h`, `7d` — or a
/// bare number of seconds.
enum DurationText {
    private static let units: [(suffix: Character, seconds: Int64)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]

    /// The duration `text` names, or nil when it is not a whole number with an optional unit.
    static func parse(_ text: String) -> Duration? {
        var digits = Substring(text.trimmingCharacters(in: " "))
        var unit: Int64 = 1
        if let last = digits.last, let match = units.first(where: { $0.suffix == Character(last.lowercased()) }) {
            unit = match.seconds
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let count = Int64(digits), count >= 0 else { return nil }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: unit)
        return overflow ? nil : .seconds(seconds)
    }

    /// `duration` in the largest unit that divides it (whole seconds).
    static func format(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        for unit in units where seconds != 0 && seconds % unit.seconds == 0 {
            return "\(seconds / unit.seconds)\(unit.suffix)"
        }
        return "\(seconds)s"
    }
}

private extension String {
    func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
