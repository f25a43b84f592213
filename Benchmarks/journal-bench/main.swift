// Group commit through the SQLite journal: N clients each append one record and wait until it is
// durable, again and again, for a few seconds (a closed loop, like wrk's connections on
// POST /actions). Prints acknowledged records/s, commits/s and records per commit.
//
//   journal-bench <directory> <sync: full|normal|off> <clients> <seconds>
//   journal-bench fill <directory> <count>    # count {"type":"increase"} records, for restart timing
//   journal-bench storage <directory> <sync> <seconds>   # one record per commit, on the calling
//                                                        # thread, no journal thread: a commit's cost
//   journal-bench stores <directory> <sync> <stores> <clients> <seconds>   # many stores, one
//                                              # committer (ManyStores.swift)
//   journal-bench load <directory> <stores> <loaded> <records>   # loading one store of many
//   journal-bench disk <directory> <seconds>   # the file system's own floor under it: one 4 KiB
//                                              # block of a preallocated file overwritten and
//                                              # fdatasync'd, again and again (no SQLite)
//
// JOURNAL_FOLD_THRESHOLD=N: records in the journal's log of recent records before they are folded
// into `actions` (SQLiteJournalStorage's foldThreshold; default 32,768).
import ConcurrencyKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Journal
import SQLiteJournal

/// A journal in `directory`, emptied first (whatever an earlier run left there is removed).
func emptyJournal(in directory: String, sync: JournalSync) throws -> SQLiteJournalStorage {
    try? FileManager.default.removeItem(atPath: directory)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let threshold = ProcessInfo.processInfo.environment["JOURNAL_FOLD_THRESHOLD"].flatMap { Int($0) }
    return try SQLiteJournalStorage(directory: directory, sync: sync, foldThreshold: threshold ?? SQLiteJournalStorage.defaultFoldThreshold)
}

