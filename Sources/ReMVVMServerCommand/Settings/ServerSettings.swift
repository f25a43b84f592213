import AccessControl
import Configuration
import Foundation
import Journal
import Logging
import MicroHTTP
import PostgresJournal
import ReMVVMServer
import SQLiteJournal
import SystemPackage

/// Every setting of a domain's server (`remvvm-server` for the example), resolved from flags, then `REMVVM_*` environment variables, then
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
    /// Records the SQLite journal's log of recent records holds before they move into its table
    /// of actions (`docs/journal.md`, "The log of recent records").
    var journalFoldThreshold = SQLiteJournalStorage.defaultFoldThreshold
    /// Records one piece of such a move copies before a commit when the log holds records of
    /// many stores (`docs/journal.md`, "In pieces over many stores").
    var journalFoldPiece = SQLiteJournalStorage.defaultFoldPiece
    /// Where actions are kept: the data directory's SQLite file, or a PostgreSQL log shared by
    /// several replicas.
    var journal = JournalBackend.sqlite
    /// The shared log's PostgreSQL connection (`postgresql://…` or libpq `key=value` pairs); empty:
    /// libpq's `PG*` environment variables. A secret: it may hold a password.
    var postgresURL = ""
    /// This replica's name in logs and `/healthz`; empty: the host name.
    var replicaName = ""
    /// How long the shared log keeps records for a replica that stopped renewing its registration;
    /// nil: for ever (a replica gone for good then holds retention back until its row is deleted).
    var replicaExpiry: Duration? = ReplicaConfiguration.defaultExpiry
    /// Where tokens and JWT keys come from; its secrets are cleared once ``accessControl`` is built.
    var access = AccessSettings()
    /// What checks requests, built from ``access`` when the settings are read; disabled by default.
    var accessControl = BearerAuthorizer()

    /// The configuration keys, as in the JSON file; environment variables are `REMVVM_` + the key in
    /// upper snake case (`workerThreads` → `REMVVM_WORKER_THREADS`).
    enum Key: String, CaseIterable, Sendable {
        case host, port, workerThreads, maxBodyBytes, connectionLimit, perClientConnectionLimit
        case requestHeadTimeoutSeconds, requestBodyTimeoutSeconds, connectionTimeoutSeconds
        case connectionMemoryBytes, heartbeatSeconds, subscriberBacklogBytes, subscriberSendBufferBytes
        case directStreamWrites, reconnectDelayMilliseconds, logLevel
        case dataDir, inMemory, journalSync, journalFoldThreshold, journalFoldPiece, journal, postgresURL, replicaName, replicaExpiry, snapshotEvery, journalRetention, replayRingEvents, replayRingBytes
        case idempotencyRetention, corsAllowedOrigins, allowedHosts, metricsEnabled
        case autoCreateStores, maxStores, maxLoadedStores, storeIdleSeconds
        case authTokens, authTokenFile, jwtHs256Secret, jwtHs256SecretFile, jwtPublicKeyFile
        case jwtIssuer, jwtAudience, jwtLeewaySeconds

        /// Whether the key holds a secret: read from the environment or the config file only, never
        /// from a flag (command lines are visible to every user in `ps`), and never shown.
        var isSecret: Bool {
            self == .authTokens || self == .jwtHs256Secret || self == .postgresURL
        }
    }

    /// The built-in defaults.
    init() {}

    /// Reads every key from `config`, which must end with the built-in defaults, so any failure is an
    /// invalid value; the error names the key and the allowed values.
    init(config: ConfigReader) throws(SettingsError) {
        for setting in Self.table {
            try setting.read(config, &self)
        }
        // The service's own checks of the lists, now rather than when it starts (after the
        // journal is opened); the ranges were checked setting by setting above.
        do {
            try service.validate()
        } catch {
            let key = Key(rawValue: error.property) ?? .corsAllowedOrigins
            let prefix = error.property + ": "
            throw SettingsError(key: key, message: error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message)
        }
        if !inMemory, dataDir.isEmpty {
            throw SettingsError(key: .dataDir, message: "is empty; name a directory (e.g. ./data), or run with inMemory")
        }
        if inMemory, journal == .postgres {
            throw SettingsError(key: .journal, message: "postgres keeps the actions in a shared log; it cannot run with inMemory")
        }
        if journal == .postgres, let problem = PostgresSharedLog.connectionStringProblem(postgresURL) {
            throw SettingsError(key: .postgresURL, message: "is no connection string libpq can read: \(problem)")
        }
        accessControl = try access.authorizer()
        access.authTokens = ""
        access.jwtHs256Secret = ""
    }

    /// Every setting's current value, by key (what ``defaults`` provides and tests compare); the
    /// secrets (``Key/isSecret``) are always empty here: their values are never kept or shown.
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

    /// The default config file of the executable `program`, relative to the working directory:
    /// `Config/<program>.json` (`Config/remvvm-server.json` for the example); skipped when missing.
    static func defaultConfigPath(for program: String) -> String {
        "Config/\(program).json"
    }

    /// Resolves the settings: `flags`, then `REMVVM_*` variables of `environment`, then the JSON file
    /// at `configPath` (which must exist when given; without it, `defaultConfigPath` if it exists),
    /// then the built-in defaults.
    static func load(
        flags: [AbsoluteConfigKey: ConfigValue],
        environment: [String: String],
        configPath: String?,
        defaultConfigPath: String = defaultConfigPath(for: "remvvm-server")
    ) async throws -> ServerSettings {
        try refuseEmptyAccessVariables(in: environment, overriddenBy: flags)
        let path = configPath ?? defaultConfigPath
        let file: FileProvider<SettingsFileSnapshot>
        do {
            file = try await FileProvider<SettingsFileSnapshot>(filePath: FilePath(path), allowMissing: configPath == nil)
        } catch {
            // The provider's own errors (reading the file) do not say which file; nor does
            // SettingsFileError.
            if error is SettingsFileError {
                throw ConfigFileError(description: "the config file \(path) is refused: \(error)")
            }
            throw ConfigFileError(description: "cannot read the config file \(path): \(error)")
        }
        let config = ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: flags),
            // Each key's variable is REMVVM_ + SettingsError.environmentName(key), with a word break
            // before every capital, also after a digit (jwtHs256Secret → JWT_HS256_SECRET).
            // swift-configuration breaks words only between a lower-case letter and a capital (it
            // would look up JWT_HS256SECRET), so keys are split into those words before the lookup.
            EnvironmentVariablesProvider(environmentVariables: environment).mapKeys { key in
                AbsoluteConfigKey(["remvvm"] + key.components.flatMap(SettingsError.words), context: key.context)
            },
            file,
            InMemoryProvider(name: "defaults", values: defaults),
        ])
        return try ServerSettings(config: config)
    }

    /// The access-control settings whose environment variable, set but empty (or blank), is
    /// refused: it would take precedence over the config file's value and could leave every route
    /// open (`REMVVM_AUTH_TOKENS: ${TOKENS}` in a compose file with `TOKENS` unset), or drop the
    /// JWT issuer or audience check, without a word.
    static let accessKeysRefusedEmptyInEnvironment: [Key] = [
        .authTokens, .authTokenFile, .jwtHs256Secret, .jwtHs256SecretFile, .jwtPublicKeyFile, .jwtIssuer, .jwtAudience,
    ]

    private static func refuseEmptyAccessVariables(
        in environment: [String: String], overriddenBy flags: [AbsoluteConfigKey: ConfigValue]
    ) throws(SettingsError) {
        // A flag wins over the variable: then the empty variable changes nothing.
        for key in accessKeysRefusedEmptyInEnvironment where flags[AbsoluteConfigKey([key.rawValue])] == nil {
            let name = "REMVVM_" + SettingsError.environmentName(key)
            if let value = environment[name], value.allSatisfy(\.isWhitespace) {
                throw SettingsError(
                    key: key,
                    message: "\(name) is set but empty: it would override the config file and could leave the server open or a JWT check off; unset it, or give it a value"
                )
            }
        }
    }

    /// A warning for each `REMVVM_*` variable of `environment` that is no setting of the executable
    /// `program` (a misspelt one would leave its default in force), naming the setting it most
    /// likely meant; sorted. `REMVVM_BENCHMARKS`, the package's build switch, is not warned about.
    static func environmentWarnings(in environment: [String: String], program: String = "remvvm-server") -> [String] {
        let known = Set(Key.allCases.map { "REMVVM_" + SettingsError.environmentName($0) } + ["REMVVM_BENCHMARKS"])
        return environment.keys.filter { $0.hasPrefix("REMVVM_") && !known.contains($0) }.sorted().map { name in
            let words = name.dropFirst("REMVVM_".count).replacingOccurrences(of: "_", with: "")
            let guess = Key.closest(to: words).map { " (did you mean REMVVM_\(SettingsError.environmentName($0))?)" } ?? ""
            return "\(name) is no setting of \(program)\(guess); ignored"
        }
    }
}

