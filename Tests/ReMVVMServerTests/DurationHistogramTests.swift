import Testing
@testable import ReMVVMServer

/// `http_request_duration_seconds`' own histogram: the text format's rules for buckets, sum and
/// count, without the registry.
@Suite struct DurationHistogramTests {
    private func lines(_ family: DurationHistogramFamily) -> [String] {
        family.render().split(separator: "\n").map(String.init)
    }

    @Test func aDurationCountsInEveryBucketItFitsAndTheCountIsTheInfBucket() {
        let family = DurationHistogramFamily(name: "d", bounds: [.milliseconds(1), .milliseconds(5)])
        let histogram = family.histogram(labels: [("method", "GET"), ("route", "/state")])
        histogram.record(.microseconds(300))
        histogram.record(.milliseconds(1))  // on the bound: `le` means at most
        histogram.record(.milliseconds(2))
        histogram.record(.seconds(3))
        #expect(lines(family) == [
            "# TYPE d histogram",
            #"d_bucket{method="GET",route="/state",le="0.001"} 2"#,
            #"d_bucket{method="GET",route="/state",le="0.005"} 3"#,
            #"d_bucket{method="GET",route="/state",le="+Inf"} 4"#,
            #"d_sum{method="GET",route="/state"} 3.0033"#,
            #"d_count{method="GET",route="/state"} 4"#,
        ])
    }

    @Test func secondsAreWrittenExactly() {
        #expect(DurationHistogram.seconds(nanoseconds: 83_015) == "0.000083015")
        #expect(DurationHistogram.seconds(nanoseconds: 1_000_000_000) == "1.0")
        #expect(DurationHistogram.seconds(nanoseconds: 0) == "0.0")
        #expect(DurationHistogram.seconds(nanoseconds: 12_500_000_000) == "12.5")
    }

    @Test func theSameLabelsGiveTheSameHistogramAndOneSeries() {
        let family = DurationHistogramFamily(name: "d", bounds: [.seconds(1)])
        let first = family.histogram(labels: [("route", "/a")])
        let second = family.histogram(labels: [("route", "/a")])
        #expect(first === second)
        first.record(.milliseconds(1))
        second.record(.milliseconds(1))
        #expect(lines(family).filter { $0.hasPrefix("d_count") } == [#"d_count{route="/a"} 2"#])
    }

    @Test func labelValuesAreEscapedAndAnEmptyFamilyRendersNothing() {
        let family = DurationHistogramFamily(name: "d", bounds: [])
        #expect(family.render().isEmpty)
        _ = family.histogram(labels: [("route", "a\"b\\c\nd")])
        #expect(lines(family).contains(#"d_count{route="a\"b\\c\nd"} 0"#))
    }
}
