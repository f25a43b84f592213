import Configuration
import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import Logging
import MicroHTTP
import PostgresJournal
import ReMVVM
import ReMVVMServer
import Testing
@testable import ReMVVMServerCommand

/// How `remvvm-server` resolves its settings: flags, then REMVVM_* variables, then the file, then defaults.
@Suite struct ServerSettingsTests {
    /// Where a test's config files go; removed with them when the test ends.
    private let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "remvvm-settings")
    }

    private func writeConfig(_ json: String) throws -> String {
        let path = directory.path + "/config-\(UUID().uuidString).json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func builtInDefaultsApplyWhenNothingIsGiven() async throws {
        let settings = try await ServerSettings.load(flags: [:], environment: [:], configPath: nil)
        #expect(settings.values == ServerSettings().values)
        #expect(settings.http.host == "127.0.0.1")
        #expect(settings.http.port == 8080)
    }

    @Test func theShippedConfigFileHoldsTheDefaults() async throws {
        let path = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Config/remvvm-server.json").path
        let settings = try await ServerSettings.load(flags: [:], environment: [:], configPath: path)
        #expect(settings.values == ServerSettings().values)
    }

    /// Loads `json` as the config file: the file's path and the error's text, or nil (recorded
    /// as an issue) when the file was accepted.
    private func refusal(of json: String) async throws -> (path: String, text: String)? {
        let path = try writeConfig(json)
        do {
            _ = try await ServerSettings.load(flags: [:], environment: [:], configPath: path)
            Issue.record("\(json) was accepted")
            return nil
        } catch {
            return (path, "\(error)")
        }
    }

    @Test func aConfigFileThatIsNotJSONIsRefusedNamingIt() async throws {
        let (path, text) = try #require(await refusal(of: #"{"port": 9000,"#))
        #expect(text.hasPrefix("the config file \(path) is refused: it is not JSON: "), "\(text)")
    }

    @Test func aConfigFileMemberThatIsNoSettingIsRefusedNamingItAndTheLikelySetting() async throws {
        let (path, text) = try #require(await refusal(of: #"{"port": 9000, "journalSynch": "off", "datadir": "/srv", "colour": 1}"#))
        #expect(text.contains("the config file \(path) is refused: "), "\(text)")
        #expect(text.contains(#""colour", "datadir" (did you mean dataDir?), "journalSynch" (did you mean journalSync?) are no settings"#), "\(text)")
        #expect(text.contains("the settings are host, port,"), "\(text)")
    }

    /// A file giving every setting a valid value of each kind it takes loads, and each value is
    /// the one written (the kind check refuses nothing its reader takes).
    @Test func everySettingIsAcceptedInTheConfigFileWithAValueOfItsKind() async throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-settings")
        let tokens = directory.path + "/tokens"
        try "sha256:\(String(repeating: "ab", count: 32))=read\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let json = """
            {"host": "::1", "port": 9090, "workerThreads": 3, "maxBodyBytes": 4096, "connectionLimit": 100,
             "perClientConnectionLimit": 10, "requestHeadTimeoutSeconds": 5, "requestBodyTimeoutSeconds": 45, "connectionTimeoutSeconds": 20,
             "connectionMemoryBytes": 32768, "heartbeatSeconds": 7, "subscriberBacklogBytes": 65536,
             "subscriberSendBufferBytes": 0, "directStreamWrites": false, "reconnectDelayMilliseconds": 500,
             "logLevel": "debug", "dataDir": "/srv/remvvm", "inMemory": false, "journalSync": "normal",
             "journalFoldThreshold": 2048, "journalFoldPiece": 256, "journal": "sqlite", "postgresURL": "postgresql:///remvvm", "replicaName": "r1", "replicaExpiry": 86400,
             "snapshotEvery": 500, "journalRetention": "30d", "replayRingEvents": 100, "replayRingBytes": 1048576,
             "idempotencyRetention": 3600, "corsAllowedOrigins": ["https://a.example", "https://b.example"], "allowedHosts": ["remvvm.internal", "[::1]"],
             "metricsEnabled": false, "authTokens": "s3cret-token-value=read+dispatch", "authTokenFile": "\(tokens)",
             "jwtHs256Secret": "\(String(repeating: "k", count: 32))", "jwtHs256SecretFile": "", "jwtPublicKeyFile": "",
             "jwtIssuer": "issuer", "jwtAudience": "audience", "jwtLeewaySeconds": 5,
             "autoCreateStores": true, "maxStores": 5000, "maxLoadedStores": 100, "storeIdleSeconds": 60}
            """
        #expect(Set(try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]).keys)
                == Set(ServerSettings.Key.allCases.map(\.rawValue)), "every setting is in the file")
        let settings = try await ServerSettings.load(flags: [:], environment: [:], configPath: try writeConfig(json))
        #expect(settings.http.host == "::1" && settings.http.port == 9090 && settings.http.workerThreads == 3)
        #expect(settings.http.heartbeatInterval == .seconds(7) && !settings.http.directStreamWrites)
        #expect(settings.http.requestHeadTimeout == .seconds(5) && settings.http.requestBodyTimeout == .seconds(45))
        #expect(settings.dataDir == "/srv/remvvm" && settings.journalSync == JournalSync.normal && settings.replicaName == "r1")
        #expect(settings.journalFoldThreshold == 2_048 && settings.journalFoldPiece == 256)
        #expect(settings.replicaExpiry == .seconds(86_400) && settings.service.idempotencyRetention == .seconds(3_600))
        #expect(settings.service.journalRetention == JournalRetention.age(.seconds(30 * 86_400)) && settings.service.snapshotEvery == 500)
        #expect(settings.service.corsAllowedOrigins == ["https://a.example", "https://b.example"] && !settings.service.metricsEnabled)
        #expect(settings.service.allowedHosts == ["remvvm.internal", "[::1]"])
        #expect(settings.service.autoCreateStores && settings.service.maxStores == 5_000)
        #expect(settings.service.maxLoadedStores == 100 && settings.service.storeIdleSeconds == 60)
        #expect(settings.accessControl.isEnabled)
        try SettingsFileSnapshot.check([0xEF, 0xBB, 0xBF] + Array("{}".utf8))
        #expect(ServerSettings.Key.closest(to: "port") == .port)
        #expect(ServerSettings.Key.closest(to: "prt") == .port)
        #expect(ServerSettings.Key.closest(to: "xyz") == nil, "three letters, none shared with a setting")
        #expect(ServerSettings.Key.closest(to: "somethingElseEntirely") == nil)
    }

    /// `JSONSnapshot` alone reads `true` as the number 1 (`"port": true` listened on port 1) and
    /// `2` as `true`, and skips a value it cannot read (`"port": {}` left port 8080 in force).
    @Test(arguments: [
        (#"{"port": true}"#, "port holds true; expected a whole number"),
        (#"{"snapshotEvery": false}"#, "snapshotEvery holds false; expected a whole number"),
        (#"{"inMemory": 2}"#, "inMemory holds the number 2; expected true or false"),
        (#"{"metricsEnabled": "yes"}"#, "metricsEnabled holds text; expected true or false"),
        (#"{"port": "18640"}"#, "port holds text; expected a whole number"),
        (#"{"port": 1e400}"#, "port holds the number 1e400; expected a whole number"),
        (#"{"idempotencyRetention": 1.5}"#, "idempotencyRetention holds the number 1.5; expected a whole number"),
        (#"{"port": {"value": 18405}}"#, "port holds an object; expected a whole number"),
        (#"{"port": null}"#, "port holds null; expected a whole number"),
        // A secret's value is never shown.
        (#"{"jwtHs256Secret": 12345678901234567890123456789012345}"#, "jwtHs256Secret holds a value of the wrong kind; expected text"),
        (#"{"authTokens": ["s3cret=read"]}"#, "authTokens holds a value of the wrong kind; expected text"),
        (#"{"host": ["::1"]}"#, "host holds an array; expected text"),
        (#"{"host": 1234}"#, "host holds the number 1234; expected text"),
        (#"{"corsAllowedOrigins": ["https://a.example", 1]}"#, "corsAllowedOrigins holds an array that is not all text"),
        (#"{"corsAllowedOrigins": true}"#, "corsAllowedOrigins holds true; expected text or an array of text"),
        (#"{"port": 9000, "port": 9001}"#, "it is not JSON: duplicate member name \"port\" at byte 15"),
        (#"{"port": 9000,}"#, "it is not JSON: "),
        ("{\"port\": 9000 // the port\n}", "it is not JSON: "),
        ("", "it is not JSON: "),
        ("[]", "it holds an array, not an object of settings"),
    ])
    func aConfigFileValueOfTheWrongKindIsRefusedNamingTheSetting(json: String, expected: String) async throws {
        let (path, text) = try #require(await refusal(of: json))
        #expect(text.hasPrefix("the config file \(path) is refused: \(expected)"), "\(text)")
    }

    @Test func anEnvironmentVariableThatIsNoSettingIsWarnedAbout() {
        let warnings = ServerSettings.environmentWarnings(in: [
            "REMVVM_PORT": "1", "REMVVM_JOURNAL_SYNCH": "off", "REMVVM_BENCHMARKS": "1", "REMVVM_COLOUR": "red",
            "PATH": "/bin", "JWT_HS256_SECRET": "x",
        ])
        #expect(warnings == [
            "REMVVM_COLOUR is no setting of remvvm-server; ignored",
            "REMVVM_JOURNAL_SYNCH is no setting of remvvm-server (did you mean REMVVM_JOURNAL_SYNC?); ignored",
        ])
    }

    @Test func fileOverridesDefaultsEnvironmentOverridesFileAndFlagsOverrideAll() async throws {
        let path = try writeConfig(#"{"port": 9000, "host": "0.0.0.0", "logLevel": "debug", "heartbeatSeconds": 5}"#)
        let settings = try await ServerSettings.load(
            flags: [AbsoluteConfigKey(["port"]): ConfigValue(.int(9002), isSecret: false)],
            environment: ["REMVVM_PORT": "9001", "REMVVM_HOST": "::1", "REMVVM_WORKER_THREADS": "3"],
            configPath: path
        )
        #expect(settings.http.port == 9002, "flag")
        #expect(settings.http.host == "::1", "environment")
        #expect(settings.http.workerThreads == 3, "environment, camelCase key as upper snake case")
        #expect(settings.logLevel == .debug, "file")
        #expect(settings.http.heartbeatInterval == .seconds(5), "file")
        #expect(settings.service.subscriberBacklogBytes == ServiceConfiguration().subscriberBacklogBytes, "default")
    }

    @Test func invalidValuesAreErrorsNamingTheSetting() async throws {
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_PORT": "eighty"], configPath: nil) }
            throws: { "\($0)".contains("port") }
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_PORT": "70000"], configPath: nil) }
            throws: { "\($0)".contains("out of range") }
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_LOG_LEVEL": "loud"], configPath: nil) }
            throws: { "\($0)".contains("not a log level") }
    }

    /// The host and the CORS origins are checked with the other settings, before the data
    /// directory and its journal are created (the server binds and builds its CORS policy later).
    @Test func aHostOriginOrDataDirectoryThatCannotWorkIsAnInvalidSetting() async throws {
        for host in ["999.1.1.1", "127.0.0.1:8080", "", "example.com", "[127.0.0.1]"] {
            await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_HOST": host], configPath: nil) }
                throws: { "\($0)".hasPrefix("invalid setting host (") && "\($0)".contains("is not an IPv4 or IPv6 address or localhost") }
        }
        for host in ["::1", "[::1]", "0.0.0.0", "localhost", "::"] {
            #expect(try await ServerSettings.load(flags: [:], environment: ["REMVVM_HOST": host], configPath: nil).http.host == host)
        }
        await #expect {
            _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_CORS_ALLOWED_ORIGINS": "nonsense"], configPath: nil)
        } throws: { "\($0)" == "invalid setting corsAllowedOrigins (flag, REMVVM_CORS_ALLOWED_ORIGINS, or config file): \"nonsense\" is not an origin; write scheme://host[:port] (http or https, no path, no trailing slash), or * alone" }
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_DATA_DIR": ""], configPath: nil) }
            throws: { "\($0)".hasPrefix("invalid setting dataDir (") && "\($0)".contains("is empty") }
        let inMemory = try await ServerSettings.load(flags: [:], environment: ["REMVVM_DATA_DIR": "", "REMVVM_IN_MEMORY": "true"], configPath: nil)
        #expect(inMemory.inMemory, "no data directory is needed in memory")
        #expect(try await ServerSettings.load(flags: [:], environment: [:], configPath: nil).service.allowedHosts == nil, "automatic")
        // Empty, as docs/configuration.md gives the default (it was refused: '"" is not a host name').
        let empty = try await ServerSettings.load(flags: [:], environment: ["REMVVM_ALLOWED_HOSTS": "", "REMVVM_CORS_ALLOWED_ORIGINS": ""], configPath: nil)
        #expect(empty.service.allowedHosts == nil && empty.service.corsAllowedOrigins.isEmpty)
        #expect(try await ServerSettings.load(flags: [:], environment: ["REMVVM_ALLOWED_HOSTS": "a.example, b.example"], configPath: nil)
            .service.allowedHosts == ["a.example", "b.example"])
        // `*` stands alone, as in corsAllowedOrigins (it was taken, mixed with names, for "any").
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_ALLOWED_HOSTS": "a.example, *"], configPath: nil) }
            throws: { "\($0)".contains("stands alone") }
        for bad in ["http://a.example", "a.example:8080", "a b", "[::1"] {
            await #expect("\(bad)") { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_ALLOWED_HOSTS": bad], configPath: nil) }
                throws: { "\($0)".hasPrefix("invalid setting allowedHosts (") && "\($0)".contains("is not a host name") }
        }
        #expect(HTTPServerConfiguration.authority(host: "::1", port: 80) == "[::1]:80")
        #expect(HTTPServerConfiguration.authority(host: "[::1]", port: 80) == "[::1]:80")
        #expect(HTTPServerConfiguration.authority(host: "127.0.0.1", port: 80) == "127.0.0.1:80")
    }

    @Test func defaultsAndRangesAreThoseOfTheConfiguredLayers() async throws {
        let defaults = ServerSettings()
        #expect(defaults.http == HTTPServerConfiguration(), "no default of the HTTP layer is repeated")
        #expect(defaults.service.subscriberBacklogBytes == ServiceConfiguration().subscriberBacklogBytes)
        #expect(defaults.service.reconnectDelay == ServiceConfiguration().reconnectDelay)
        #expect(defaults.values[.workerThreads] == .int(0), "0 stands for the HTTP layer's one per core")
        // Just inside and just outside an allowed range of the layer, in the setting's unit.
        let memory = HTTPServerConfiguration.Allowed.connectionMemoryLimit
        let inside = try await ServerSettings.load(
            flags: [:], environment: ["REMVVM_CONNECTION_MEMORY_BYTES": "\(memory.lowerBound)"], configPath: nil
        )
        #expect(inside.http.connectionMemoryLimit == memory.lowerBound)
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_CONNECTION_MEMORY_BYTES": "\(memory.lowerBound - 1)"], configPath: nil) }
            throws: { "\($0)".contains("connectionMemoryBytes") && "\($0)".contains("\(memory.lowerBound)...\(memory.upperBound)") }
        let delay = try await ServerSettings.load(flags: [:], environment: ["REMVVM_RECONNECT_DELAY_MILLISECONDS": "3600000"], configPath: nil)
        #expect(delay.service.reconnectDelay == ServiceConfiguration.Allowed.reconnectDelay.upperBound)
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_HEARTBEAT_SECONDS": "0"], configPath: nil) }
            throws: { "\($0)".contains("heartbeatSeconds") && "\($0)".contains("1...3600") }
        #expect(throws: Never.self) { try defaults.http.validate() }
        #expect(throws: Never.self) { try defaults.service.validate() }
    }

    /// The configuration page (`docs/configuration.md`) documents every key with its variable,
    /// flag and default; a secret has no flag (`—`), since command lines are visible to every user
    /// in `ps`.
    @Test func theConfigurationPageListsEveryKeyWithItsDefault() throws {
        let readme = try String(contentsOfFile: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/configuration.md").path, encoding: .utf8)
        for key in ServerSettings.Key.allCases {
            let flag = key.isSecret
                ? "—"
                : "`--" + SettingsError.environmentName(key).lowercased().replacingOccurrences(of: "_", with: "-") + "`"
            let row = "| `\(key.rawValue)` | `REMVVM_\(SettingsError.environmentName(key))` | \(flag) | `\(ServerSettings.defaultText(key))` |"
            #expect(readme.contains(row), "docs/configuration.md row for \(key.rawValue): \(row)")
        }
    }

    @Test func storeLimitsComeFromTheEnvironmentWithTheDefaultsOfTheContract() async throws {
        let defaults = ServerSettings()
        #expect(!defaults.service.autoCreateStores && defaults.service.maxStores == 1_000_000)
        #expect(defaults.service.maxLoadedStores == 10_000 && defaults.service.storeIdleSeconds == 300)
        let settings = try await ServerSettings.load(flags: [:], environment: [
            "REMVVM_AUTO_CREATE_STORES": "true", "REMVVM_MAX_STORES": "20", "REMVVM_MAX_LOADED_STORES": "5",
            "REMVVM_STORE_IDLE_SECONDS": "0",
        ], configPath: nil)
        #expect(settings.service.autoCreateStores && settings.service.maxStores == 20)
        #expect(settings.service.maxLoadedStores == 5 && settings.service.storeIdleSeconds == 0)
        for (name, value) in [("REMVVM_MAX_STORES", "0"), ("REMVVM_MAX_LOADED_STORES", "0"), ("REMVVM_STORE_IDLE_SECONDS", "-1")] {
            await #expect("\(name)=\(value)") { _ = try await ServerSettings.load(flags: [:], environment: [name: value], configPath: nil) }
                throws: { "\($0)".contains("is out of range") }
        }
    }

    @Test func replicaSettingsComeFromTheEnvironmentAndPostgresExcludesInMemory() async throws {
        #expect(SettingsError.environmentName(.postgresURL) == "POSTGRES_URL", "a run of capitals is one word")
        #expect(SettingsError.environmentName(.jwtHs256Secret) == "JWT_HS256_SECRET")
        let settings = try await ServerSettings.load(flags: [:], environment: [
            "REMVVM_JOURNAL": "postgres", "REMVVM_POSTGRES_URL": "postgresql://u:pw@db/app", "REMVVM_REPLICA_NAME": "r1",
        ], configPath: nil)
        #expect(settings.journal == .postgres && settings.postgresURL == "postgresql://u:pw@db/app" && settings.replicaName == "r1")
        #expect(settings.values[.postgresURL] == .string(""), "a secret is never shown")
        #expect(ServerSettings.defaultText(.journal) == "sqlite")
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_JOURNAL": "mysql"], configPath: nil) }
            throws: { "\($0)".contains("journal") && "\($0)".contains("sqlite, postgres") }
        await #expect {
            _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_JOURNAL": "postgres", "REMVVM_IN_MEMORY": "true"], configPath: nil)
        } throws: { "\($0)".contains("inMemory") }
    }

    /// A connection string libpq cannot read fails every attempt: a setting to fix at start, not
    /// an outage to retry for ever; the message never shows the password.
    @Test func aPostgresURLLibpqCannotReadIsRefusedWithoutShowingThePassword() async throws {
        for url in ["postgresql://remvvm:S3cretPW@[::1:5432/remvvm", "postgresql://remvvm:S3cretPW@/db?bogus=1", "postgresql://remvvm:My%Secret@/db"] {
            let error = try #require(await #expect(throws: SettingsError.self) {
                _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_JOURNAL": "postgres", "REMVVM_POSTGRES_URL": url], configPath: nil)
            })
            #expect("\(error)".contains("postgresURL") && "\(error)".contains("is no connection string libpq can read"), "\(error)")
            #expect(!"\(error)".contains("S3cretPW") && !"\(error)".contains("My%Secret"), "\(error)")
        }
        // Without journal postgres the setting is not used, so not checked.
        _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_POSTGRES_URL": "postgresql://u@[::1"], configPath: nil)
    }

    @Test func idempotencyRetentionIsADurationWithAUnit() async throws {
        for (text, seconds) in [("24h", 86_400), ("90m", 5_400), ("7d", 604_800), ("3600", 3_600), ("45s", 45)] {
            let settings = try await ServerSettings.load(flags: [:], environment: ["REMVVM_IDEMPOTENCY_RETENTION": text], configPath: nil)
            #expect(settings.service.idempotencyRetention == .seconds(seconds), "\(text)")
        }
        let file = try await ServerSettings.load(flags: [:], environment: [:], configPath: try writeConfig(#"{"idempotencyRetention": 600}"#))
        #expect(file.service.idempotencyRetention == .seconds(600), "a number in a config file is seconds")
        #expect(ServerSettings.defaultText(.idempotencyRetention) == "1d")
        for bad in ["soon", "-5m", "12w", "0s", "400d", ""] {
            await #expect("\(bad)") { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_IDEMPOTENCY_RETENTION": bad], configPath: nil) }
                throws: { "\($0)".contains("idempotencyRetention") }
        }
    }

    @Test func journalRetentionIsVersionsOrAnAge() async throws {
        for (text, expected) in [("500", JournalRetention.versions(500)), ("30d", .age(.seconds(30 * 86_400))), ("12h", .age(.seconds(43_200)))] {
            let settings = try await ServerSettings.load(flags: [:], environment: ["REMVVM_JOURNAL_RETENTION": text], configPath: nil)
            #expect(settings.service.journalRetention == expected, "\(text)")
        }
        #expect(ServerSettings.defaultText(.journalRetention) == "1000000")
        for bad in ["soon", "-1", "12w", ""] {
            await #expect("\(bad)") { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_JOURNAL_RETENTION": bad], configPath: nil) }
                throws: { "\($0)".contains("journalRetention") }
        }
    }

    @Test func replicaExpiryIsADurationOrOff() async throws {
        #expect(ServerSettings().replicaExpiry == ReplicaConfiguration.defaultExpiry)
        #expect(ServerSettings.defaultText(.replicaExpiry) == "7d")
        for (text, expected) in [("12h", Duration?.some(.seconds(43_200))), ("1m", .seconds(60)), ("off", nil), ("OFF", nil)] {
            let settings = try await ServerSettings.load(flags: [:], environment: ["REMVVM_REPLICA_EXPIRY": text], configPath: nil)
            #expect(settings.replicaExpiry == expected, "\(text)")
        }
        let file = try await ServerSettings.load(flags: [:], environment: [:], configPath: try writeConfig(#"{"replicaExpiry": "30d"}"#))
        #expect(file.replicaExpiry == .seconds(30 * 86_400) && file.values[.replicaExpiry] == .string("30d"))
        for bad in ["never", "30s", "0", "-1d", "40000d", ""] {
            await #expect("\(bad)") { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_REPLICA_EXPIRY": bad], configPath: nil) }
                throws: { "\($0)".contains("replicaExpiry") }
        }
        // Renewals: a quarter of the expiry, at most a minute apart.
        #expect(ReplicaConfiguration.renewal(forExpiry: .seconds(8)) == .seconds(2))
        #expect(ReplicaConfiguration.renewal(forExpiry: .seconds(604_800)) == .seconds(60))
        #expect(ReplicaConfiguration.renewal(forExpiry: nil) == .seconds(60))
    }

    /// A renewal that cannot keep a replica's registration (zero, or more than half the expiry:
    /// one missed renewal would let it expire) is refused when the service starts; the defaults
    /// for every expiry the setting allows pass.
    @Test func aRenewalThatCannotKeepTheRegistrationIsRefused() throws {
        let log = PostgresSharedLog(connectingLater: "host=/nonexistent")
        func replica(expiry: Duration?, renewal: Duration?) -> ReplicaConfiguration {
            ReplicaConfiguration(log: log, snapshots: MemoryJournalStorage(), name: "r", expiry: expiry, renewal: renewal)
        }
        for expiry in [ReplicaConfiguration.allowedExpiry.lowerBound, .seconds(3_600), ReplicaConfiguration.defaultExpiry, nil] {
            try replica(expiry: expiry, renewal: nil).validate()
        }
        try replica(expiry: .seconds(60), renewal: .seconds(30)).validate()
        for (expiry, renewal) in [(Duration.seconds(60), Duration.seconds(31)), (.seconds(60), .zero), (nil, .zero)] {
            #expect(throws: ServiceConfigurationError.self, "\(renewal) for \(String(describing: expiry))") {
                try replica(expiry: expiry, renewal: renewal).validate()
            }
        }
        let service = ReMVVMService(
            store: try Store.example(), actions: ExampleApp.actions, viewModels: ExampleApp.viewModels,
            replication: replica(expiry: .seconds(60), renewal: .seconds(45)),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        #expect(throws: ServiceConfigurationError.self, "the service refuses to start with it") { try service.start() }
    }

    @Test func corsAllowedOriginsIsACommaSeparatedListOrAnArray() async throws {
        let environment = try await ServerSettings.load(
            flags: [:], environment: ["REMVVM_CORS_ALLOWED_ORIGINS": "https://a.example, http://localhost:3000"], configPath: nil
        )
        #expect(environment.service.corsAllowedOrigins == ["https://a.example", "http://localhost:3000"])
        let file = try await ServerSettings.load(
            flags: [:], environment: [:], configPath: try writeConfig(#"{"corsAllowedOrigins": ["*"]}"#)
        )
        #expect(file.service.corsAllowedOrigins == ["*"])
        #expect(try await ServerSettings.load(flags: [:], environment: [:], configPath: nil).service.corsAllowedOrigins == [])
    }

    @Test func inMemoryIsABooleanLikeEveryOtherSetting() async throws {
        for (text, expected) in [("true", true), ("1", true), ("YES", true), ("false", false), ("0", false), ("no", false)] {
            let settings = try await ServerSettings.load(flags: [:], environment: ["REMVVM_IN_MEMORY": text], configPath: nil)
            #expect(settings.inMemory == expected, "REMVVM_IN_MEMORY=\(text)")
        }
        // The message lists what the environment takes (it said "true or false" and took yes).
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_IN_MEMORY": "on"], configPath: nil) }
            throws: { "\($0)".hasSuffix("inMemory (flag, REMVVM_IN_MEMORY, or config file): expected true or false (in the environment also yes, no, 1 or 0)") }
    }

    @Test func missingExplicitConfigFileIsAnError() async throws {
        await #expect(throws: (any Error).self) {
            _ = try await ServerSettings.load(flags: [:], environment: [:], configPath: "/nonexistent/remvvm.json")
        }
    }

    @Test func malformedConfigFileIsAnError() async throws {
        let path = try writeConfig(#"{"port": "#)
        await #expect(throws: (any Error).self) {
            _ = try await ServerSettings.load(flags: [:], environment: [:], configPath: path)
        }
    }
}