/// Where the server keeps actions (`journal`).
enum JournalBackend: String, CaseIterable, Sendable {
    /// One SQLite file in the data directory: one server.
    case sqlite
    /// One ordered log in PostgreSQL shared by several replicas; snapshots stay in the data
    /// directory.
    case postgres
}

/// A setting with an invalid value.
struct SettingsError: Error, CustomStringConvertible {
    let key: ServerSettings.Key
    let message: String

    var description: String {
        let flag = key.isSecret ? "" : "flag, "
        return "invalid setting \(key.rawValue) (\(flag)REMVVM_\(Self.environmentName(key)), or config file): \(message)"
    }

    /// `workerThreads` → `WORKER_THREADS`, `jwtHs256Secret` → `JWT_HS256_SECRET`.
    static func environmentName(_ key: ServerSettings.Key) -> String {
        words(key.rawValue).joined(separator: "_").uppercased()
    }

    /// The words of a camel-case name, lower-cased: a capital starts a word, a run of capitals
    /// is one (`jwtHs256Secret` → `jwt`, `hs256`, `secret`; `postgresURL` → `postgres`, `url`).
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var word = ""
        var previousWasUppercase = false
        for character in name {
            if character.isUppercase, !word.isEmpty, !previousWasUppercase {
                words.append(word)
                word = ""
            }
            previousWasUppercase = character.isUppercase
            word += character.lowercased()
        }
        if !word.isEmpty { words.append(word) }
        return words
    }
}

/// The config file cannot be read, is not JSON or has a member that is no setting: names the file,
/// with the reason.
struct ConfigFileError: Error, CustomStringConvertible {
    /// The message, naming the file.
    let description: String
}
