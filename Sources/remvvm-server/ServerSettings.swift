import Configuration
import Journal
import Logging
import MicroHTTP
import ReMVVMServer
import SystemPackage

/// Every setting of `remvvm-server`, resolved from flags, then `REMVVM_*` environment variables, then
/// the JSON config file, then built-in defaults.
///
/// The defaults and the allowed values are not repeated here: they are those of the layer each
/// setting configures (``MicroHTTP/HTTPServerConfiguration`` and its `Allowed` ranges,
/// ``ReMVVMServer/ServiceConfiguration`` and its `Allowed` ranges), converted to the setting's unit.
struct ServerSettings {
    /// The HTTP layer's settings.
    var http = HTTPServerConfiguration()
    /// The service layer's settings.
    var service = ServiceConfiguration()
    var logLevel = Logger.Level.info
    /// Where the journal and snapshots live (created if missing), unless ``inMemory``.
    var dataDir = "./data"
    /// Keep the store in memory only: no journal, nothing survives a restart.
    var inMemory = false
    /// How hard a commit pushes to the disk before an action is acknowledged.
    var journalSync = JournalSync.full

    /// The configuration keys, as in the JSON file; environment variables are `REMVVM_` + the key in
    /// upper snake case (`workerThreads` → `REMVVM_WORKER_THREADS`).
    enum Key: String, CaseIterable, Sendable {
        case host, port, workerThreads, maxBodyBytes, connectionLimit, perClientConnectionLimit
        case requestHeadTimeoutSeconds, connectionTimeoutSeconds
        case connectionMemoryBytes, heartbeatSeconds, subscriberBacklogBytes, subscriberSendBufferBytes
        case directStreamWrites, reconnectDelayMilliseconds, logLevel
        case dataDir, inMemory, journalSync, snapshotEvery, journalRetention, replayRingEvents, replayRingBytes
        case idempotencyRetention, corsAllowedOrigins, metricsEnabled
    }

    /// The built-in defaults.
    init() {}

    /// Reads every key from `config`, which must end with the built-in defaults, so any failure is an
    /// invalid value; the error names the key and the allowed values.
    init(config: ConfigReader) throws(SettingsError) {
        for setting in Self.table {
            try setting.read(config, &self)
        }
    }

    /// Every setting's current value, by key (what ``defaults`` provides and tests compare).
    var values: [Key: ConfigContent] {
        Dictionary(uniqueKeysWithValues: Self.table.map { ($0.key, $0.value(self)) })
    }

    /// The built-in defaults as configuration values: the last provider.
    static var defaults: [AbsoluteConfigKey: ConfigValue] {
        Dictionary(uniqueKeysWithValues: ServerSettings().values.map { key, content in
            (AbsoluteConfigKey([key.rawValue]), ConfigValue(content, isSecret: false))
        })
    }

    /// The default of `key` as shown in help texts.
    static func defaultText(_ key: Key) -> String {
        switch ServerSettings().values[key] {
        case .string(let text): text
        case .int(let number): String(number)
        case .bool(let flag): String(flag)
        default: "?"
        }
    }

    /// The default config file, relative to the working directory; skipped when missing.
    static let defaultConfigPath = "Config/remvvm-server.json"

    /// Resolves the settings: `flags`, then `REMVVM_*` variables of `environment`, then the JSON file
    /// at `configPath` (which must exist when given), then the built-in defaults.
    static func load(
        flags: [AbsoluteConfigKey: ConfigValue],
        environment: [String: String],
        configPath: String?
    ) async throws -> ServerSettings {
        let file = try await FileProvider<JSONSnapshot>(
            filePath: FilePath(configPath ?? defaultConfigPath),
            allowMissing: configPath == nil
        )
        let config = ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: flags),
            EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "remvvm"),
            file,
            InMemoryProvider(name: "defaults", values: defaults),
        ])
        return try ServerSettings(config: config)
    }
}

/// A setting with an invalid value.
struct SettingsError: Error, CustomStringConvertible {
    let key: ServerSettings.Key
    let message: String

    var description: String {
        "invalid setting \(key.rawValue) (flag, REMVVM_\(Self.environmentName(key)), or config file): \(message)"
    }

    /// `workerThreads` → `WORKER_THREADS`.
    static func environmentName(_ key: ServerSettings.Key) -> String {
        var name = ""
        for character in key.rawValue {
            if character.isUppercase { name += "_" }
            name += character.uppercased()
        }
        return name
    }
}
