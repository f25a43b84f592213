import Glibc
import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
@testable import ReMVVMServer
import Testing

/// `GET /viewmodels/<name>/events` and `GET /viewmodels/events` over real sockets
/// (`docs/http-api.md`, "View-model streams and commands").
@Suite struct ViewModelStreamTests {
    @Test func firstEventIsTheCurrentViewModelWithRetryThenOnlyChanges() throws {
        let live = try LiveServer()
        _ = try live.post(#"{"type":"increase"}"#)
        let stream = try live.viewModelStream("/viewmodels/counter/events")
        #expect(stream.status == 200)
        #expect(stream.headers["Content-Type"] == "text/event-stream; charset=utf-8")
        #expect(stream.headers["Cache-Control"] == "no-cache")

        let first = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(first.event == "viewmodel")
        #expect(first.id == live.versionTags.tag(1))
        #expect(first.data == #"{"version":1,"name":"counter","viewModel":{"counter":"1"}}"#)
        #expect(stream.retry?.eventsBefore == 0)

        // An unrelated action sends nothing: the next event is the increase after it.
        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        _ = try live.post(#"{"type":"increase"}"#)
        let next = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(next.version == 3)
        #expect(next.data == #"{"version":3,"name":"counter","viewModel":{"counter":"2"}}"#)
    }

    @Test func unavailableAndAvailableTransitionsAreEventsAndAnEqualViewModelIsNot() throws {
        let live = try LiveServer()
        let stream = try live.viewModelStream("/viewmodels/greetings/events")
        let first = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(first.event == "unavailable")
        #expect(first.data == #"{"version":0,"name":"greetings"}"#)

        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)  // same view model
        _ = try live.post(#"{"type":"logout"}"#)
        _ = try live.post(#"{"type":"logout"}"#)  // still unavailable
        _ = try live.post(#"{"type":"login","payload":{"firstName":"Alan","lastName":"Turing"}}"#)

        let events = try (0..<3).map { _ in try #require(try stream.nextEvent(timeout: .seconds(5))) }
        #expect(events.map(\.event) == ["viewmodel", "unavailable", "viewmodel"])
        #expect(events.map(\.version) == [1, 3, 5])
        #expect(events[0].data == #"{"version":1,"name":"greetings","viewModel":{"greetings":"Hello Ada Lovelace <3"}}"#)
        #expect(events[1].data == #"{"version":3,"name":"greetings"}"#)
        #expect(events[2].data == #"{"version":5,"name":"greetings","viewModel":{"greetings":"Hello Alan Turing <3"}}"#)
    }

    @Test func aBatchGivesOneEventPerVersionThatChangedTheViewModel() throws {
        let live = try LiveServer()
        let stream = try live.viewModelStream("/viewmodels/counter/events")
        _ = try stream.nextEvent(timeout: .seconds(5))
        _ = try live.post(#"[{"type":"increase"},{"type":"logout"},{"type":"increase"}]"#)
        let events = try (0..<2).map { _ in try #require(try stream.nextEvent(timeout: .seconds(5))) }
        #expect(events.map(\.version) == [1, 3])
        #expect(events.map(\.data) == [
            #"{"version":1,"name":"counter","viewModel":{"counter":"1"}}"#,
            #"{"version":3,"name":"counter","viewModel":{"counter":"2"}}"#,
        ])
    }

    @Test(arguments: [false, true])
    func aThousandRandomActionsGiveExactlyTheVersionsWhereEachViewModelChanged(durable: Bool) throws {
        let live = try LiveServer(journal: durable ? MemoryJournalStorage() : nil)
        let stream = try live.viewModelStream("/viewmodels/events?name=counter&name=greetings")
        var expected = [
            #"{"version":0,"name":"counter","viewModel":{"counter":"0"}}"#,
            #"{"version":0,"name":"greetings"}"#,
        ]
        var generator = SplitMix64(seed: 13)
        var state = AppState()
        let client = live.client()
        for version in 1...1_000 {
            let (json, next) = Self.randomAction(after: state, using: &generator)
            #expect(try live.post(json, client: client).status == 200)
            let counterChanged = next.counter != state.counter
            let greetingsBefore = GreetingsViewModel(user: state.user)?.greetings
            let greetingsAfter = GreetingsViewModel(user: next.user)?.greetings
            if counterChanged {
                expected.append(#"{"version":\#(version),"name":"counter","viewModel":{"counter":"\#(next.counter)"}}"#)
            }
            if greetingsBefore != greetingsAfter {
                expected.append(greetingsAfter.map {
                    #"{"version":\#(version),"name":"greetings","viewModel":{"greetings":"\#($0)"}}"#
                } ?? #"{"version":\#(version),"name":"greetings"}"#)
            }
            state = next
        }
        var received: [String] = []
        while received.count < expected.count, let event = try stream.nextEvent(timeout: .seconds(10)) {
            received.append(event.data)
        }
        #expect(received == expected)
        // And nothing more: a marker action changes the counter, and its event comes next.
        _ = try live.post(#"{"type":"increase"}"#, client: client)
        #expect(try stream.nextEvent(timeout: .seconds(5))?.version == 1_001)
    }

    @Test func aHundredSubscribersCauseOneEncodingPerChange() throws {
        let live = try LiveServer()
        let streams = try (0..<100).map { _ in try live.viewModelStream("/viewmodels/counter/events") }
        for stream in streams {
            _ = try #require(try stream.nextEvent(timeout: .seconds(5)))
        }
        let before = live.server.service.viewModelStreamWork
        let client = live.client()
        for _ in 0..<10 {
            _ = try live.post(#"{"type":"increase"}"#, client: client)
            _ = try live.post(#"{"type":"logout"}"#, client: client)  // unrelated: made, compared, not encoded
        }
        for stream in streams {
            for version in stride(from: 1, through: 19, by: 2) {
                #expect(try stream.nextEvent(timeout: .seconds(5))?.version == UInt64(version))
            }
        }
        let after = live.server.service.viewModelStreamWork
        #expect(after.encoded - before.encoded == 10)
        #expect(after.made - before.made == 20)
    }

    /// Clients that send a stream request and reset the connection at once, before their first
    /// event, leave no view model behind (a review found the hub kept a group for many of them,
    /// made again at every version while any stream was open: 85 view models per version).
    @Test func clientsGoneBeforeTheirFirstEventLeaveNoViewModelBehind() throws {
        let live = try LiveServer()
        for index in 0..<400 {
            try Self.sendAndReset(
                "GET /viewmodels/counter/events?key=gone-\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n",
                port: live.port
            )
        }
        let follower = try live.viewModelStream("/viewmodels/counter/events")
        _ = try #require(try follower.nextEvent(timeout: .seconds(5)))
        // Every reset connection closed by the server, so each of their requests was taken in
        // (or never read) and is gone: the follower's is the only connection left.
        let http = live.server.http
        #expect(http.waitForOccupancy(timeout: .seconds(20)) { http.openConnectionCount == 1 })
        #expect(live.server.service.waitForViewModelSubscribers(timeout: .seconds(10)) { $0 == 1 })
        let before = live.server.service.viewModelStreamWork.made
        for version in 1...10 {
            _ = try live.post(#"{"type":"increase"}"#)
            #expect(try follower.nextEvent(timeout: .seconds(5))?.version == UInt64(version))
        }
        let made = live.server.service.viewModelStreamWork.made - before
        #expect(made == 10, "one view model per version for the one follower")
    }

    /// Connects, sends `request` and closes with a reset (SO_LINGER 0), without reading.
    private static func sendAndReset(_ request: String, port: Int) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        _ = Glibc.close(descriptor)
    }

    @Test func withoutSubscribersNoViewModelIsMade() throws {
        let live = try LiveServer()
        let stream = try live.viewModelStream("/viewmodels/counter/events")
        _ = try stream.nextEvent(timeout: .seconds(5))
        // The first event can arrive before the hub counts its stream: waiting for 0 right away
        // could return before the stream was counted, let alone gone (CI saw 2 made, not 1).
        #expect(live.server.service.waitForViewModelSubscribers(timeout: .seconds(5)) { $0 == 1 })
        stream.close()
        #expect(live.server.service.waitForViewModelSubscribers(timeout: .seconds(5)) { $0 == 0 })
        let before = live.server.service.viewModelStreamWork
        for _ in 0..<50 {
            _ = try live.post(#"{"type":"increase"}"#)
        }
        // A new stream after them: the hub has taken every earlier publication when it answers.
        let later = try live.viewModelStream("/viewmodels/counter/events")
        #expect(try later.nextEvent(timeout: .seconds(5))?.data == #"{"version":50,"name":"counter","viewModel":{"counter":"50"}}"#)
        let after = live.server.service.viewModelStreamWork
        #expect(after.made - before.made == 1)  // the new stream's first view model only
    }

    @Test func severalViewModelsOnOneConnectionInVersionOrderWithKeys() throws {
        let live = try LiveServer()
        let stream = try live.viewModelStream("/viewmodels/events?name=greetings&name=counter&key.counter=main")
        let first = try (0..<2).map { _ in try #require(try stream.nextEvent(timeout: .seconds(5))) }
        #expect(first.map(\.data) == [
            #"{"version":0,"name":"greetings"}"#,
            #"{"version":0,"name":"counter","key":"main","viewModel":{"counter":"0"}}"#,
        ])
        #expect(stream.retry?.eventsBefore == 0)
        _ = try live.post(#"[{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}},{"type":"increase"}]"#)
        let next = try (0..<2).map { _ in try #require(try stream.nextEvent(timeout: .seconds(5))) }
        #expect(next.map(\.version) == [1, 2])
        #expect(next.map(\.event) == ["viewmodel", "viewmodel"])
    }

    /// A version that changes several view models reaches each stream in the order it named
    /// them: two streams naming the same two in opposite orders get opposite orders (one of
    /// them in an order other than the server's own, whichever that is).
    @Test func theViewModelsOfOneVersionComeInTheOrderTheStreamNamedThem() throws {
        let live = try LiveServer()
        let greetingsFirst = try live.viewModelStream("/viewmodels/events?name=greetings&name=login")
        let loginFirst = try live.viewModelStream("/viewmodels/events?name=login&name=greetings")
        for stream in [greetingsFirst, loginFirst] {
            _ = try (0..<2).map { _ in try #require(try stream.nextEvent(timeout: .seconds(5))) }
        }
        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)  // changes both
        for (stream, order) in [(greetingsFirst, ["greetings", "login"]), (loginFirst, ["login", "greetings"])] {
            let events = try (0..<2).map { _ in try #require(try stream.nextEvent(timeout: .seconds(5))) }
            #expect(events.map(\.dataVersion) == [1, 1])
            #expect(events.map(\.id) == [nil, live.versionTags.tag(1)])
            let names = events.map { event in
                (try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])?["name"] as? String
            }
            #expect(names == order)
        }
    }

    /// An `EventSource` keeps the previous id for an event without one. With the id on the last
    /// event of a version only, a client cut off between two events of one version resumes from
    /// the version before and gets the rest again; with an id on each, it resumed from a version
    /// it had only part of and never got the view model it missed.
    @Test func aVersionThatChangesSeveralViewModelsCarriesItsIdOnItsLastEventOnly() throws {
        let live = try LiveServer()
        let path = "/viewmodels/events?name=greetings&name=login"
        let stream = try live.viewModelStream(path)
        let first = try (0..<2).map { _ in try #require(try stream.nextEvent(timeout: .seconds(5))) }
        #expect(first.map(\.id) == [nil, live.versionTags.tag(0)])
        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)  // changes both
        let greetings = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(greetings.dataVersion == 1)
        #expect(greetings.event == "viewmodel")
        #expect(greetings.id == nil, "not the last event of version 1")
        // Cut off here: the id the client holds is still version 0's.
        let lastEventId = (first + [greetings]).compactMap(\.id).last
        stream.close()

        let resumed = try live.viewModelStream(path, lastEventId: lastEventId)
        let rest = try (0..<2).map { _ in try #require(try resumed.nextEvent(timeout: .seconds(5))) }
        #expect(rest.map(\.event) == ["viewmodel", "unavailable"], "greetings again, and the login it missed")
        #expect(rest.map(\.data) == [
            #"{"version":1,"name":"greetings","viewModel":{"greetings":"Hello Ada Lovelace <3"}}"#,
            #"{"version":1,"name":"login"}"#,
        ])
        #expect(rest.map(\.id) == [nil, live.versionTags.tag(1)])
    }

    @Test(arguments: Transport.allCases)
    func unknownNamesAndMissingNamesAreProblems(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let unknown = try live.get("/viewmodels/nope/events")
        #expect(unknown.status == 404)
        #expect(unknown.problem?.known == ["counter", "counterInBase", "greetings", "login", "navigation"])
        let unknownInList = try live.get("/viewmodels/events?name=counter&name=nope")
        #expect(unknownInList.status == 404)
        #expect(unknownInList.problem?.detail.contains("\"nope\"") == true)
        let none = try live.get("/viewmodels/events")
        #expect(none.status == 400)
        #expect(none.problem?.type == "urn:remvvm:problem:missing-view-model-names")
        let tooMany = try live.get("/viewmodels/events?" + Array(repeating: "name=counter", count: 65).joined(separator: "&"))
        #expect(tooMany.status == 400, "65 names, even one repeated")
        #expect(none.problem?.known == ["counter", "counterInBase", "greetings", "login", "navigation"])
        #expect(live.server.service.viewModelSubscriberCount == 0)
    }

    @Test func resumingAtTheNewestVersionSendsNothingUntilAChange() throws {
        let live = try LiveServer()
        _ = try live.post(#"{"type":"increase"}"#)
        let stream = try live.viewModelStream("/viewmodels/counter/events", lastEventId: live.versionTags.tag(1))
        #expect(stream.headers["ReMVVM-Replay"] == nil)
        _ = try live.post(#"{"type":"increase"}"#)
        let next = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(next.version == 2)
        #expect(stream.retry?.eventsBefore == 0)  // `retry:` came with that first event
        #expect(stream.comments.first == "resumed")
    }

    @Test(arguments: [false, true])
    func resumingSendsTheCurrentViewModelOnlyIfItChangedSince(fromJournal: Bool) throws {
        // With a ring of 1 version, version 2 is found in the journal only.
        let live = try LiveServer(journal: fromJournal ? MemoryJournalStorage() : nil, replayRingEvents: fromJournal ? 1 : 10_000)
        _ = try live.post(#"{"type":"increase"}"#)  // 1
        _ = try live.post(#"{"type":"increase"}"#)  // 2
        _ = try live.post(#"{"type":"logout"}"#)  // 3
        _ = try live.post(#"{"type":"logout"}"#)  // 4

        let unchanged = try live.viewModelStream("/viewmodels/counter/events", lastEventId: live.versionTags.tag(2))
        let changed = try live.viewModelStream("/viewmodels/counter/events?lastEventId=\(live.versionTags.tag(1))")
        let changedEvent = try #require(try changed.nextEvent(timeout: .seconds(5)))
        #expect(changedEvent.data == #"{"version":4,"name":"counter","viewModel":{"counter":"2"}}"#)

        _ = try live.post(#"{"type":"increase"}"#)  // 5
        let next = try #require(try unchanged.nextEvent(timeout: .seconds(5)))
        #expect(next.data == #"{"version":5,"name":"counter","viewModel":{"counter":"3"}}"#)
        #expect(try changed.nextEvent(timeout: .seconds(5))?.version == 5)
    }

    /// In memory, the state the server started at is known too (from a review: the ring holds
    /// publications only, so resuming after version 0 re-sent every view model, changed or not).
    @Test func resumingAfterTheStartVersionInMemorySendsOnlyWhatChanged() throws {
        let live = try LiveServer()
        _ = try live.post(#"{"type":"increase"}"#)  // 1: the counter changes, the login screen does not
        let stream = try live.viewModelStream("/viewmodels/events?name=login&name=counter", lastEventId: live.versionTags.tag(0))
        let first = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(first.data == #"{"version":1,"name":"counter","viewModel":{"counter":"1"}}"#)
        _ = try live.post(#"{"type":"increase"}"#)  // 2
        #expect(try stream.nextEvent(timeout: .seconds(5))?.version == 2, "nothing else came before")
    }

    /// In memory, an id whose state the ring no longer keeps: the current view models, every one
    /// (what changed since cannot be told), unmarked — no `"reset"`, no `ReMVVM-Replay`
    /// (docs/http-api.md, "View-model streams and commands").
    @Test func resumingAfterAVersionOlderThanTheRingSendsTheCurrentViewModelsUnmarked() throws {
        let live = try LiveServer(replayRingEvents: 1)
        for _ in 0..<3 {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        }
        // The login screen is the same at version 1 as now; it comes anyway.
        let stream = try live.viewModelStream("/viewmodels/events?name=counter&name=login", lastEventId: live.versionTags.tag(1))
        #expect(stream.status == 200)
        #expect(stream.headers["ReMVVM-Replay"] == nil)
        let counter = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(counter.event == "viewmodel")
        #expect(counter.data == #"{"version":3,"name":"counter","viewModel":{"counter":"3"}}"#)
        let login = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(login.event == "viewmodel")
        #expect(login.data.hasPrefix(#"{"version":3,"name":"login","viewModel":"#), "\(login.data)")
        #expect(!login.data.contains(#""reset""#))
        #expect(login.id == live.versionTags.tag(3), "the version's last event carries its id")
        #expect(stream.retry?.eventsBefore == 0)
        #expect(stream.comments.isEmpty, "not resumed: every view model is sent")
    }

    @Test(arguments: ["not-a-version", "99"])
    func anIdThatIsNotAVersionOfThisStoreResets(lastEventId: String) throws {
        let live = try LiveServer()
        _ = try live.post(#"{"type":"increase"}"#)
        let stream = try live.viewModelStream("/viewmodels/counter/events", lastEventId: lastEventId)
        #expect(stream.headers["ReMVVM-Replay"] == "reset")
        let first = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(first.data == #"{"version":1,"reset":true,"name":"counter","viewModel":{"counter":"1"}}"#)
    }

    @Test func aKeyTheFactoryIgnoresStillStreamsAndADepartedStreamIsForgotten() throws {
        let live = try LiveServer()
        let stream = try live.viewModelStream("/viewmodels/greetings/events?key=anything")
        let first = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(first.data == #"{"version":0,"name":"greetings","key":"anything"}"#)
        #expect(live.server.service.waitForViewModelSubscribers(timeout: .seconds(5)) { $0 == 1 })
        stream.close()
        #expect(live.server.service.waitForViewModelSubscribers(timeout: .seconds(5)) { $0 == 0 })
    }

    /// One random example action, and the state it makes of `state`.
    static func randomAction(after state: AppState, using generator: inout SplitMix64) -> (String, AppState) {
        var next = state
        switch generator.next() % 5 {
        case 0, 1:
            next.counter += 1
            return (#"{"type":"increase"}"#, next)
        case 2:
            next.counter -= 1
            return (#"{"type":"decrease"}"#, next)
        case 3:
            let names = ["Ada", "Alan", "Grace"]
            let name = names[Int(generator.next() % 3)]
            next.user = User(firstName: name, lastName: "X")
            return (#"{"type":"login","payload":{"firstName":"\#(name)","lastName":"X"}}"#, next)
        default:
            next.user = nil
            return (#"{"type":"logout"}"#, next)
        }
    }
}

extension LiveServer {
    /// A view-model stream at `path`, resuming after `lastEventId` when given.
    func viewModelStream(_ path: String, lastEventId: String? = nil) throws -> SSEClient {
        var headers = [("Accept", "text/event-stream")]
        if let lastEventId {
            headers.append(("Last-Event-ID", lastEventId))
        }
        return try SSEClient(port: port, path: path, headers: headers)
    }
}
