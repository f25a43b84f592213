import Foundation
import Journal
import Logging
import PostgresJournal
import ReMVVMServer
import SQLiteJournal

extension ServeCommand {
    /// Opens the shared log in PostgreSQL (retrying while it cannot be reached, with a log line
    /// per attempt) and the data directory that keeps this replica's snapshots; the log and the
    /// data directory are returned too, for the log's other stores (``StoreServing/replicas(of:snapshotsIn:makeStore:)``).
    static func openReplica(
        _ settings: ServerSettings, logger: Logger
    ) throws -> (replication: ReplicaConfiguration, log: PostgresSharedLog, snapshots: SQLiteJournalStorage) {
        let name = settings.replicaName.isEmpty ? ProcessInfo.processInfo.hostName : settings.replicaName
        let snapshots = try openJournal(settings, logger: logger)
        logger.info("replica \(name): connecting to the shared log in PostgreSQL")
        let log: PostgresSharedLog
        do {
            // One attempt now: an incompatible schema refuses to start. PostgreSQL unreachable:
            // start anyway, /healthz answers 503 and the replica connects when it can.
            log = try PostgresSharedLog(conninfo: settings.postgresURL, patience: .zero)
        } catch where error.code == .unusable {
            logger.warning("replica \(name): cannot use PostgreSQL now (\(error)); serving /healthz 503 and retrying with backoff (a wrong password or database name is retried too: fix it and the replica connects)")
            log = PostgresSharedLog(connectingLater: settings.postgresURL)
        } catch {
            snapshots.close()
            throw error
        }
        logger.info("replica \(name): shared log in PostgreSQL, snapshots in \(settings.dataDir)/\(SQLiteJournalStorage.fileName)")
        return (ReplicaConfiguration(log: log, snapshots: snapshots, name: name, expiry: settings.replicaExpiry), log, snapshots)
    }

    /// Creates the data directory if missing and opens its journal; logs a fold that a stop had
    /// cut short and the start finished, and when its background checkpoints start failing and
    /// when they recover.
    static func openJournal(_ settings: ServerSettings, logger: Logger) throws -> SQLiteJournalStorage {
        try createDirectories(settings.dataDir)
        let storage = try SQLiteJournalStorage(
            directory: settings.dataDir, sync: settings.journalSync,
            foldThreshold: settings.journalFoldThreshold, foldPiece: settings.journalFoldPiece
        )
        if storage.finishedAnInterruptedFold {
            logger.notice("journal: finished moving the log of recent records into actions, which the last stop had cut short")
        }
        storage.onCheckpointProblem { problem in
            if let problem {
                logger.error("checkpoints of \(storage.path) fail (\(problem)): the write-ahead log grows until they succeed; check the disk (space, errors) and permissions")
            } else {
                logger.notice("checkpoints of \(storage.path) succeed again")
            }
        }
        return storage
    }

    /// Creates `directory` and the directories above it that are missing (`mkdir -p`), saying
    /// which one could not be made and why in the system's words (Foundation's error would say
    /// "NSCocoaErrorDomain error 512").
    private static func createDirectories(_ directory: String) throws(JournalError) {
        var path = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            path += "/" + component
            var status = stat()
            if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                continue
            }
            // 0o777 and the umask decide, as for mkdir -p.
            guard mkdir(path, 0o777) == 0 || errno == EEXIST && stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR else {
                // EEXIST: a file, or a symbolic link to something missing or not a directory.
                let reason = errno == EEXIST ? "it exists and is not a directory" : String(cString: strerror(errno))
                throw JournalError(code: .unusable, message: "cannot create the data directory \(directory): \(path): \(reason)")
            }
        }
    }
}
