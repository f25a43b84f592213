import ArgumentParser
import Foundation
import Journal
import Logging
import ReMVVMServer
import SQLiteJournal
import ServiceLifecycle

extension ServeCommand {
    /// Loads the settings, opens the journal the settings name (or none, or the shared log), and
    /// serves `domain`'s store until SIGINT or SIGTERM.
    func run<State>(domain: Domain<State>) async throws {
        let settings: ServerSettings
        do {
            settings = try await loadSettings(
                environment: ProcessInfo.processInfo.environment,
                defaultConfigPath: ServerSettings.defaultConfigPath(for: domain.name)
            )
        } catch {
            // Exit 64 like a bad flag, without the usage text: the message names the setting
            // and where it comes from, often not the command line.
            throw ExitCode.reporting(error, as: .validationFailure)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        let logger = Logger(label: domain.name)
        for warning in ServerSettings.environmentWarnings(in: ProcessInfo.processInfo.environment, program: domain.name) {
            // Not refused, unlike a config file's unknown member: the environment is shared.
            logger.warning("\(warning)")
        }
        var service = settings.service
        var journal: (any JournalStorage)?
        var stores: StoreServing<State>?
        var replication: ReplicaConfiguration?
        if settings.inMemory {
            logger.notice("in memory: no journal, nothing survives a restart")
        } else if settings.journal == .postgres {
            do {
                let opened = try Self.openReplica(settings, logger: logger)
                replication = opened.replication
                stores = .replicas(of: opened.log, snapshotsIn: opened.snapshots, makeStore: { try domain.store() })
            } catch {
                logger.critical("cannot start: \(error)")
                throw ExitCode.failure
            }
            service.versionTags = .plain  // versions are the shared log's
        } else {
            do {
                journal = try Self.openJournal(settings, logger: logger)
            } catch {
                logger.critical("cannot start: \(error)")
                throw ExitCode.failure
            }
            service.versionTags = .plain  // versions survive restarts
            if let file = journal as? SQLiteJournalStorage {
                stores = StoreServing(catalog: file, storage: .journal({ id in
                    guard let view = try file.storage(for: id) else {
                        throw JournalError(code: .unusable, message: "the store \(id) is not in \(file.path)")
                    }
                    return view
                }), makeStore: { try domain.store() })
            }
            logger.info("journal: \(settings.dataDir)/\(SQLiteJournalStorage.fileName) (journalSync \(settings.journalSync.rawValue))")
        }
        let server = ReMVVMServer(
            store: try domain.store(),
            actions: domain.actions,
            viewModels: domain.viewModels,
            http: settings.http,
            service: service,
            accessControl: settings.accessControl,
            journal: journal,
            replication: replication,
            logger: logger
        )
        if settings.inMemory {
            stores = StoreServing(catalog: MemoryStoreCatalog(), storage: .memory, makeStore: { try domain.store() })
        }
        // Every store, in memory, in the journal file's per-store views, or of the shared log
        // (docs/http-api.md, "Stores"; docs/replicas.md, "Many stores").
        if let stores {
            server.service.serveStores(stores)
        }
        let group = ServiceGroup(
            services: [server],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        do {
            try await group.run()
        } catch {
            logger.critical("stopped: \(error)")
            throw ExitCode.failure
        }
        logger.info("stopped")
    }
}
