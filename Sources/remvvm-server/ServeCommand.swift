import ArgumentParser
import Configuration
import ExampleApp
import Logging
import ReMVVM
import ReMVVMServer
import Foundation
import ServiceLifecycle

/// `remvvm-server`: serves the example store over HTTP until SIGINT or SIGTERM.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remvvm-server",
        abstract: "Serves a ReMVVM store over HTTP: POST /actions, GET /state, /viewmodels/<name>, /events.",
        discussion: """
            Each setting comes from, in order: a flag, an environment variable REMVVM_<NAME> \
            (e.g. REMVVM_PORT=9090, REMVVM_WORKER_THREADS=4, REMVVM_LOG_LEVEL=debug), the JSON config \
            file (keys: host, port, workerThreads, maxBodyBytes, connectionLimit, \
            perClientConnectionLimit, requestHeadTimeoutSeconds, connectionTimeoutSeconds, connectionMemoryBytes, heartbeatSeconds, subscriberBacklogBytes, \
            subscriberSendBufferBytes, directStreamWrites, reconnectDelayMilliseconds, logLevel), then the \
            built-in default. SIGINT or SIGTERM stops accepting, ends every event stream cleanly, lets \
            in-flight requests finish and exits 0.
            """
    )

    @Option(help: "The address to listen on: an IPv4 or IPv6 literal, localhost, or 0.0.0.0 for all. (default: 127.0.0.1)")
    var host: String?

    @Option(help: "The TCP port to listen on; 0 picks a free one. (default: 8080)")
    var port: Int?

    @Option(name: .customLong("config"), help: ArgumentHelp(
        "The JSON config file. (default: Config/remvvm-server.json, skipped if missing)",
        valueName: "path"
    ))
    var configPath: String?

    @Option(help: "Worker threads serving HTTP; 0 means one per core. (default: 0)")
    var workerThreads: Int?

    @Option(help: "The largest request body accepted, in bytes; larger ones get 413. (default: 1048576)")
    var maxBodyBytes: Int?

    @Option(help: "The most connections served at once, event streams included; requests beyond it get 503 with Retry-After. (default: 16384)")
    var connectionLimit: Int?

    @Option(help: "The most connections open at once from one IP address; more are closed at once. 0 = no limit. (default: 0)")
    var perClientConnectionLimit: Int?

    @Option(help: "Seconds a client may take to send a request head (from connecting, or from the previous answer); slower connections are closed. 0 = no limit. (default: 15)")
    var requestHeadTimeoutSeconds: Int?

    @Option(help: "Memory pool per connection in bytes: request head, buffers. It is most of what an idle event subscriber costs; at 16384, request heads up to about 15.7 KB and cookies up to about 7.5 KB fit (at 8192: 7 KB and 3.5 KB). (default: 16384)")
    var connectionMemoryBytes: Int?

    @Option(help: "Seconds between heartbeat comments on event streams. (default: 15)")
    var heartbeatSeconds: Int?

    @Option(help: "Bytes of events a subscriber may fall behind before it is disconnected. (default: 1048576)")
    var subscriberBacklogBytes: Int?

    @Option(help: "Kernel send buffer of each event-stream socket in bytes (SO_SNDBUF); bounds what a client that stops reading holds in the kernel. 0 = the kernel's automatic sizing. (default: 65536)")
    var subscriberSendBufferBytes: Int?

    @Option(help: ArgumentHelp(
        "Write events straight to a waiting stream's socket instead of through libmicrohttpd: true or false. (default: true)",
        valueName: "bool"
    ))
    var directStreamWrites: Bool?

    @Option(help: "Reconnect delay sent to event subscribers as `retry:` in their first event, in milliseconds. (default: 1000)")
    var reconnectDelayMilliseconds: Int?

    @Option(help: "trace, debug, info, notice, warning, error or critical. (default: info)")
    var logLevel: String?

    func run() async throws {
        let settings: ServerSettings
        do {
            settings = try await loadSettings()
        } catch {
            throw ValidationError("\(error)")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        let logger = Logger(label: "remvvm-server")
        let server = ReMVVMServer(
            store: try Store.example(),
            actions: ExampleApp.actions,
            viewModels: ExampleApp.viewModels,
            http: settings.http,
            service: settings.service,
            logger: logger
        )
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

    private func loadSettings() async throws -> ServerSettings {
        var flags: [AbsoluteConfigKey: ConfigValue] = [:]
        func set(_ key: ServerSettings.Key, _ value: ConfigContent?) {
            if let value { flags[AbsoluteConfigKey([key.rawValue])] = ConfigValue(value, isSecret: false) }
        }
        set(.host, host.map { .string($0) })
        set(.port, port.map { .int($0) })
        set(.workerThreads, workerThreads.map { .int($0) })
        set(.maxBodyBytes, maxBodyBytes.map { .int($0) })
        set(.connectionLimit, connectionLimit.map { .int($0) })
        set(.perClientConnectionLimit, perClientConnectionLimit.map { .int($0) })
        set(.requestHeadTimeoutSeconds, requestHeadTimeoutSeconds.map { .int($0) })
        set(.connectionMemoryBytes, connectionMemoryBytes.map { .int($0) })
        set(.heartbeatSeconds, heartbeatSeconds.map { .int($0) })
        set(.subscriberBacklogBytes, subscriberBacklogBytes.map { .int($0) })
        set(.subscriberSendBufferBytes, subscriberSendBufferBytes.map { .int($0) })
        set(.directStreamWrites, directStreamWrites.map { .bool($0) })
        set(.reconnectDelayMilliseconds, reconnectDelayMilliseconds.map { .int($0) })
        set(.logLevel, logLevel.map { .string($0) })

        return try await ServerSettings.load(
            flags: flags,
            environment: ProcessInfo.processInfo.environment,
            configPath: configPath
        )
    }
}