let arguments = CommandLine.arguments
if arguments.count == 7, arguments[1] == "stores", let sync = JournalSync(rawValue: arguments[3]),
   let stores = Int(arguments[4]), let clients = Int(arguments[5]), let seconds = Double(arguments[6]) {
    try runManyStores(directory: arguments[2], sync: sync, stores: stores, clients: clients, seconds: seconds)
    exit(0)
}
if arguments.count == 6, arguments[1] == "load", let stores = Int(arguments[3]), let loaded = Int(arguments[4]),
   let records = Int(arguments[5]) {
    try runStoreLoad(directory: arguments[2], stores: stores, loaded: loaded, records: records)
    exit(0)
}
if arguments.count == 4, arguments[1] == "fill", let count = UInt64(arguments[3]) {
    let storage = try emptyJournal(in: arguments[2], sync: .off)
    var version: UInt64 = 0
    let started = ContinuousClock.now
    while version < count {
        let batch = (1...min(10_000, count - version)).map { offset in
            JournalRecord(version: version + offset, type: "increase", payload: Array("{}".utf8), time: 1_700_000_000_000)
        }
        try storage.append(batch)
        version += UInt64(batch.count)
    }
    storage.close()
    print("filled \(count) records in \(ContinuousClock.now - started)")
    exit(0)
}
if arguments.count == 5, arguments[1] == "storage", let sync = JournalSync(rawValue: arguments[3]),
   let seconds = Double(arguments[4]) {
    let storage = try emptyJournal(in: arguments[2], sync: sync)
    let payload = Array(#"{"amount":1}"#.utf8)
    let started = ContinuousClock.now
    let deadline = started + .milliseconds(Int(seconds * 1000))
    var version: UInt64 = 0
    while ContinuousClock.now < deadline {
        version += 1
        try storage.append(
            [JournalRecord(version: version, type: "increase", payload: payload, time: 1_700_000_000_000)], answers: []
        )
    }
    let elapsed = ContinuousClock.now - started
    storage.close()
    let perSecond = Double(version) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    print(String(format: "sync=%@ storage alone: %.0f single-record commits/s, %.0f us each", sync.rawValue, perSecond, 1e6 / perSecond))
    exit(0)
}
if arguments.count == 4, arguments[1] == "disk", let seconds = Double(arguments[3]) {
    let directory = arguments[2]
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/disk-probe"
    unlink(path)
    let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else {
        print("journal-bench: cannot create \(path): \(String(cString: strerror(errno)))")
        exit(1)
    }
    // Preallocated and synced first, so each fdatasync writes data only, as a reused SQLite WAL does.
    let blockCount = 256
    var block = [UInt8](repeating: 0x5A, count: 4096)
    for index in 0..<blockCount {
        guard pwrite(descriptor, &block, block.count, off_t(index * block.count)) == block.count else {
            print("journal-bench: write to \(path) failed: \(String(cString: strerror(errno)))")
            exit(1)
        }
    }
    guard fsync(descriptor) == 0 else {
        print("journal-bench: fsync of \(path) failed: \(String(cString: strerror(errno)))")
        exit(1)
    }
    let started = ContinuousClock.now
    let deadline = started + .milliseconds(Int(seconds * 1000))
    var writes = 0
    while ContinuousClock.now < deadline {
        block[0] = UInt8(truncatingIfNeeded: writes)
        guard pwrite(descriptor, &block, block.count, off_t(writes % blockCount * block.count)) == block.count,
              fdatasync(descriptor) == 0 else {
            print("journal-bench: write or fdatasync of \(path) failed: \(String(cString: strerror(errno)))")
            exit(1)
        }
        writes += 1
    }
    let elapsed = ContinuousClock.now - started
    close(descriptor)
    unlink(path)  // here, not in a defer: exit() skips those
    let perSecond = Double(writes) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    print(String(format: "disk alone: %.0f synced 4 KiB writes/s, %.0f us each", perSecond, 1e6 / perSecond))
    exit(0)
}
guard arguments.count == 5, let sync = JournalSync(rawValue: arguments[2]),
      let clients = Int(arguments[3]), let seconds = Double(arguments[4]) else {
    print("usage: journal-bench <directory> <full|normal|off> <clients> <seconds> | fill <directory> <count> | storage <directory> <sync> <seconds> | disk <directory> <seconds> | stores <directory> <sync> <stores> <clients> <seconds> | load <directory> <stores> <loaded> <records>")
    exit(2)
}
let storage = try emptyJournal(in: arguments[1], sync: sync)
let journal = GroupCommitJournal(storage: storage, lastVersion: 0)
precondition(journal.start())

// Versions are handed out in order, as the store's processing thread does.
let nextVersion = Lock<UInt64>(0)
let payload = Array(#"{"amount":1}"#.utf8)
let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
let acknowledged = Lock(0)
let done = Lock(0)
for _ in 0..<clients {
    Thread {
        var count = 0
        while ContinuousClock.now < deadline {
            let version = nextVersion.withLock { version -> UInt64 in
                version += 1
                journal.append(JournalRecord(version: version, type: "increase", payload: payload, time: 1_700_000_000_000))
                return version
            }
            guard case .success = journal.waitUntilDurable(version, timeout: .seconds(10)) else {
                print("journal-bench: version \(version) did not become durable within 10 s")
                exit(1)
            }
            count += 1
        }
        acknowledged.withLock { $0 += count }
        done.withLock { $0 += 1 }
        done.notifyAll()
    }.start()
}
_ = done.wait(timeout: .seconds(seconds + 30)) { $0 == clients }
let statistics = journal.statistics
journal.stop()
storage.close()
let total = acknowledged.withLock { $0 }
print(String(
    format: "sync=%@ clients=%d: %.0f acknowledged records/s, %.0f commits/s, %.1f records/commit",
    sync.rawValue, clients, Double(total) / seconds, Double(statistics.commits) / seconds,
    Double(statistics.records) / Double(max(1, statistics.commits))
))
