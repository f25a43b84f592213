public import Testing

extension Tag {
    /// Long load tests (many threads, clients and subscribers for seconds): a label for IDEs. What
    /// leaves a suite out of a quick run is its name, which must end in `LoadTests`
    /// (`scripts/test.sh --quick` runs `swift test --skip 'LoadTests/'`; Swift 6.3's `swift test`
    /// cannot select by tag: `--filter tag:load` selects nothing). CI runs everything.
    @Tag public static var load: Self
}
