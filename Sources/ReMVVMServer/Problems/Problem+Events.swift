extension Problem {
    /// 400: `GET /events?delta=` with a value other than the ones the server knows.
    static func unknownDelta(_ value: String) -> Problem {
        Problem(
            title: "Bad Request",
            status: 400,
            detail: "delta must be \(EventFormat.deltaValues.map { "\"\($0)\"" }.joined(separator: " or ")) (JSON Patch events), or absent (full states), not \"\(value)\"",
            known: EventFormat.deltaValues,
            field: "delta"
        )
    }
}
