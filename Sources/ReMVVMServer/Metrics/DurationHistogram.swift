import ConcurrencyKit
import Synchronization

/// A Prometheus histogram of durations recorded on every answer (`http_request_duration_seconds`),
/// with one atomic add per bucket hit and no lock: swift-prometheus' histogram takes a lock and
/// compares the value with every bucket as 128-bit `Duration`s (about 1,000 instructions an
/// answer, half the cost of the metrics; `docs/benchmarks.md`).
///
/// Buckets are counted apart (an observation in the first bucket it fits) and summed up when
/// rendered; `_count` is the `+Inf` bucket's sum, so a scrape that races a record shows a count
/// that matches its buckets (the sum may be a record ahead or behind).
final class DurationHistogram: Sendable {
    /// One bucket's count.
    private final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    /// The label pairs, rendered: `method="GET",route="/state"`.
    let labels: String
    /// The upper bounds, in nanoseconds, ascending.
    private let bounds: [Int64]
    /// Each bound's text (`le`), in seconds.
    private let boundTexts: [String]
    /// One count per bound, then the `+Inf` bucket.
    private let counts: [Count]
    private let sumNanoseconds = Atomic<Int64>(0)

    init(labels: String, bounds: [Duration]) {
        self.labels = labels
        self.bounds = bounds.map(\.wholeNanoseconds)
        boundTexts = bounds.map { Self.seconds(nanoseconds: $0.wholeNanoseconds) }
        counts = (0...bounds.count).map { _ in Count() }
    }

    /// Records one duration of `nanoseconds`.
    func record(nanoseconds: Int64) {
        var index = 0
        while index < bounds.count, nanoseconds > bounds[index] {
            index += 1
        }
        counts[index].value.add(1, ordering: .relaxed)
        sumNanoseconds.add(nanoseconds, ordering: .relaxed)
    }

    /// Records `duration`.
    func record(_ duration: Duration) {
        record(nanoseconds: duration.wholeNanoseconds)
    }

    /// Its samples in the Prometheus text format, under `name`: cumulative buckets, `_sum`, `_count`.
    func render(name: String, into text: inout String) {
        var cumulative = 0
        for index in counts.indices {
            cumulative += counts[index].value.load(ordering: .relaxed)
            let bound = index < boundTexts.count ? boundTexts[index] : "+Inf"
            text += "\(name)_bucket{\(labels),le=\"\(bound)\"} \(cumulative)\n"
        }
        text += "\(name)_sum{\(labels)} \(Self.seconds(nanoseconds: sumNanoseconds.load(ordering: .relaxed)))\n"
        text += "\(name)_count{\(labels)} \(cumulative)\n"
    }

    /// `nanoseconds` as seconds in decimal, exactly: `0.000083015`, `1.0`.
    static func seconds(nanoseconds: Int64) -> String {
        let sign = nanoseconds < 0 ? "-" : ""
        let magnitude = nanoseconds.magnitude
        var fraction = String(magnitude % 1_000_000_000)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.count > 1, fraction.hasSuffix("0") {
            fraction.removeLast()
        }
        return "\(sign)\(magnitude / 1_000_000_000).\(fraction)"
    }
}

/// The histograms of one family (`http_request_duration_seconds`), made up front and rendered
/// together after the registry's families (``ServiceMetrics/render(storeVersion:subscribers:viewModelStreams:backendGauges:)``).
final class DurationHistogramFamily: Sendable {
    /// The family's name.
    let name: String
    private let bounds: [Duration]
    /// The histograms in the order made, and by their rendered labels.
    private let members = Lock<(ordered: [DurationHistogram], byLabels: [String: DurationHistogram])>(([], [:]))

    init(name: String, bounds: [Duration]) {
        self.name = name
        self.bounds = bounds
    }

    /// The family's histogram with `labels` (pairs, rendered in this order, values escaped as
    /// the text format asks): made at the first call, the same one after (as the registry
    /// does for its own metrics: two routers of one service count into the same series).
    func histogram(labels: [(String, String)]) -> DurationHistogram {
        let rendered = labels.map { "\($0.0)=\"\(Self.escaped($0.1))\"" }.joined(separator: ",")
        return members.withLock { members in
            if let existing = members.byLabels[rendered] { return existing }
            let made = DurationHistogram(labels: rendered, bounds: bounds)
            members.ordered.append(made)
            members.byLabels[rendered] = made
            return made
        }
    }

    /// A label value with `\\`, `"` and line feeds escaped.
    static func escaped(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// The family's `# TYPE` line and every member's samples; nothing when it has no member.
    func render() -> String {
        let histograms = members.withLock { $0.ordered }
        guard !histograms.isEmpty else { return "" }
        var text = "# TYPE \(name) histogram\n"
        for histogram in histograms {
            histogram.render(name: name, into: &text)
        }
        return text
    }
}
