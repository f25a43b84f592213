import Foundation
import Configuration
import Journal
import Logging
import MicroHTTP
import ReMVVMServer
import SQLiteJournal

/// One setting: its key, how it is read and checked, and the configuration field it sets.
struct Setting: Sendable {
    /// What a config file may give a setting (its reader then checks the value).
    enum Kind: Sendable {
        /// An integer.
        case wholeNumber
        /// A string.
        case text
        /// A string with a unit, or an integer (`"24h"` or `86400`).
        case textOrWholeNumber
        /// `true` or `false`.
        case `switch`
        /// A string of comma-separated items, or an array of strings.
        case list
    }

    let key: ServerSettings.Key
    /// What a config file may give it.
    let kind: Kind
    /// Reads the key from `config` into `settings`, checking it.
    let read: @Sendable (ConfigReader, inout ServerSettings) throws(SettingsError) -> Void
    /// The key's value in `settings`.
    let value: @Sendable (ServerSettings) -> ConfigContent

    /// A whole number stored as is.
    static func int(
        _ key: ServerSettings.Key,
        _ field: any WritableKeyPath<ServerSettings, Int> & Sendable,
        in range: ClosedRange<Int>
    ) -> Setting {
        Setting(
            key: key,
            kind: .wholeNumber,
            read: { config, settings throws(SettingsError) in settings[keyPath: field] = try readInt(config, key, in: range) },
            value: { .int($0[keyPath: field]) }
        )
    }

    /// A duration given as a whole number of `unit`s; `range` is the field's, converted.
    static func duration(
        _ key: ServerSettings.Key,
        _ field: any WritableKeyPath<ServerSettings, Duration> & Sendable,
        unit: Duration,
        in range: ClosedRange<Duration>
    ) -> Setting {
        let lower = Int((range.lowerBound / unit).rounded(.up))
        let upper = Int((range.upperBound / unit).rounded(.down))
        return Setting(
            key: key,
            kind: .wholeNumber,
            read: { config, settings throws(SettingsError) in
                settings[keyPath: field] = unit * (try readInt(config, key, in: lower...upper))
            },
            value: { .int(Int(($0[keyPath: field] / unit).rounded())) }
        )
    }

    /// A whole number stored as `UInt64`.
    static func uint64(
        _ key: ServerSettings.Key,
        _ field: any WritableKeyPath<ServerSettings, UInt64> & Sendable,
        in range: ClosedRange<UInt64>
    ) -> Setting {
        let bounds = Int(range.lowerBound)...Int(range.upperBound)
        return Setting(
            key: key,
            kind: .wholeNumber,
            read: { config, settings throws(SettingsError) in
                settings[keyPath: field] = UInt64(try readInt(config, key, in: bounds))
            },
            value: { .int(Int($0[keyPath: field])) }
        )
    }

    /// A duration written with a unit (`24h`, `90m`, `7d`) or as a number of seconds.
    static func durationText(
        _ key: ServerSettings.Key,
        _ field: any WritableKeyPath<ServerSettings, Duration> & Sendable,
        in range: ClosedRange<Duration>
    ) -> Setting {
        Setting(
            key: key,
            kind: .textOrWholeNumber,
            read: { config, settings throws(SettingsError) in
                let text = try readText(config, key)
                guard let duration = DurationText.parse(text) else {
                    throw SettingsError(key: key, message: "\"\(text)\" is not a duration; write a whole number with s, m, h or d (e.g. 24h), or seconds")
                }
                guard range.contains(duration) else {
                    throw SettingsError(key: key, message: "\(text) is out of range; use \(DurationText.format(range.lowerBound))...\(DurationText.format(range.upperBound))")
                }
                settings[keyPath: field] = duration
            },
            value: { .string(DurationText.format($0[keyPath: field])) }
        )
    }

    /// Text or a number, as text (a config file may write `86400` or `"24h"`).
    static func readText(_ config: ConfigReader, _ key: ServerSettings.Key) throws(SettingsError) -> String {
        if let text = try? config.requiredString(forKey: ConfigKey(key.rawValue)) {
            return text
        }
        if let number = try? config.requiredInt(forKey: ConfigKey(key.rawValue)) {
            return String(number)
        }
        throw SettingsError(key: key, message: "expected text or a number")
    }

    /// A list: comma-separated text (`a,b`), or an array in a config file.
    static func list(_ key: ServerSettings.Key, _ field: any WritableKeyPath<ServerSettings, [String]> & Sendable) -> Setting {
        Setting(
            key: key,
            kind: .list,
            read: { config, settings throws(SettingsError) in settings[keyPath: field] = try readList(config, key) },
            value: { .string($0[keyPath: field].joined(separator: ",")) }
        )
    }

