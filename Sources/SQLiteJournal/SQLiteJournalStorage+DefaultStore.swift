public import Journal

/// The file as a ``Journal/JournalStorage``: the store `default` (a server of one store, and
/// every caller written before there were several, keep using the file as they did).
extension SQLiteJournalStorage {
    public func recover() throws(JournalError) -> JournalRecovery {
        try recover(defaultStore)
    }

    public func append(_ records: [JournalRecord], answers: [KeptAnswer]) throws(JournalError) {
        try append(records, answers: answers, to: defaultStore)
    }

    public func saveSnapshot(_ snapshot: JournalSnapshot) throws(JournalError) {
        try saveSnapshot(snapshot, of: defaultStore)
    }

    public func snapshot(atOrBefore version: UInt64) throws(JournalError) -> JournalSnapshot? {
        try snapshot(atOrBefore: version, of: defaultStore)
    }

    public func answer(forKey key: String) throws(JournalError) -> KeptAnswer? {
        try answer(forKey: key, of: defaultStore)
    }

    public func removeAnswers(keptBefore time: Int64) throws(JournalError) {
        try removeAnswers(keptBefore: time, of: defaultStore)
    }

    public func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        try records(after: version, limit: limit, of: defaultStore)
    }

    public func newestVersion(recordedBefore time: Int64) throws(JournalError) -> UInt64? {
        try newestVersion(recordedBefore: time, of: defaultStore)
    }

    public func removeRecords(through version: UInt64) throws(JournalError) {
        try removeRecords(through: version, of: defaultStore)
    }
}
