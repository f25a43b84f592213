import HTTPTestSupport
import Journal
import Testing

extension LiveServer {
    /// A server over an in-memory journal whose commits are held (``MemoryJournalStorage/holdCommits()``):
    /// what it dispatches is reduced but not durable until the test releases them.
    static func withCommitsHeld() throws -> (live: LiveServer, storage: MemoryJournalStorage) {
        let storage = MemoryJournalStorage()
        let live = try LiveServer(journal: storage)
        storage.holdCommits()
        return (live, storage)
    }
}

extension MemoryJournalStorage {
    /// Runs `body` once the storage holds a commit back, then releases it whatever `body` does (a
    /// thread that stopped in between would leave the commit held).
    func whileACommitIsHeld(_ body: () throws -> Void) rethrows {
        guard waitUntilACommitIsHeld(timeout: .seconds(5)) else {
            releaseCommits()
            Issue.record("no commit was held")
            return
        }
        defer { releaseCommits() }
        try body()
    }
}

/// A request that meets a version held before its commit, on three threads: `first` is answered
/// once its version is durable; `second` is sent once that version is held, reduced but not
/// durable; `whileHeld` checks, while it is held, what must wait for the commit (it gets the
/// answers to `second`), then the commits are released. Returns both answers.
func raceAHeldCommit(
    of storage: MemoryJournalStorage,
    first: @escaping @Sendable () throws -> TestHTTPResponse,
    second: @escaping @Sendable () throws -> TestHTTPResponse,
    whileHeld: @escaping @Sendable (_ secondAnswers: Mailbox<TestHTTPResponse>) throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) -> (first: TestHTTPResponse?, second: TestHTTPResponse?) {
    let firstAnswers = Mailbox<TestHTTPResponse>()
    let secondAnswers = Mailbox<TestHTTPResponse>()
    let errors = runOnThreads(3) { index in
        switch index {
        case 0:
            firstAnswers.post(try first())
        case 1:
            guard storage.waitUntilACommitIsHeld(timeout: .seconds(5)) else { return }
            secondAnswers.post(try second())
        default:
            try storage.whileACommitIsHeld { try whileHeld(secondAnswers) }
        }
    }
    #expect(errors.isEmpty, "\(errors)", sourceLocation: sourceLocation)
    return (firstAnswers.next(timeout: .seconds(5)), secondAnswers.next(timeout: .seconds(5)))
}
