import Configuration
import Logging
import MicroHTTP
import ReMVVMServer
import SystemPackage

/// Every setting of `remvvm-server`, resolved from flags, then `REMVVM_*` environment variables, then
/// the JSON config file, then built-in defaults.
struct ServerSettings: Equatable {
    var host = "127.0.0.1"
    var port = 8080
    /// 0 means one per core.
    var workerThreads = 0
    var maxBodyBytes = 1 << 20
    var connectionLimit = 16_384
    var perClientConnectionLimit = 0
    var requestHeadTimeoutSeconds = 15
    var connectionTimeoutSeconds = 30
    var connectionMemoryBytes = 16 * 1024
    var heartbeatSeconds = 15
    var subscriberBacklogBytes = 1 << 20
    var subscriberSendBufferBytes = 64 * 1024
    var directStreamWrites = true
    var reconnectDelayMilliseconds = 1000
    var logLevel = Logger.Level.info

    /// The configuration keys, as in the JSON file; environment variables are `REMVVM_` + the key in
    /// upper snake case (`workerThreads` → `REMVVM_WORKER_THREADS`).
    enum Key: String, CaseIterable {
        case host, port, workerThreads, maxBodyBytes, connectionLimit, perClientConnectionLimit
        case requestHeadTimeoutSeconds, connectionTimeoutSeconds
        case connectionMemoryBytes, heartbeatSeconds, subscriberBacklogBytes, subscriberSendBufferBytes
        case directStreamWrites, reconnectDelayMilliseconds, logLevel
    }

    /// Reads every key from `config`, which must end with the built-in defaults, so any failure is an
    /// invalid value; the error names the key and the allowed values.
    init(config: ConfigReader) throws(SettingsError) {
        host = try Self.string(config, .host)
        port = try Self.int(config, .port, in: 0...65_535)
        workerThreads = try Self.int(config, .workerThreads, in: 0...256)
        maxBodyBytes = try Self.int(config, .maxBodyBytes, in: 1...(1 << 30))
        connectionLimit = try Self.int(config, .connectionLimit, in: 1...1_000_000)
        perClientConnectionLimit = try Self.int(config, .perClientConnectionLimit, in: 0...1_000_000)
        requestHeadTimeoutSeconds = try Self.int(config, .requestHeadTimeoutSeconds, in: 0...86_400)
        connectionTimeoutSeconds = try Self.int(config, .connectionTimeoutSeconds, in: 0...86_400)
        connectionMemoryBytes = try Self.int(config, .connectionMemoryBytes, in: 4_096...(1 << 20))
        heartbeatSeconds = try Self.int(config, .heartbeatSeconds, in: 1...3_600)
        subscriberBacklogBytes = try Self.int(config, .subscriberBacklogBytes, in: 1_024...(1 << 30))
        subscriberSendBufferBytes = try Self.int(config, .subscriberSendBufferBytes, in: 0...(64 << 20))
        directStreamWrites = try Self.bool(config, .directStreamWrites)
        reconnectDelayMilliseconds = try Self.int(config, .reconnectDelayMilliseconds, in: 0...3_600_000)
        let level = try Self.string(config, .logLevel)
        guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
            throw SettingsError(key: .logLevel, message: "\"\(level)\" is not a log level; use one of "
                + Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
        }
        logLevel = parsed
    }

    /// The built-in defaults.
    init() {}

