import ConcurrencyKit
import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import ReMVVM
import SQLiteJournal
@testable import ReMVVMServer
import Testing

private struct VersionAnswer: Decodable {
    var version: UInt64
}

/// A store with a journal (docs/http-api.md, "Durability"): nothing is seen before it is durable,
/// a restart gives the same state and next version, failures refuse instead of losing.
@Suite struct DurabilityTests {
    @Test func actionsAreAnsweredOnceDurableAndSurviveARestartWithTheSameStateAndNextVersion() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-durable")
        do {
            let live = try LiveServer(journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
            #expect(try live.post(#"{"type":"increase"}"#).decoded(VersionAnswer.self).version == 1)
            #expect(try live.post(#"[{"type":"increase"},{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}]"#)
                .decoded(VersionAnswer.self).version == 3)
            let state = try live.get("/state")
            #expect(state.headers["ETag"] == "\"3\"", "a durable store tags plain versions")
            live.server.shutdown()
        }
        let restarted = try LiveServer(journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
        let state = try restarted.get("/state")
        #expect(state.headers["ETag"] == "\"3\"")
        #expect(state.bodyString == #"{"counter":2,"user":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        #expect(try restarted.post(#"{"type":"decrease"}"#).decoded(VersionAnswer.self).version == 4, "versions continue")
        let subscriber = try restarted.subscribe()
        #expect(try subscriber.nextEvent(timeout: .seconds(5))?.version == 4)
    }

