public import Testing

extension Tag {
    /// Long load tests (many threads, clients and subscribers for seconds). Their suites are named
    /// `…LoadTests`, so a quick run leaves them out with `swift test --skip LoadTests`
    /// (`scripts/test.sh --quick`); CI runs everything.
    @Tag public static var load: Self
}
