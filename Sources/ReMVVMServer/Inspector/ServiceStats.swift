import AccessControl
import Foundation

/// The body of `GET /stats`: the figures a person watches to see load at a glance, cheap to read
/// (no metrics registry needed, so also with `metricsEnabled` off), and the server's clock, so
/// that a client can relate the action log's times to its own clock.
struct ServiceStats: Encodable {
    /// Open event streams by kind.
    struct Subscribers: Encodable {
        /// `GET /events` streams (both formats).
        let events: Int
        /// View-model streams (`GET /viewmodels/…/events`).
        let viewModels: Int
    }

    /// What the kernel says about this process (`/proc/self`).
    struct Process: Encodable {
        let residentMemoryBytes: Double
        let cpuSeconds: Double
        let openDescriptors: Double
        /// RFC 3339, to the second.
        let startedAt: String
    }

    /// The loaded stores together (a server of many stores): how many are loaded, how many are
    /// not ok (`/healthz` names them), the worst replica lag over them, and their open streams.
    struct Stores: Encodable {
        let loaded: Int
        let unhealthy: Int
        let maxLagVersions: UInt64
        let subscribers: Subscribers

        init(_ health: StoresHealth) {
            loaded = health.loaded
            unhealthy = health.unhealthy
            maxLagVersions = health.maxLagVersions
            subscribers = Subscribers(events: health.eventStreams, viewModels: health.viewModelStreams)
        }
    }

    /// The version reads and events show now (durable with a journal).
    let version: UInt64
    /// The server's clock when answering, RFC 3339 with milliseconds (the action log's format).
    let time: String
    let subscribers: Subscribers
    /// Nil where `/proc` cannot be read.
    let process: Process?
    /// Nil (absent) on a server of the store `default` alone.
    let stores: Stores?

    init(version: UInt64, eventSubscribers: Int, viewModelSubscribers: Int, stores: Stores? = nil, now: Date = Date()) {
        self.version = version
        self.stores = stores
        time = now.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        subscribers = Subscribers(events: eventSubscribers, viewModels: viewModelSubscribers)
        process = ProcessStatistics.current().map { process in
            Process(
                residentMemoryBytes: process.residentMemoryBytes,
                cpuSeconds: process.cpuSeconds,
                openDescriptors: process.openDescriptors,
                startedAt: Date(timeIntervalSince1970: process.startTimeSeconds).formatted(Date.ISO8601FormatStyle())
            )
        }
    }
}

/// The body of `GET /access`: whether tokens are configured, the scopes the caller's token
/// grants (every scope when none are configured) and the stores it reaches: its list of ids and
/// prefixes (`["lobby", "room-*"]`), `["*"]` for every store, `[]` for none.
struct AccessAnswer: Encodable {
    let accessControl: Bool
    let scopes: [String]
    let stores: [String]

    /// The patterns of `reach`, as a token's list names them.
    static func stores(_ reach: StoreReach) -> [String] {
        reach.description.split(separator: "+").map(String.init)
    }
}