    @Test func aRestartFromASnapshotReplaysOnlyWhatCameAfterIt() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-durable")
        do {
            let live = try LiveServer(journal: try SQLiteJournalStorage(directory: directory.path, sync: .full), snapshotEvery: 5)
            for _ in 0..<12 {
                _ = try live.post(#"{"type":"increase"}"#)
            }
            live.server.shutdown()  // writes a snapshot of version 12 as well
        }
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        let recovery = try storage.recover()
        #expect(recovery.snapshot?.version == 12)
        storage.close()
        let restarted = try LiveServer(journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
        #expect(try restarted.get("/state").bodyString == #"{"counter":12,"user":null}"#)
        #expect(try restarted.post(#"{"type":"increase"}"#).decoded(VersionAnswer.self).version == 13)
    }

    @Test func whileRunningASnapshotIsWrittenEverySnapshotEveryVersions() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-durable")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        let live = try LiveServer(journal: storage, snapshotEvery: 5)
        for _ in 0..<12 {
            _ = try live.post(#"{"type":"increase"}"#)
        }
        // Written off the dispatch path once version 10 is durable, before any stop.
        #expect(waitUntil(timeout: .seconds(10)) { (try? storage.snapshot(atOrBefore: 12))??.version == 10 })
        let snapshot = try #require(try storage.snapshot(atOrBefore: 12))
        #expect(String(decoding: snapshot.state, as: UTF8.self) == #"{"counter":10,"user":null}"#)
        #expect(try storage.snapshot(atOrBefore: 9)?.version == 5)
    }

    @Test func actionsThatMiddlewareDispatchesAreJournaledAndRestoredWithoutRunningIt() throws {
        /// Passes a login on, then dispatches an increase of its own (a nested dispatch).
        struct CountLogins: Middleware {
            func onNext(
                for state: AppState, action: Login,
                interceptor: Interceptor<Login, AppState>, dispatcher: any Dispatcher
            ) {
                interceptor.next()
                dispatcher.dispatch(action: Increase())
            }
        }
        let directory = try TemporaryDirectory(prefix: "remvvm-durable")
        let login = #"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#
        let before: String
        do {
            let live = try LiveServer(middleware: [CountLogins()], journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
            #expect(try live.post(login).status == 200)
            #expect(waitUntil { live.store.version == 2 }, "the login and the increase it caused")
            before = try live.get("/state").bodyString
            #expect(before == #"{"counter":1,"user":{"firstName":"Ada","lastName":"Lovelace"}}"#)
            live.server.shutdown()
        }
        // Restored by the reducers alone (rule 20): the middleware is there again but does not
        // run during the replay, or the login would dispatch a second increase (version 3).
        let restarted = try LiveServer(middleware: [CountLogins()], journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
        #expect(restarted.store.version == 2)
        #expect(try restarted.get("/state").bodyString == before)
        let types = try restarted.get("/actions").bodyString
        #expect(types.contains(#""type":"login""#) && types.contains(#""type":"increase""#), "\(types)")
    }

    /// With a journal, versions survive restarts, so tags are the bare version: `ETag: "N"`,
    /// `id: N`, `{"version":N}` (docs/http-api.md, "Version tags").
    @Test func withAJournalTagsAreTheBareVersion() throws {
        let live = try LiveServer(journal: MemoryJournalStorage())
        let stream = try SSEClient(port: live.port, path: "/events")
        #expect(try stream.nextEvent(timeout: .seconds(5))?.id == "0")
        #expect(try live.post(#"{"type":"increase"}"#).bodyString == #"{"version":1}"#)
        #expect(try stream.nextEvent(timeout: .seconds(5))?.id == "1")
        #expect(try live.get("/state").headers["ETag"] == #""1""#)
        #expect(try live.post(#"{"type":"increase"}"#, headers: [("If-Match", #""1""#)]).status == 200)
    }

    @Test func recordsOlderThanTheRetentionBeforeTheNewestSnapshotAreRemoved() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-durable")
        // Runs a server that posts `count` actions and stops (writing a snapshot), and reads what
        // the journal then holds.
        func run(posting count: Int) throws -> JournalRecovery {
            do {
                let live = try LiveServer(journal: try SQLiteJournalStorage(directory: directory.path, sync: .full), snapshotEvery: 1_000, journalRetention: 3)
                for _ in 0..<count {
                    _ = try live.post(#"{"type":"increase"}"#)
                }
                live.server.shutdown()
            }
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
            defer { storage.close() }
            return try storage.recover()
        }
        let first = try run(posting: 9)
        #expect(first.snapshot?.version == 9)
        #expect(first.earliestVersion == 1, "the store's only snapshot: every record is kept")
        let second = try run(posting: 3)  // a snapshot of version 12, then records through 9 are removed
        #expect(second.snapshot?.version == 12)
        #expect(second.earliestVersion == 10)
        let restarted = try LiveServer(journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
        #expect(try restarted.get("/state").bodyString == #"{"counter":12,"user":null}"#)
        #expect(try restarted.get("/actions").bodyString.hasPrefix(#"{"earliest":10,"latest":12,"#))
    }

    @Test func withAnAgeRetentionRecordsOlderThanItBeforeTheNewestSnapshotAreRemoved() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-durable")
        do {
            // Versions 1...10 reduced in 2001, long before the retention of 30 days.
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            try storage.append((1...10).map { JournalRecord(version: $0, type: "increase", payload: Array("{}".utf8), time: 1_000_000_000_000 + Int64($0)) })
            // And a snapshot of them: retention removes records once a store has two.
            try storage.saveSnapshot(JournalSnapshot(version: 10, state: Array(#"{"counter":10,"user":null}"#.utf8), time: 1_000_000_000_010))
            storage.close()
        }
        do {
            let live = try LiveServer(
                journal: try SQLiteJournalStorage(directory: directory.path, sync: .full),
                snapshotEvery: 1_000, journalRetention: .age(.seconds(30 * 86_400))
            )
            for _ in 0..<3 {
                _ = try live.post(#"{"type":"increase"}"#)
            }
            live.server.shutdown()  // a snapshot of version 13, then the records of 2001 are removed
        }
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        let recovery = try storage.recover()
        storage.close()
        #expect(recovery.snapshot?.version == 13)
        #expect(recovery.earliestVersion == 11, "this month's records stay")
    }

    @Test func theNewestVersionBeforeATimeIsFoundInTheJournal() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-durable")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        #expect(try storage.newestVersion(recordedBefore: 5_000) == nil, "empty")
        try storage.append((1...10).map { JournalRecord(version: $0, type: "increase", payload: [], time: Int64($0) * 1_000) })
        #expect(try storage.newestVersion(recordedBefore: 500) == nil)
        #expect(try storage.newestVersion(recordedBefore: 5_000) == 4)
        #expect(try storage.newestVersion(recordedBefore: 5_001) == 5)
        #expect(try storage.newestVersion(recordedBefore: 99_000) == 10)
        let memory = MemoryJournalStorage()
        try memory.append((1...10).map { JournalRecord(version: $0, type: "increase", payload: [], time: Int64($0) * 1_000) })
        #expect(try memory.newestVersion(recordedBefore: 5_000) == 4)
    }

    @Test func retentionByVersionsOrAgeSaysWhatMayBeRemoved() {
        let none: (Int64) -> UInt64? = { _ in nil }
        #expect(JournalRetention.versions(3).removableThrough(snapshotVersion: 12, now: 0, newestBefore: none) == 9)
        #expect(JournalRetention.versions(30).removableThrough(snapshotVersion: 12, now: 0, newestBefore: none) == nil)
        let age = JournalRetention.age(.seconds(60))
        #expect(age.removableThrough(snapshotVersion: 12, now: 100_000, newestBefore: { $0 == 40_000 ? 20 : nil }) == 12,
                "never past the snapshot")
        #expect(age.removableThrough(snapshotVersion: 12, now: 100_000, newestBefore: { $0 == 40_000 ? 7 : nil }) == 7)
        #expect(age.removableThrough(snapshotVersion: 12, now: 100_000, newestBefore: none) == nil)
    }

    @Test func aJournalHoldingAnActionThisServerDoesNotKnowRefusesToStart() throws {
        try expectRefusalToStart(
            withSecondRecord: JournalRecord(version: 2, type: "teleport", payload: Array("{}".utf8), time: 2),
            saying: ["teleport", "this build registers no such type"]
        )
    }

    @Test func aJournalHoldingAPayloadThisServerCannotDecodeRefusesToStart() throws {
        try expectRefusalToStart(
            withSecondRecord: JournalRecord(version: 2, type: "login", payload: Array(#"{"firstName":5}"#.utf8), time: 2),
            saying: ["login", "its payload does not decode as this build's type"]
        )
    }

    /// Expects a server over a journal of an increase and `record` (version 2) to refuse to start
    /// with a ``JournalError`` of code corrupt naming version 2, the journal's path and `phrases`.
    private func expectRefusalToStart(withSecondRecord record: JournalRecord, saying phrases: [String]) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-durable")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        try storage.append([JournalRecord(version: 1, type: "increase", payload: Array("{}".utf8), time: 1), record])
        #expect {
            _ = try LiveServer(journal: storage)
        } throws: { error in
            let text = "\(error)"
            return (error as? JournalError)?.code == .corrupt && text.contains("version 2") && text.contains(storage.path)
                && phrases.allSatisfy { text.contains($0) }
        }
    }

    @Test func aRestartAfterACrashSaysSoNamingTheJournal() throws {
        let running = try TemporaryDirectory(prefix: "remvvm-durable")
        let crashed = try TemporaryDirectory(prefix: "remvvm-durable-crashed")
        let storage = try SQLiteJournalStorage(directory: running.path, sync: .full)
        defer { storage.close() }
        try storage.append([JournalRecord(version: 1, type: "increase", payload: Array("{}".utf8), time: 1)])
        // The files as `kill -9` leaves them: the write-ahead log is still there.
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(
                atPath: storage.path + suffix, toPath: crashed.path + "/" + SQLiteJournalStorage.fileName + suffix
            )
        }
        let reopened = try SQLiteJournalStorage(directory: crashed.path, sync: .full)
        let log = CapturedLog()
        let live = try LiveServer(journal: reopened, logger: log.logger())
        #expect(live.store.version == 1)
        #expect(log.messages.snapshot.contains { message in
            message.hasPrefix("warning") && message.contains("was not closed by the previous server")
                && message.contains(reopened.path) && message.contains("restored to version 1")
        }, "\(log.messages.snapshot)")
    }

    @Test func aSnapshotTheStateTypeCannotReadRefusesToStartNamingTheFile() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-durable")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        try storage.saveSnapshot(JournalSnapshot(version: 3, state: Array(#"{"counter":"three"}"#.utf8), time: 1))
        #expect {
            _ = try LiveServer(journal: storage)
        } throws: { error in
            let text = "\(error)"
            return (error as? JournalError)?.code == .corrupt && text.contains("version 3") && text.contains(storage.path)
                && text.contains("move the data directory aside")
        }
    }

