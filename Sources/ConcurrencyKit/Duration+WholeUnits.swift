extension Duration {
    /// The duration in whole milliseconds, rounded toward zero (`retry:` fields, retention
    /// cut-offs against millisecond timestamps, PostgreSQL's timeouts).
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// The duration in whole nanoseconds, rounded toward zero (swift-metrics timers).
    package var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