    /// A list's items: an array in a config file, or comma-separated text, blanks trimmed.
    static func readList(_ config: ConfigReader, _ key: ServerSettings.Key) throws(SettingsError) -> [String] {
        // Blank items are no items, in an array as in a comma-separated text: an empty environment
        // variable (read as an array of one empty text) is the empty list, the default.
        if let items = try? config.requiredStringArray(forKey: ConfigKey(key.rawValue)) {
            return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let text = try readString(config, key)
        return text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func bool(_ key: ServerSettings.Key, _ field: any WritableKeyPath<ServerSettings, Bool> & Sendable) -> Setting {
        Setting(
            key: key,
            kind: .`switch`,
            read: { config, settings throws(SettingsError) in
                do {
                    settings[keyPath: field] = try config.requiredBool(forKey: ConfigKey(key.rawValue))
                } catch {
                    throw SettingsError(key: key, message: "expected true or false (in the environment also yes, no, 1 or 0)")
                }
            },
            value: { .bool($0[keyPath: field]) }
        )
    }

    static func string(_ key: ServerSettings.Key, _ field: any WritableKeyPath<ServerSettings, String> & Sendable) -> Setting {
        Setting(
            key: key,
            kind: .text,
            read: { config, settings throws(SettingsError) in settings[keyPath: field] = try readString(config, key) },
            value: { .string($0[keyPath: field]) }
        )
    }

    /// One of the raw values of `Value` (compared in lower case), named `what` in the error.
    static func choice<Value: RawRepresentable & CaseIterable & Sendable>(
        _ key: ServerSettings.Key, _ field: any WritableKeyPath<ServerSettings, Value> & Sendable, _ what: String
    ) -> Setting where Value.RawValue == String {
        Setting(
            key: key,
            kind: .text,
            read: { config, settings throws(SettingsError) in
                let text = try readString(config, key)
                guard let value = Value(rawValue: text.lowercased()) else {
                    throw SettingsError(key: key, message: "\"\(text)\" is not \(what); use one of "
                        + Value.allCases.map(\.rawValue).joined(separator: ", "))
                }
                settings[keyPath: field] = value
            },
            value: { .string($0[keyPath: field].rawValue) }
        )
    }

    /// A secret text: read marked secret (never in an access report), shown as empty.
    static func secret(_ key: ServerSettings.Key, _ field: any WritableKeyPath<ServerSettings, String> & Sendable) -> Setting {
        Setting(
            key: key,
            kind: .text,
            read: { config, settings throws(SettingsError) in settings[keyPath: field] = try readString(config, key) },
            value: { _ in .string("") }
        )
    }

    static func readString(_ config: ConfigReader, _ key: ServerSettings.Key) throws(SettingsError) -> String {
        do {
            return try config.requiredString(forKey: ConfigKey(key.rawValue), isSecret: key.isSecret)
        } catch {
            throw SettingsError(key: key, message: "expected text (\(error))")
        }
    }

    static func readInt(_ config: ConfigReader, _ key: ServerSettings.Key, in range: ClosedRange<Int>) throws(SettingsError) -> Int {
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

extension ServerSettings {
    typealias HTTP = HTTPServerConfiguration.Allowed
    typealias Service = ServiceConfiguration.Allowed

    /// Every setting, in the order of ``Key``.
    static let table: [Setting] = [
        Setting(
            key: .host,
            kind: .text,
            read: { config, settings throws(SettingsError) in
                let host = try Setting.readString(config, .host)
                // Checked now, not when the server binds: that is after the journal is opened.
                guard HTTPServerConfiguration.isValidHost(host) else {
                    throw SettingsError(key: .host, message: "\"\(host)\" is not an IPv4 or IPv6 address or localhost (e.g. 127.0.0.1, ::1, 0.0.0.0 for every address)")
                }
                settings.http.host = host
            },
            value: { .string($0.http.host) }
        ),
        .int(.port, \.http.port, in: HTTP.port),
        // 0 means one per core: the HTTP layer's default, which depends on the machine.
        Setting(
            key: .workerThreads,
            kind: .wholeNumber,
            read: { config, settings throws(SettingsError) in
                let threads = try Setting.readInt(config, .workerThreads, in: 0...HTTP.workerThreads.upperBound)
                settings.http.workerThreads = threads == 0 ? HTTPServerConfiguration().workerThreads : threads
            },
            value: { settings in
                .int(settings.http.workerThreads == HTTPServerConfiguration().workerThreads ? 0 : settings.http.workerThreads)
            }
        ),
        .int(.maxBodyBytes, \.http.maxBodyBytes, in: HTTP.maxBodyBytes),
        .int(.connectionLimit, \.http.connectionLimit, in: HTTP.connectionLimit),
        .int(.perClientConnectionLimit, \.http.perClientConnectionLimit, in: HTTP.perClientConnectionLimit),
        .duration(.requestHeadTimeoutSeconds, \.http.requestHeadTimeout, unit: .seconds(1), in: HTTP.requestHeadTimeout),
        .duration(.requestBodyTimeoutSeconds, \.http.requestBodyTimeout, unit: .seconds(1), in: HTTP.requestBodyTimeout),
        .int(.connectionTimeoutSeconds, \.http.connectionTimeoutSeconds, in: HTTP.connectionTimeoutSeconds),
        .int(.connectionMemoryBytes, \.http.connectionMemoryLimit, in: HTTP.connectionMemoryLimit),
        .duration(.heartbeatSeconds, \.http.heartbeatInterval, unit: .seconds(1), in: HTTP.heartbeatInterval),
        .int(.subscriberBacklogBytes, \.service.subscriberBacklogBytes, in: Service.subscriberBacklogBytes),
        .int(.subscriberSendBufferBytes, \.http.streamSendBufferBytes, in: HTTP.streamSendBufferBytes),
        .bool(.directStreamWrites, \.http.directStreamWrites),
        .duration(.reconnectDelayMilliseconds, \.service.reconnectDelay, unit: .milliseconds(1), in: Service.reconnectDelay),
        .choice(.logLevel, \.logLevel, "a log level"),
        .string(.dataDir, \.dataDir),
        .bool(.inMemory, \.inMemory),
        .choice(.journalSync, \.journalSync, "a sync mode"),
        .int(.journalFoldThreshold, \.journalFoldThreshold, in: SQLiteJournalStorage.allowedFoldRecords),
        .int(.journalFoldPiece, \.journalFoldPiece, in: SQLiteJournalStorage.allowedFoldRecords),
        .choice(.journal, \.journal, "a journal"),
        .secret(.postgresURL, \.postgresURL),
        .string(.replicaName, \.replicaName),
        // An age with a unit (`7d`), or `off`.
        Setting(
            key: .replicaExpiry,
            kind: .textOrWholeNumber,
            read: { config, settings throws(SettingsError) in
                let text = try Setting.readText(config, .replicaExpiry)
                if text.lowercased() == "off" {
                    settings.replicaExpiry = nil
                } else if let age = DurationText.parse(text), ReplicaConfiguration.allowedExpiry.contains(age) {
                    settings.replicaExpiry = age
                } else {
                    throw SettingsError(key: .replicaExpiry, message: "\"\(text)\" is neither off nor a duration in \(DurationText.format(ReplicaConfiguration.allowedExpiry.lowerBound))...\(DurationText.format(ReplicaConfiguration.allowedExpiry.upperBound)) such as 7d or 12h")
                }
            },
            value: { settings in .string(settings.replicaExpiry.map(DurationText.format) ?? "off") }
        ),
        .uint64(.snapshotEvery, \.service.snapshotEvery, in: Service.snapshotEvery),
        // A number of versions (`1000000`), or an age with a unit (`30d`, `12h`).
        Setting(
            key: .journalRetention,
            kind: .textOrWholeNumber,
            read: { config, settings throws(SettingsError) in
                let text = try Setting.readText(config, .journalRetention)
                if let versions = UInt64(text), Service.journalRetention.contains(versions) {
                    settings.service.journalRetention = .versions(versions)
                } else if text.last?.isLetter == true, let age = DurationText.parse(text), Service.journalRetentionAge.contains(age) {
                    settings.service.journalRetention = .age(age)
                } else {
                    throw SettingsError(key: .journalRetention, message: "\"\(text)\" is neither a number of versions (0...\(Service.journalRetention.upperBound)) nor an age such as 30d or 12h")
                }
            },
            value: { settings in
                switch settings.service.journalRetention {
                case .versions(let count): .int(Int(count))
                case .age(let age): .string(DurationText.format(age))
                }
            }
        ),
        .int(.replayRingEvents, \.service.replayRingEvents, in: Service.replayRingEvents),
        .int(.replayRingBytes, \.service.replayRingBytes, in: Service.replayRingBytes),
        .durationText(.idempotencyRetention, \.service.idempotencyRetention, in: Service.idempotencyRetention),
        .list(.corsAllowedOrigins, \.service.corsAllowedOrigins),
        Setting(
            key: .allowedHosts,
            kind: .list,
            read: { config, settings throws(SettingsError) in
                // Empty: the automatic choice (address literals, localhost and names under .localhost).
                let names = try Setting.readList(config, .allowedHosts)
                settings.service.allowedHosts = names.isEmpty ? nil : names
            },
            value: { .string(($0.service.allowedHosts ?? []).joined(separator: ",")) }
        ),
        .bool(.metricsEnabled, \.service.metricsEnabled),
        .bool(.autoCreateStores, \.service.autoCreateStores),
        .int(.maxStores, \.service.maxStores, in: Service.maxStores),
        .int(.maxLoadedStores, \.service.maxLoadedStores, in: Service.maxLoadedStores),
        .int(.storeIdleSeconds, \.service.storeIdleSeconds, in: Service.storeIdleSeconds),
        .secret(.authTokens, \.access.authTokens),
        .string(.authTokenFile, \.access.authTokenFile),
        .secret(.jwtHs256Secret, \.access.jwtHs256Secret),
        .string(.jwtHs256SecretFile, \.access.jwtHs256SecretFile),
        .string(.jwtPublicKeyFile, \.access.jwtPublicKeyFile),
        .string(.jwtIssuer, \.access.jwtIssuer),
        .string(.jwtAudience, \.access.jwtAudience),
        .int(.jwtLeewaySeconds, \.access.jwtLeewaySeconds, in: AccessSettings.jwtLeewaySecondsRange),
    ]
}
