import ArgumentParser
import Configuration
import Foundation

/// `serve`, the default subcommand: serves a domain's store over HTTP until SIGINT or SIGTERM, with
/// every setting from a flag, a `REMVVM_*` variable, the config file or its default.
struct ServeCommand: DomainCommand {
    /// What the server does, in `--help` of the executable and of `serve`.
    static let abstract = "Serves a ReMVVM store over HTTP: POST /actions, GET /state, /viewmodels/<name>, /events."

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "serve",
            abstract: abstract,
            discussion: "Each setting comes from, in order: a flag, an environment variable REMVVM_<NAME> "
                + "(e.g. REMVVM_PORT=9090, REMVVM_WORKER_THREADS=4, REMVVM_LOG_LEVEL=debug), the JSON config "
                + "file (keys: \(ServerSettings.Key.allCases.map(\.rawValue).joined(separator: ", "))), then the "
                + "built-in default. Secrets (REMVVM_AUTH_TOKENS, REMVVM_JWT_HS256_SECRET, REMVVM_POSTGRES_URL) come only from the "
                + "environment, the config file or a file named by a flag, never from a flag. "
                + "SIGINT or SIGTERM stops taking requests, publishes what was acknowledged, "
                + "ends every event stream cleanly and exits 0."
        )
    }

    @Option(help: .setting("The address to listen on: an IPv4 or IPv6 literal, localhost, or 0.0.0.0 for all.", .host))
    var host: String?

    @Option(help: .setting("The TCP port to listen on; 0 picks a free one.", .port))
    var port: Int?

    @Option(name: .customLong("config"), help: ArgumentHelp("The JSON config file. (default: \(ServerSettings.defaultConfigPath(for: ServerRootCommand.name.withLock { $0 })), skipped if missing)", valueName: "path"))
    var configPath: String?

    @Option(help: .setting("Worker threads serving HTTP; 0 means one per core.", .workerThreads))
    var workerThreads: Int?

    @Option(help: .setting("The largest request body accepted, in bytes; larger ones get 413.", .maxBodyBytes))
    var maxBodyBytes: Int?

    @Option(help: .setting("The most connections served at once, event streams included; requests beyond it get 503 with Retry-After.", .connectionLimit))
    var connectionLimit: Int?

    @Option(help: .setting("The most connections open at once from one IP address; more are closed at once. 0 = no limit.", .perClientConnectionLimit))
    var perClientConnectionLimit: Int?

    @Option(help: .setting("Seconds a client may take to send a request head (from connecting, or from the previous answer); slower connections are closed. 0 = no limit.", .requestHeadTimeoutSeconds))
    var requestHeadTimeoutSeconds: Int?

    @Option(help: .setting("Seconds a client may take to send a request body, from its head's arrival; slower connections are closed. 0 = no limit.", .requestBodyTimeoutSeconds))
    var requestBodyTimeoutSeconds: Int?

    @Option(help: .setting("Seconds a connection may stay idle (no bytes either way) before it is closed; event streams are exempt. 0 = no limit.", .connectionTimeoutSeconds))
    var connectionTimeoutSeconds: Int?

    @Option(help: .setting("Memory pool per connection in bytes: request head, buffers. It is most of what an idle event subscriber costs; at 16384, request heads up to about 15.7 KB and cookies up to about 7.5 KB fit (at 8192: 7 KB and 3.5 KB); each header field takes pool memory too (about 130 short fields fit at 16384).", .connectionMemoryBytes))
    var connectionMemoryBytes: Int?

    @Option(help: .setting("Seconds between heartbeat comments on event streams.", .heartbeatSeconds))
    var heartbeatSeconds: Int?

    @Option(help: .setting("Bytes of events a subscriber may fall behind before it is disconnected.", .subscriberBacklogBytes))
    var subscriberBacklogBytes: Int?

    @Option(help: .setting("Kernel send buffer of each event-stream socket in bytes (SO_SNDBUF); bounds what a client that stops reading holds in the kernel. 0 = the kernel's automatic sizing.", .subscriberSendBufferBytes))
    var subscriberSendBufferBytes: Int?

    @Option(help: .setting("Write events straight to a waiting stream's socket instead of through libmicrohttpd: true or false.", .directStreamWrites, valueName: "bool"))
    var directStreamWrites: Bool?

    @Option(help: .setting("Reconnect delay sent to event subscribers as `retry:` in their first event, in milliseconds.", .reconnectDelayMilliseconds))
    var reconnectDelayMilliseconds: Int?

    @Option(help: .setting("trace, debug, info, notice, warning, error or critical.", .logLevel))
    var logLevel: String?

    @Option(help: .setting("The directory of the journal and snapshots; created if missing. One server at a time may use it.", .dataDir, valueName: "path"))
    var dataDir: String?

    @Flag(help: "Keep the store in memory only: no journal, nothing survives a restart.")
    var inMemory = false

    @Option(help: .setting("full (fsync before acknowledging), normal (survives a crash of the process, not of the machine) or off.", .journalSync))
    var journalSync: String?

    @Option(help: .setting("Records the journal's log of recent records holds before they move into its table of actions (larger: fewer, longer moves).", .journalFoldThreshold))
    var journalFoldThreshold: Int?

    @Option(help: .setting("Records one piece of that move copies before a commit when the log holds records of 64 stores or more (smaller: shorter pauses, more passes).", .journalFoldPiece))
    var journalFoldPiece: Int?

    @Option(help: .setting("Where actions are kept: sqlite (one file in the data directory, one server) or postgres (one log in PostgreSQL shared by several replicas; snapshots stay in the data directory; the connection comes from REMVVM_POSTGRES_URL or libpq's PG* variables, never from a flag).", .journal))
    var journal: String?

    @Option(help: "This replica's name in logs and /healthz, with journal postgres, and the key of its registration in the shared log. (default: the host name)")
    var replicaName: String?

    @Option(help: .setting("With journal postgres: how long a replica that stopped renewing its registration (every minute while it runs) still holds the shared log's retention back; then it counts as gone. A duration such as 7d or 12h, or off.", .replicaExpiry))
    var replicaExpiry: String?

    @Option(help: .setting("Versions between snapshots of the state; a restart replays at most about this many actions.", .snapshotEvery))
    var snapshotEvery: Int?

    @Option(help: .setting("How much of the journal before the newest snapshot stays (GET /actions; a stream resumes from the journal only where a kept snapshot and the records after it reach its version): a number of versions, or an age such as 30d or 12h; older records are removed after each snapshot (on replicas: before the oldest snapshot of those registered in the shared log).", .journalRetention))
    var journalRetention: String?

    @Option(help: .setting("The most recent versions each store keeps in memory for event streams that resume with Last-Event-ID (older ones come from the journal).", .replayRingEvents))
    var replayRingEvents: Int?

    @Option(help: .setting("The bytes those versions may take, all stores together (each store that changed keeps its share), estimated from recent events; fewer are kept of a large state.", .replayRingBytes))
    var replayRingBytes: Int?

    @Option(help: .setting("How long the answer to a request with an Idempotency-Key is kept and replayed to retries: a number with s, m, h or d (e.g. 24h), or a number of seconds.", .idempotencyRetention))
    var idempotencyRetention: String?

    @Option(help: "Browser origins whose pages may call the API (CORS), comma-separated scheme://host[:port], or * for any origin without credentials; empty: CORS off. (default: none)")
    var corsAllowedOrigins: String?

    @Option(help: "While no access token is configured: the Host names requests may carry besides address literals, localhost and names under .localhost (always answered), comma-separated (DNS names or addresses, IPv6 in brackets, no port), or * alone for any; others get 421, so that a web page whose DNS name was rebound to this address cannot use the server. (default: none)")
    var allowedHosts: String?

    @Option(help: .setting("Measure requests, actions, the journal and streams for GET /metrics: true or false.", .metricsEnabled, valueName: "bool"))
    var metricsEnabled: Bool?

    @Option(help: .setting("Whether a POST of actions or of a command to a store that does not exist creates it first (a read never does): true or false.", .autoCreateStores, valueName: "bool"))
    var autoCreateStores: Bool?

    @Option(help: .setting("The most stores that may exist, default included; creating one more answers 507.", .maxStores))
    var maxStores: Int?

    @Option(help: .setting("The most stores loaded at once, default included; past it the least recently used store without open streams is unloaded (with a journal; in memory nothing is unloaded).", .maxLoadedStores))
    var maxLoadedStores: Int?

    @Option(help: .setting("Seconds without requests and open streams after which a store is unloaded, its snapshot written first (with a journal; in memory nothing is unloaded); 0: never.", .storeIdleSeconds))
    var storeIdleSeconds: Int?

    @Option(help: ArgumentHelp("A file of static tokens kept as hashes, one sha256:<hex>=SCOPE[+SCOPE] per line (printf %s \"$TOKEN\" | sha256sum). The tokens themselves go in REMVVM_AUTH_TOKENS, never on the command line. (default: none)", valueName: "path"))
    var authTokenFile: String?

    @Option(help: ArgumentHelp("A file holding the HS256 secret of JWTs (at least 32 bytes; a trailing newline is ignored), instead of REMVVM_JWT_HS256_SECRET. (default: none)", valueName: "path"))
    var jwtHs256SecretFile: String?

    @Option(help: ArgumentHelp("A PEM file with the public key of ES256 (P-256) or RS256 (RSA, 2048 bits or more) JWTs. (default: none)", valueName: "path"))
    var jwtPublicKeyFile: String?

    @Option(help: "The iss claim JWTs must carry; empty: not checked. (default: none)")
    var jwtIssuer: String?

    @Option(help: "The audience the aud claim of JWTs must name; empty: not checked. (default: none)")
    var jwtAudience: String?

    @Option(help: .setting("How far exp and nbf of JWTs may be off, for clocks that disagree.", .jwtLeewaySeconds))
    var jwtLeewaySeconds: Int?

    /// The settings: these flags, then `environment`'s `REMVVM_*` variables, then the config file
    /// (`--config`, or `defaultConfigPath` when it exists), then the built-in defaults.
    func loadSettings(environment: [String: String], defaultConfigPath: String) async throws -> ServerSettings {
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
        set(.requestBodyTimeoutSeconds, requestBodyTimeoutSeconds.map { .int($0) })
        set(.connectionTimeoutSeconds, connectionTimeoutSeconds.map { .int($0) })
        set(.connectionMemoryBytes, connectionMemoryBytes.map { .int($0) })
        set(.heartbeatSeconds, heartbeatSeconds.map { .int($0) })
        set(.subscriberBacklogBytes, subscriberBacklogBytes.map { .int($0) })
        set(.subscriberSendBufferBytes, subscriberSendBufferBytes.map { .int($0) })
        set(.directStreamWrites, directStreamWrites.map { .bool($0) })
        set(.reconnectDelayMilliseconds, reconnectDelayMilliseconds.map { .int($0) })
        set(.logLevel, logLevel.map { .string($0) })
        set(.dataDir, dataDir.map { .string($0) })
        set(.inMemory, inMemory ? .bool(true) : nil)
        set(.journalSync, journalSync.map { .string($0) })
        set(.journalFoldThreshold, journalFoldThreshold.map { .int($0) })
        set(.journalFoldPiece, journalFoldPiece.map { .int($0) })
        set(.journal, journal.map { .string($0) })
        set(.replicaName, replicaName.map { .string($0) })
        set(.replicaExpiry, replicaExpiry.map { .string($0) })
        set(.snapshotEvery, snapshotEvery.map { .int($0) })
        set(.journalRetention, journalRetention.map { .string($0) })
        set(.replayRingEvents, replayRingEvents.map { .int($0) })
        set(.replayRingBytes, replayRingBytes.map { .int($0) })
        set(.idempotencyRetention, idempotencyRetention.map { .string($0) })
        set(.corsAllowedOrigins, corsAllowedOrigins.map { .string($0) })
        set(.allowedHosts, allowedHosts.map { .string($0) })
        set(.metricsEnabled, metricsEnabled.map { .bool($0) })
        set(.autoCreateStores, autoCreateStores.map { .bool($0) })
        set(.maxStores, maxStores.map { .int($0) })
        set(.maxLoadedStores, maxLoadedStores.map { .int($0) })
        set(.storeIdleSeconds, storeIdleSeconds.map { .int($0) })
        // No flag for authTokens or jwtHs256Secret: secrets never go on the command line.
        set(.authTokenFile, authTokenFile.map { .string($0) })
        set(.jwtHs256SecretFile, jwtHs256SecretFile.map { .string($0) })
        set(.jwtPublicKeyFile, jwtPublicKeyFile.map { .string($0) })
        set(.jwtIssuer, jwtIssuer.map { .string($0) })
        set(.jwtAudience, jwtAudience.map { .string($0) })
        set(.jwtLeewaySeconds, jwtLeewaySeconds.map { .int($0) })

        return try await ServerSettings.load(
            flags: flags,
            environment: environment,
            configPath: configPath,
            defaultConfigPath: defaultConfigPath
        )
    }
}
