/// The value of the sample `name{labels}` (labels in any order), or nil when absent.
func metricSample(_ text: String, _ name: String, _ labels: [String: String] = [:]) -> Double? {
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        guard let space = line.lastIndex(of: " ") else { continue }
        let series = line[..<space]
        let seriesName = series.split(separator: "{", maxSplits: 1).first.map(String.init) ?? ""
        guard seriesName == name else { continue }
        let labelText = series.contains("{") ? String(series.drop { $0 != "{" }.dropFirst().dropLast()) : ""
        var found: [String: String] = [:]
        for pair in labelText.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { found[String(parts[0])] = String(parts[1].dropFirst().dropLast()) }
        }
        if found == labels { return Double(line[line.index(after: space)...]) }
    }
    return nil
}
