@testable import PostgresJournal
import Testing

/// libpq quotes a connection string it cannot parse, or its faulty part, and its messages reach
/// `/healthz`, problem details and logs: the password never does (from reviews: a `postgresURL`
/// with a malformed host, an unencoded `%` in the password, a password holding `/` that libpq
/// reads as a port, a `?password=` parameter, all showed it or a piece of it).
@Suite struct PostgresRedactionTests {
    @Test(arguments: [
        ("postgresql://remvvm:S3cretPW@[::1:5432/remvvm", "S3cretPW"),
        ("postgresql://remvvm:My%Secret@/remvvm?host=/nonexistent", "My%Secret"),
        ("postgres://u:p@ss@host/db", "p@ss"),
        ("postgresql://u:s3cr/etW0rd@127.0.0.1/db", "s3cr/etW0rd"),
        ("postgresql://u:s3cr?etW0rd@127.0.0.1/db", "s3cr?etW0rd"),
        ("postgresql://u:s3cr%2FetW0rd@host/db", "s3cr/etW0rd"),
        ("postgresql://127.0.0.1/db?sslmode=disable&password=s3cretW0rd&user=u", "s3cretW0rd"),
        ("postgresql://127.0.0.1/db?password=s3cr%zzetW0rd", "s3cr%zzetW0rd"),
        ("host=/tmp dbname=x password=S3cretPW user=remvvm", "S3cretPW"),
        ("host=/tmp password = 'se cret' dbname=x", "se cret"),
        ("host=/tmp password=a\\ s3cretW0rd dbname=x", "a s3cretW0rd"),
        ("host=/tmp password='it\\'s s3cretW0rd' dbname=x", "it's s3cretW0rd"),
        ("host=/tmp password='it\\'s s3cretW0rd", "it's s3cretW0rd"),
    ])
    func thePasswordOfAConnectionStringIsFound(conninfo: String, password: String) {
        let secrets = ConnectionStringSecrets(conninfo)
        #expect(secrets.secrets.contains(password), "\(secrets.secrets)")
        #expect(!secrets.redact("password \"\(password)\" \(password)").contains(password))
    }

    @Test func stringsWithoutAPasswordHaveNone() {
        for conninfo in ["", "postgresql://remvvm@/db", "host=/tmp passfile=/x dbname=password", "postgresql:///db?host=/tmp",
                         "postgresql://u@h/db?options=-c%20x@y", "postgresql://[::1]:19749/appdb?user=admin@corp"] {
            #expect(ConnectionStringSecrets(conninfo).secrets.isEmpty, "\(conninfo)")
        }
    }

    @Test func quotedPartsFromElsewhereInTheStringAreKept() {
        let secrets = ConnectionStringSecrets("postgresql://remvvm:s3cretW0rd@db.example/remvvm?bogus=1")
        let message = #"invalid URI query parameter: "bogus"; user "remvvm"; host "db.example"; socket "/run/x""#
        #expect(secrets.redact(message) == message)
        #expect(secrets.redact(#"port "s3cr", URI "postgresql://remvvm:s3cretW0rd@db""#)
            == #"port "***", URI "postgresql://remvvm:***@db""#)
    }

    /// Each string fails to connect (or to parse) with a message libpq builds from the string.
    @Test(arguments: [
        ("postgresql://remvvm:S3cretPW@[::1:5432/remvvm", "S3cretPW"),
        ("postgresql://remvvm:My%Secret@/remvvm?host=/nonexistent", "My%Secret"),
        ("host=/nonexistent password=S3cretPW dbname=x connect_timeout=1 bogus=1", "S3cretPW"),
        ("postgresql://u:s3cr/etW0rd@127.0.0.1/db", "s3cr"),
        ("postgresql://u:s3cretW0rd@host:port@x/db", "port@x"),
        ("postgresql://127.0.0.1:1/db?password=s3cretW0rd%zz", "s3cretW0rd"),
        ("postgresql://u@h/db?password=s3cr%zzetW0rd", "s3cr"),
    ])
    func aConnectionThatFailsNeverShowsThePassword(conninfo: String, piece: String) throws {
        let error = try #require(throws: PostgresLogError.self) { _ = try PostgresConnection(conninfo: conninfo) }
        #expect(!error.message.contains(piece), "\(error.message)")
    }

    @Test func aConnectionStringLibpqCannotReadIsDescribedWithoutItsPassword() throws {
        let problem = try #require(PostgresConnection.connectionStringProblem("postgresql://u:s3cr%2FetW0rd@[::1/db"))
        #expect(problem.contains("postgresql://u:***@[::1/db"), "\(problem)")
        #expect(PostgresConnection.connectionStringProblem("postgresql://u:s3cretW0rd@localhost/db") == nil)
    }

    @Test func libpqsContinuationLinesJoinTheFirst() {
        let message = "connection to server failed: No such file or directory\n\tIs the server running locally?\nLINE 1: SELECT"
        #expect(PostgresConnection.oneLine(message) == "connection to server failed: No such file or directory Is the server running locally? LINE 1: SELECT")
    }
}
