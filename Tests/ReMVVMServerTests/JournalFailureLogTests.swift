import HTTPTestSupport
import Journal
import Testing

/// While the journal fails, every write is refused, and each refusal used to log a line of its
/// own (654 lines in 3 s on a full disk): now the first is logged, then a count.
@Suite struct JournalFailureLogTests {
    @Test func refusalsWhileTheJournalFailsAreNotLoggedOneLineEach() throws {
        let storage = MemoryJournalStorage()
        let captured = CapturedLog()
        let live = try LiveServer(journal: storage, logger: captured.logger(level: .error))
        storage.failAppends(with: JournalError(code: .writeFailed, message: "disk full (test)"))
        #expect(try live.post(#"{"type":"increase"}"#).status == 503, "the commit that fails")
        for _ in 0..<50 {
            #expect(try live.post(#"{"type":"increase"}"#).status == 503)
        }
        let refusals = captured.messages.snapshot.filter { $0.contains("refusing actions while the journal fails") }
        // At most one: the limiter is one per process and another test's refusals within its
        // 10 s may already have used the line.
        #expect(refusals.count <= 1, "\(refusals.count) lines")
    }
}
