import Foundation
public import Journal
public import ReMVVM

/// Checks a journal the way only the domain can (`remvvm-server verify` and `repair`): every
/// record against its checksum and its predecessor, and that replaying the records through the
/// store's reducers from each kept snapshot — and from the initial state when the records start
/// at version 1 — gives the next snapshot's state. Finds the last good version: the newest one an
/// intact base and intact, consecutive records still rebuild, and what a repair keeps.
public struct JournalVerifier<State: StoreState & Codable>: Sendable {
    private let store: Store<State>
    private let initial: State
    private let codec: ActionJournalCodec
    /// Records read at a time.
    private let pageSize = 1_024

    /// A verifier that replays through `store`'s reducers and reads actions by `actions`' wire
    /// names; `store` is new: its state is the one before version 1.
    public init(store: Store<State>, actions: ActionRegistry) {
        self.store = store
        initial = store.state
        codec = ActionJournalCodec(registry: actions)
    }

    /// Reads everything `contents` holds and checks it; throws only when nothing can be read.
    public func verify(_ contents: any JournalContents) throws(JournalError) -> JournalVerification {
        var report = JournalVerification()
        let scan = scanRecords(contents, into: &report)
        let snapshots = try contents.storedSnapshots()
        report.snapshotVersions = snapshots.map(\.version)
        var bases: [Base] = []
        if scan.first == 1 || (scan.first == nil && snapshots.isEmpty) {
            bases.append(Base(version: 0, state: initial, label: "the initial state (version 0)"))
        }
        for snapshot in snapshots {
            guard snapshot.isIntact else {
                report.damagedSnapshots.append(snapshot.version)
                report.problems.append("the snapshot of version \(snapshot.version) does not match its checksum: bytes of it changed on disk")
                continue
            }
            do {
                let state = try JSONDecoder().decode(State.self, from: Data(snapshot.state))
                bases.append(Base(version: snapshot.version, state: state, label: "the snapshot of version \(snapshot.version)"))
            } catch {
                report.problems.append("the snapshot of version \(snapshot.version) does not decode as this build's state: \(error)")
            }
        }
        guard !bases.isEmpty else {
            report.problems.append("no base to rebuild any version from: no usable snapshot, and the records do not start at version 1")
            return report
        }
        // Newest first: a base whose replay reaches the next base with its state goes as far as it.
        var reaches: [Reach] = []
        var disagreeing: [Int] = []
        for (index, base) in bases.enumerated().reversed() {
            let next = index + 1 < bases.count ? bases[index + 1] : nil
            var reach = replay(from: base, through: next?.version, contents, into: &report)
            reach.base = index
            if let next, reach.version == next.version, let nextReach = reaches.first {
                if let reached = reach.state, try encoded(reached) == encoded(next.state) {
                    report.notes.append("replaying from \(base.label) gives the state of the snapshot of version \(next.version)")
                    reach = Reach(base: index, version: nextReach.version, state: nextReach.state)
                } else {
                    report.problems.append("replaying from \(base.label) gives a different state at version \(next.version) than the snapshot of version \(next.version) holds")
                    reach = Reach(base: index, version: next.version - 1, state: nil)
                    disagreeing.append(index)
                }
            }
            reaches.insert(reach, at: 0)
        }
        // The furthest reach; of equal ones the newest base's (the one a start uses).
        guard let best = reaches.enumerated().max(by: { ($0.element.version, $0.offset) < ($1.element.version, $1.offset) })?.element else {
            return report
        }
        report.lastGoodVersion = best.version
        report.latestVersion = max(scan.last ?? 0, snapshots.last?.version ?? 0)
        guard report.needsRepair else { return report }
        guard best.version > 0 else {
            report.problems.append("no version can be rebuilt: a repair would leave nothing; restore a backup, or move the data directory aside to start empty")
            return report
        }
        let state: [UInt8]
        if let reached = best.state {
            state = try encoded(reached)
        } else {
            state = try encodedState(at: best.version, from: bases[best.base], contents)
        }
        let baseVersion = bases[best.base].version
        var below = (scan.damaged + scan.gapsAfter).filter { $0 <= baseVersion }.max()
        if disagreeing.contains(where: { $0 < best.base }), baseVersion > 0 {
            // An older base's replay disagrees with this one: the history before it goes.
            below = baseVersion
        }
        report.repairPlan = JournalRepairPlan(
            lastGoodVersion: best.version,
            snapshot: JournalSnapshot(version: best.version, state: state, time: ActionJournalCodec.now()),
            removeRecordsThrough: below
        )
        return report
    }