    @Test func whileCommitsFailActionsGet503AndReadsGoOnThenTheyRecover() throws {
        let storage = MemoryJournalStorage()
        let live = try LiveServer(journal: storage)
        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        storage.failAppends(with: JournalError(code: .writeFailed, message: "disk full (test)"))
        let failed = try live.post(#"{"type":"increase"}"#).expect(status: 503, contentType: "application/problem+json")
        #expect(failed.problem?.type == "urn:remvvm:problem:journal-unavailable")
        #expect(failed.problem?.detail.contains("may still be committed") == true, "a 503 after the reduce does not say nothing happened")
        #expect(failed.headers["Retry-After"] == "1")
        let refusedAtOnce = try live.post(#"{"type":"increase"}"#)
        #expect(refusedAtOnce.status == 503, "refused before dispatch while the journal fails")
        #expect(refusedAtOnce.problem?.type == "urn:remvvm:problem:journal-unavailable")
        #expect(refusedAtOnce.problem?.detail.contains("nothing was dispatched") == true)
        #expect(refusedAtOnce.headers["Retry-After"] == "1")
        let state = try live.get("/state")
        #expect(state.status == 200)
        #expect(state.headers["ETag"] == "\"1\"", "reads show only what is durable")
        let health = try live.get("/healthz")
        #expect(health.status == 503, "not ready for writes")
        #expect(health.bodyString.hasPrefix(#"{"status":"failing","version":1,"reason":"#) && health.bodyString.contains("disk full (test)"), "\(health.bodyString)")

        storage.failAppends(with: nil)  // the disk has room again
        #expect(storage.wait(timeout: .seconds(10)) { $0.committedRecords.count == 2 }, "the unacknowledged action was kept and committed")
        #expect(waitUntil(timeout: .seconds(10)) { (try? live.get("/healthz"))?.status == 200 })
        #expect(try live.post(#"{"type":"increase"}"#).decoded(VersionAnswer.self).version == 3)
        #expect(storage.committedRecords.map(\.version) == [1, 2, 3])
    }

    /// While commits fail, a request with an `Idempotency-Key` still gets what needs no commit:
    /// the answer kept before the failure, and 409 for the key whose actions wait in the queue
    /// (before, every keyed request got the 503 "nothing was dispatched", from a review).
    @Test func whileCommitsFailKeysStillGetTheirKeptAnswerOr409() throws {
        let storage = MemoryJournalStorage()
        let live = try LiveServer(journal: storage)
        let increase = #"{"type":"increase"}"#
        #expect(try live.post(increase, headers: [("Idempotency-Key", "before")]).status == 200)
        storage.failAppends(with: JournalError(code: .writeFailed, message: "disk full (test)"))
        #expect(try live.post(increase, headers: [("Idempotency-Key", "during")]).status == 503, "its commit failed")

        let replayed = try live.post(increase, headers: [("Idempotency-Key", "before")])
        #expect(replayed.status == 200 && replayed.headers["Idempotent-Replayed"] == "true")
        #expect(try replayed.decoded(VersionAnswer.self).version == 1)
        let retried = try live.post(increase, headers: [("Idempotency-Key", "during")])
        #expect(retried.status == 409, "its actions wait in the queue: \(retried.bodyString)")
        #expect(retried.problem?.type == "urn:remvvm:problem:idempotency-key-in-flight")
        let fresh = try live.post(increase, headers: [("Idempotency-Key", "new")])
        #expect(fresh.status == 503 && fresh.problem?.detail.contains("nothing was dispatched") == true)

        storage.failAppends(with: nil)
        #expect(storage.wait(timeout: .seconds(10)) { $0.committedRecords.count == 2 })
        // The storage holds the records a moment before the commit's listeners clear the failure
        // and keep the key's answer: until then the key answers 409 or 503, and dispatches nothing
        // (seen under load). Ask until it answers otherwise.
        var afterwards = try live.post(increase, headers: [("Idempotency-Key", "during")])
        #expect(waitUntil(timeout: .seconds(10)) {
            guard afterwards.status == 409 || afterwards.status == 503 else { return true }
            afterwards = (try? live.post(increase, headers: [("Idempotency-Key", "during")])) ?? afterwards
            return false
        }, "last answer: \(afterwards.status) \(afterwards.bodyString)")
        #expect(afterwards.headers["Idempotent-Replayed"] == "true" && (try? afterwards.decoded(VersionAnswer.self).version) == 2)
        #expect(try live.post(increase, headers: [("Idempotency-Key", "new")]).decoded(VersionAnswer.self).version == 3, "the refused key was released")
    }

