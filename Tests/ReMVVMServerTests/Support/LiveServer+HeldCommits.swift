import Journal

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