    /// The built-in defaults as configuration values: the last provider.
    static var defaults: [AbsoluteConfigKey: ConfigValue] {
        let settings = ServerSettings()
        func int(_ value: Int) -> ConfigValue { ConfigValue(.int(value), isSecret: false) }
        func string(_ value: String) -> ConfigValue { ConfigValue(.string(value), isSecret: false) }
        func bool(_ value: Bool) -> ConfigValue { ConfigValue(.bool(value), isSecret: false) }
        return [
            AbsoluteConfigKey([Key.host.rawValue]): string(settings.host),
            AbsoluteConfigKey([Key.port.rawValue]): int(settings.port),
            AbsoluteConfigKey([Key.workerThreads.rawValue]): int(settings.workerThreads),
            AbsoluteConfigKey([Key.maxBodyBytes.rawValue]): int(settings.maxBodyBytes),
            AbsoluteConfigKey([Key.connectionLimit.rawValue]): int(settings.connectionLimit),
            AbsoluteConfigKey([Key.perClientConnectionLimit.rawValue]): int(settings.perClientConnectionLimit),
            AbsoluteConfigKey([Key.requestHeadTimeoutSeconds.rawValue]): int(settings.requestHeadTimeoutSeconds),
            AbsoluteConfigKey([Key.connectionTimeoutSeconds.rawValue]): int(settings.connectionTimeoutSeconds),
            AbsoluteConfigKey([Key.connectionMemoryBytes.rawValue]): int(settings.connectionMemoryBytes),
            AbsoluteConfigKey([Key.heartbeatSeconds.rawValue]): int(settings.heartbeatSeconds),
            AbsoluteConfigKey([Key.subscriberBacklogBytes.rawValue]): int(settings.subscriberBacklogBytes),
            AbsoluteConfigKey([Key.subscriberSendBufferBytes.rawValue]): int(settings.subscriberSendBufferBytes),
            AbsoluteConfigKey([Key.directStreamWrites.rawValue]): bool(settings.directStreamWrites),
            AbsoluteConfigKey([Key.reconnectDelayMilliseconds.rawValue]): int(settings.reconnectDelayMilliseconds),
            AbsoluteConfigKey([Key.logLevel.rawValue]): string(settings.logLevel.rawValue),
        ]
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

    /// The HTTP layer's settings.
    var http: HTTPServerConfiguration {
        var http = HTTPServerConfiguration()
        http.host = host
        http.port = port
        if workerThreads > 0 {
            http.workerThreads = workerThreads
        }
        http.maxBodyBytes = maxBodyBytes
        http.connectionLimit = connectionLimit
        http.perClientConnectionLimit = perClientConnectionLimit
        http.requestHeadTimeout = .seconds(requestHeadTimeoutSeconds)
        http.connectionTimeoutSeconds = connectionTimeoutSeconds
        http.connectionMemoryLimit = connectionMemoryBytes
        http.heartbeatInterval = .seconds(heartbeatSeconds)
        http.streamSendBufferBytes = subscriberSendBufferBytes
        http.directStreamWrites = directStreamWrites
        return http
    }

    /// The service layer's settings.
    var service: ServiceConfiguration {
        var service = ServiceConfiguration()
        service.subscriberBacklogBytes = subscriberBacklogBytes
        service.reconnectDelay = .milliseconds(reconnectDelayMilliseconds)
        return service
    }

    private static func string(_ config: ConfigReader, _ key: Key) throws(SettingsError) -> String {
        do {
            return try config.requiredString(forKey: ConfigKey(key.rawValue))
        } catch {
            throw SettingsError(key: key, message: "expected text (\(error))")
        }
    }

    private static func bool(_ config: ConfigReader, _ key: Key) throws(SettingsError) -> Bool {
        do {
            return try config.requiredBool(forKey: ConfigKey(key.rawValue))
        } catch {
            throw SettingsError(key: key, message: "expected true or false (\(error))")
        }
    }

    private static func int(_ config: ConfigReader, _ key: Key, in range: ClosedRange<Int>) throws(SettingsError) -> Int {
        let value: Int
        do {
            value = try config.requiredInt(forKey: ConfigKey(key.rawValue))
        } catch {
            throw SettingsError(key: key, message: "expected a whole number from \(range.lowerBound) to \(range.upperBound) (\(error))")
        }
        guard range.contains(value) else {
            throw SettingsError(key: key, message: "\(value) is out of range; use \(range.lowerBound)...\(range.upperBound)")
        }
        return value
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
