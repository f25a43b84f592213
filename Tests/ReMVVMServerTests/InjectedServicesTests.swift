import ExampleApp
import Foundation
import HTTPTestSupport
import ReMVVM
import SQLiteJournal
import Testing

/// The example served with injected ``Services``: the login middleware stamps `loggedInAt` from
/// the injected clock, and the journal keeps the stamped action, so a restart with another clock
/// gives the same state.
@Suite struct InjectedServicesTests {
    private static func services(at seconds: TimeInterval) -> Services {
        var services = Services()
        services.clock = FixedClock(Date(timeIntervalSince1970: seconds))
        return services
    }

    private static func exampleServer(at seconds: TimeInterval, journal: SQLiteJournalStorage) throws -> LiveServer {
        let services = services(at: seconds)
        return try LiveServer(middleware: ExampleApp.middleware(services: services), services: services, journal: journal)
    }

    @Test func loggedInAtIsTheInjectedTimeAndSurvivesARestartWithAnotherClock() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-services")
        let loggedIn = #"{"counter":0,"user":{"firstName":"Ada","lastName":"Lovelace","loggedInAt":"2027-01-15T08:00:00.000Z"}}"#
        do {
            let live = try Self.exampleServer(at: 1_800_000_000, journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
            #expect(try live.command("login/commands/login", #"{"firstName":"Ada","lastName":"Lovelace"}"#).status == 200)
            #expect(try live.get("/state").bodyString == loggedIn)
            let log = try live.get("/actions").bodyString
            #expect(log.contains(#""payload":{"firstName":"Ada","lastName":"Lovelace","loggedInAt":"2027-01-15T08:00:00.000Z"}"#),
                    "journaled with the time: \(log)")
            live.server.shutdown()
        }
        let restarted = try Self.exampleServer(at: 0, journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
        #expect(try restarted.get("/state").bodyString == loggedIn, "replayed from the journal, not stamped again")
    }

    @Test func aLoginPostedAsAnActionIsStampedTooWhateverTheClientSent() throws {
        let live = try LiveServer(middleware: ExampleApp.middleware(services: Self.services(at: 1_800_000_000.25)))
        let posted = #"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace","loggedInAt":"1999-01-01T00:00:00.000Z"}}"#
        #expect(try live.post(posted).status == 200)
        #expect(live.store.state.user?.loggedInAt == "2027-01-15T08:00:00.250Z", "the middleware's clock wins")
    }
}