    @Test func anActionWithoutAWireNameIsRefusedBeforeTheReducerWith500() throws {
        struct Unregistered: StoreAction {}
        /// Turns every login into an action the registry does not know.
        struct ReplacingMiddleware: AnyMiddleware {
            func onNext<State>(
                for state: State,
                action: any StoreAction,
                interceptor: Interceptor<any StoreAction, State>,
                dispatcher: any Dispatcher
            ) {
                if action is Login { interceptor.next(action: Unregistered()) } else { interceptor.next() }
            }
        }
        let storage = MemoryJournalStorage()
        let live = try LiveServer(middleware: [ReplacingMiddleware()], journal: storage)
        let response = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        #expect(response.status == 500)
        #expect(response.problem?.type == "urn:remvvm:problem:action-not-journaled")
        #expect(response.problem?.detail.contains("Unregistered") == true)
        #expect(live.store.version == 0, "nothing reduced, so no gap in the journal")
        #expect(try live.post(#"{"type":"increase"}"#).decoded(VersionAnswer.self).version == 1)
    }

    /// A request commits its own actions on its worker only while its connection is the only
    /// one: with other clients connected it leaves the commit to the journal thread, where their
    /// requests can join its group (from a measurement: with one worker per core, committing
    /// alone kept the worker from reading the others' requests, and wrk -c64 fell to one commit
    /// per request, 6,600–6,900 acknowledged/s instead of 42,000–59,000, in 3 of 8 runs).
    @Test func aRequestCommitsOnItsOwnThreadOnlyWhileItsConnectionIsTheOnlyOne() throws {
        let storage = MemoryJournalStorage()
        let live = try LiveServer(journal: storage)
        let client = live.client()
        #expect(try live.post(#"{"type":"increase"}"#, client: client).status == 200)
        #expect(storage.appendThreads.last?.hasPrefix("MHD") == true, "alone: on its worker (\(storage.appendThreads))")
        let other = live.client()
        #expect(try other.send(path: "/healthz").status == 200, "a second client, kept alive")
        #expect(try live.post(#"{"type":"increase"}"#, client: client).status == 200)
        #expect(storage.appendThreads.last?.hasPrefix("MHD") == false, "with another client: on the journal thread (\(storage.appendThreads))")
    }

