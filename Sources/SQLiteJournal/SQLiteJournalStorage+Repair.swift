public import Journal

extension SQLiteJournalStorage: JournalContents {
    public func storedSnapshots() throws(JournalError) -> [JournalSnapshot] {
        try withReader { reader throws(SQLiteError) -> [JournalSnapshot] in
            try Self.snapshots(in: reader.database).reversed()
        }
    }

    /// Carries out `plan` in one transaction (`remvvm-server repair`): removes the records after
    /// its last good version and those through ``Journal/JournalRepairPlan/removeRecordsThrough``
    /// (with the snapshots before that version), every snapshot after the last good version or
    /// not matching its checksum, and the
    /// idempotency answers kept after the last kept record (their actions are gone: a retry
    /// applies them again); then stores the plan's snapshot.
    public func repair(_ plan: JournalRepairPlan) throws(JournalError) {
        try withWriter { writer throws(SQLiteError) in
            try writer.database.transaction { () throws(SQLiteError) in
                let damaged = try Self.snapshots(in: writer.database).filter { !$0.isIntact || $0.version > plan.lastGoodVersion }
                let removeSnapshot = try writer.database.prepare("DELETE FROM snapshots WHERE version = ?1")
                for snapshot in damaged {
                    removeSnapshot.reset()
                    try removeSnapshot.bind(1, Int64(snapshot.version))
                    try removeSnapshot.run()
                }
                let lastTime = try writer.database.prepare("SELECT time FROM actions WHERE version = ?1")
                try lastTime.bind(1, Int64(plan.lastGoodVersion))
                let keptUntil = try lastTime.step() ? lastTime.int64(0) : plan.snapshot.time
                let removeAfter = try writer.database.prepare("DELETE FROM actions WHERE version > ?1")
                try removeAfter.bind(1, Int64(plan.lastGoodVersion))
                try removeAfter.run()
                if let through = plan.removeRecordsThrough {
                    writer.removeActions.reset()
                    try writer.removeActions.bind(1, Int64(through))
                    try writer.removeActions.run()
                    // No record follows them any more: they cannot be started from.
                    let removeOlder = try writer.database.prepare("DELETE FROM snapshots WHERE version < ?1")
                    try removeOlder.bind(1, Int64(through))
                    try removeOlder.run()
                }
                let removeAnswers = try writer.database.prepare("DELETE FROM answers WHERE time > ?1")
                try removeAnswers.bind(1, keptUntil)
                try removeAnswers.run()
                writer.insertSnapshot.reset()
                try writer.insertSnapshot.bind(1, Int64(plan.snapshot.version))
                try writer.insertSnapshot.bind(2, plan.snapshot.state)
                try writer.insertSnapshot.bind(3, plan.snapshot.time)
                try writer.insertSnapshot.bind(4, Int64(plan.snapshot.checksum))
                try writer.insertSnapshot.run()
                writer.pruneSnapshots.reset()
                try writer.pruneSnapshots.run()
            }
        } describing: { "repairing \(path) failed, nothing was changed: \($0)" }
    }

    /// Copies the journal to `destination` (a file that must not exist) with SQLite's online
    /// backup API, as `remvvm-server repair` does before it changes anything.
    public func backup(to destination: String) throws(JournalError) {
        try withReader { reader throws(SQLiteError) in
            try reader.database.backup(to: destination)
        }
    }
}
