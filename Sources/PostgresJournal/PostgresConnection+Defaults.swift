internal import CPostgres

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The libpq connection parameters a replica needs and libpq does not default to: libpq waits
/// for ever on a PostgreSQL host that stopped answering — to connect, and on a connection whose
/// host vanished — which would hold up whoever uses the connection (a replica's follower and
/// appender, its renewals, a clean stop) for as long as the kernel keeps trying (minutes to
/// hours). The connection string, a service file or the environment still say otherwise.
extension PostgresConnection {
    /// Every default: give up connecting after 10 s (per address tried); probe an idle
    /// connection after 10 s, every 5 s, 3 times; drop one whose sent data stays unacknowledged
    /// for 30 s. TCP only (a unix socket ignores the last four). A host that answers, however
    /// busy, acknowledges at the kernel's level, so none of these cuts off a slow statement.
    static let defaultParameters: [(keyword: String, value: String)] = [
        ("connect_timeout", "10"),
        ("keepalives_idle", "10"),
        ("keepalives_interval", "5"),
        ("keepalives_count", "3"),
        ("tcp_user_timeout", "30000"),
    ]

    /// The defaults that apply to `conninfo` in `environment`: none when a service file may set
    /// parameters (`service` in `conninfo`, or `PGSERVICE`: libpq reads the file only for
    /// parameters given nowhere else), and no `connect_timeout` when `PGCONNECT_TIMEOUT` is set.
    static func defaults(for conninfo: String, environment: (String) -> String?) -> [(keyword: String, value: String)] {
        guard !conninfo.contains("service="), environment("PGSERVICE") == nil else { return [] }
        return defaultParameters.filter { $0.keyword != "connect_timeout" || environment("PGCONNECT_TIMEOUT") == nil }
    }

    /// `PQconnectdbParams` with ``defaults(for:environment:)`` first and `conninfo` expanded as
    /// the database name (so that a URL or `key=value` pairs work as with `PQconnectdb`): libpq
    /// applies the keywords in order, so what `conninfo` says wins. An empty `conninfo` is
    /// skipped, leaving libpq's `PG*` environment variables.
    static func open(_ conninfo: String) -> OpaquePointer? {
        let defaults = defaults(for: conninfo) { name in getenv(name).map { String(cString: $0) } }
        return withCStrings(defaults.map(\.keyword) + ["dbname", nil]) { keywords in
            withCStrings(defaults.map(\.value) + [conninfo, nil]) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
    }
}