    @Test func a412NamesTheCurrentVersionOnlyOnceItIsDurable() throws {
        let (live, storage) = try LiveServer.withCommitsHeld()
        let answers = raceAHeldCommit(of: storage) {
            try live.post(#"{"type":"increase"}"#)
        } second: {
            // Version 1 is reduced in memory and held before its commit: the 412 names it.
            try live.post(#"{"type":"increase"}"#, headers: [("If-Match", live.etag(0))])
        } whileHeld: { refused in
            #expect(live.store.version == 1, "reduced in memory")
            #expect(refused.next(timeout: .milliseconds(300)) == nil, "no 412 naming version 1 before it is durable")
        }
        let response = try #require(answers.second)
        #expect(response.status == 412)
        #expect(response.headers["ETag"] == live.etag(1))
        #expect(answers.first?.status == 200)
        #expect(live.store.version == 1, "the conditional action was not applied")
    }

    @Test func nothingIsSeenBeforeItIsDurable() throws {
        let storage = MemoryJournalStorage()
        let live = try LiveServer(journal: storage)
        let subscriber = HandedOver(try live.subscribe())
        #expect(try subscriber.value.nextEvent(timeout: .seconds(5))?.version == 0)
        storage.holdCommits()
        let answer = Mailbox<TestHTTPResponse>()
        let errors = runOnThreads(2) { index in
            if index == 0 {
                answer.post(try live.post(#"{"type":"increase"}"#))
            } else {
                try storage.whileACommitIsHeld { () throws in
                    #expect(live.store.version == 1, "reduced in memory")
                    #expect(answer.snapshot.isEmpty, "not answered before the commit")
                    #expect(try live.get("/state").headers["ETag"] == "\"0\"", "GET /state shows the durable version")
                    let early = #expect(throws: TestHTTPError.self, "no event before the commit") {
                        try subscriber.value.nextEvent(timeout: .milliseconds(200))
                    }
                    #expect(early?.code == .timeout)
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(try answer.next(timeout: .seconds(5))?.decoded(VersionAnswer.self).version == 1)
        #expect(try subscriber.value.nextEvent(timeout: .seconds(5))?.version == 1)
    }
}