    private struct Base {
        let version: UInt64
        let state: State
        let label: String
    }

    /// How far a base's replay got: the newest version rebuilt and its state (nil when the state
    /// at that version must be rebuilt again: it is the one before a snapshot that disagreed).
    private struct Reach {
        var base = 0
        let version: UInt64
        let state: State?
    }

    private struct Scan {
        var count: UInt64 = 0
        var first: UInt64?
        var last: UInt64?
        var damaged: [UInt64] = []
        var gapsAfter: [UInt64] = []
    }

    /// Every record once: checksums and continuity, each problem in the report.
    private func scanRecords(_ contents: any JournalContents, into report: inout JournalVerification) -> Scan {
        var scan = Scan()
        var after: UInt64 = 0
        while true {
            let page: [JournalRecord]
            do {
                page = try contents.records(after: after, limit: pageSize)
            } catch {
                report.problems.append("the records after version \(after) cannot be read: \(error)")
                break
            }
            guard let lastInPage = page.last else { break }
            // A page that does not move past `after`: the table's index is out of version order
            // (a damaged page), and the next read would return the same page for ever.
            guard lastInPage.version > after else {
                report.problems.append("the records after version \(after) are not in version order (a damaged index of the records' table): the rest is not read")
                break
            }
            for record in page {
                if let last = scan.last, record.version != last + 1 {
                    report.problems.append("versions \(last + 1)...\(record.version - 1) are missing")
                    scan.gapsAfter.append(last)
                }
                if !record.isIntact {
                    if scan.damaged.count < 100 {
                        report.problems.append("the record of version \(record.version) does not match its checksum: bytes of it changed on disk")
                    }
                    scan.damaged.append(record.version)
                }
                scan.count += 1
                scan.first = scan.first ?? record.version
                scan.last = record.version
            }
            after = lastInPage.version
        }
        report.recordCount = scan.count
        report.firstRecord = scan.first
        report.lastRecord = scan.last
        if scan.damaged.count > 100 {
            report.problems.append("\(scan.damaged.count - 100) more records do not match their checksums")
        }
        return scan
    }

    /// Replays the records after `base` through `target` (or to the end), stopping before a
    /// record that is missing, damaged or does not decode.
    private func replay(
        from base: Base, through target: UInt64?, _ contents: any JournalContents, into report: inout JournalVerification
    ) -> Reach {
        var state = base.state
        var version = base.version
        let limit = target ?? UInt64.max
        while version < limit {
            let page: [JournalRecord]
            do {
                page = try contents.records(after: version, limit: pageSize)
            } catch {
                return Reach(version: version, state: state)  // reported by the scan
            }
            guard !page.isEmpty else { break }
            for record in page where record.version <= limit {
                guard record.version == version + 1, record.isIntact else {
                    return Reach(version: version, state: state)  // reported by the scan
                }
                do {
                    state = store.reduced(state, with: try codec.action(from: record))
                } catch {
                    report.problems.append("replaying from \(base.label): version \(record.version) \(codec.unreadable(record, error))")
                    return Reach(version: version, state: state)
                }
                version = record.version
            }
        }
        return Reach(version: version, state: state)
    }

    private func encodedState(at version: UInt64, from base: Base, _ contents: any JournalContents) throws(JournalError) -> [UInt8] {
        var ignored = JournalVerification()
        let reach = replay(from: base, through: version, contents, into: &ignored)
        guard reach.version == version, let state = reach.state else {
            throw JournalError(code: .corrupt, message: "the state at version \(version) can no longer be rebuilt from \(contents.location)")
        }
        return try encoded(state)
    }

    private func encoded(_ state: State) throws(JournalError) -> [UInt8] {
        do {
            return try JSONCoding.encode(state)
        } catch {
            throw JournalError(code: .corrupt, message: "the state does not encode: \(error)")
        }
    }
}
