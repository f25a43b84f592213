@testable import PostgresJournal
import Testing

/// libpq quotes a connection string it cannot parse, or its faulty part, and its messages reach
/// `/healthz`, problem details and logs: the password never does (from a review: a
/// `postgresURL` with a malformed host, or an unencoded `%` in the password, showed it).
@Suite struct PostgresRedactionTests {
    @Test(arguments: [
        ("postgresql://remvvm:S3cretPW@[::1:5432/remvvm", "S3cretPW"),
        ("postgresql://remvvm:My%Secret@/remvvm?host=/nonexistent", "My%Secret"),
        ("postgres://u:p@ss@host/db", "p@ss"),
        ("host=/tmp dbname=x password=S3cretPW user=remvvm", "S3cretPW"),
        ("host=/tmp password = 'se cret' dbname=x", "se cret"),
    ])
    func thePasswordOfAConnectionStringIsFound(conninfo: String, password: String) {
        #expect(PostgresConnection.password(in: conninfo) == password)
    }

    @Test func stringsWithoutAPasswordHaveNone() {
        for conninfo in ["", "postgresql://remvvm@/db", "host=/tmp passfile=/x dbname=password", "postgresql:///db?host=/tmp"] {
            #expect(PostgresConnection.password(in: conninfo) == nil, "\(conninfo)")
        }
    }

    @Test(arguments: [
        "postgresql://remvvm:S3cretPW@[::1:5432/remvvm",
        "postgresql://remvvm:My%Secret@/remvvm?host=/nonexistent",
        "host=/nonexistent password=S3cretPW dbname=x connect_timeout=1 bogus=1",
    ])
    func aConnectionThatFailsNeverShowsThePassword(conninfo: String) throws {
        let error = try #require(throws: PostgresLogError.self) { _ = try PostgresConnection(conninfo: conninfo) }
        let password = try #require(PostgresConnection.password(in: conninfo))
        #expect(!error.message.contains(password), "\(error.message)")
    }

    @Test func libpqsContinuationLinesJoinTheFirst() {
        let message = "connection to server failed: No such file or directory\n\tIs the server running locally?\nLINE 1: SELECT"
        #expect(PostgresConnection.oneLine(message) == "connection to server failed: No such file or directory Is the server running locally? LINE 1: SELECT")
    }
}
