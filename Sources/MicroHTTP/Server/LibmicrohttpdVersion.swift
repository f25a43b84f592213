internal import CMicroHTTPD

/// The libmicrohttpd this process runs on, and whether direct stream writes were verified
/// against it.
///
/// Direct writes (`docs/event-delivery.md`) write to a suspended connection's socket behind
/// libmicrohttpd's back; they rely on how 0.9.75 handles suspended connections and its write
/// buffer, read in its source. Another version may differ, so it gets the slower path through
/// libmicrohttpd, which only uses its public API, until someone reads that version and adds it here.
enum LibmicrohttpdVersion {
    /// Versions whose source was read for direct writes and that the test suite passed on.
    static let verifiedForDirectWrites: Set<String> = ["0.9.75"]

    /// The version of the library loaded at run time (not the headers built against).
    static var loaded: String {
        guard let version = MHD_get_version() else { return "unknown" }
        return String(cString: version)
    }

    /// Whether direct writes may be used on `version`.
    static func allowsDirectWrites(_ version: String) -> Bool {
        verifiedForDirectWrites.contains(version)
    }
}
