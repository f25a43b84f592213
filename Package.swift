// swift-tools-version: 6.2

import Foundation
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// Linux only: MicroHTTP runs libmicrohttpd in epoll mode and uses Linux socket options (EPOLLRDHUP,
// SO_SNDBUF semantics); ConcurrencyKit and the tests use Glibc. MicroHTTP stops the build elsewhere.
let package = Package(
    name: "remvvm-server",
    products: [
        .library(name: "ReMVVM", targets: ["ReMVVM"]),
        .library(name: "MicroHTTP", targets: ["MicroHTTP"]),
        .library(name: "ReMVVMServer", targets: ["ReMVVMServer"]),
        .library(name: "ReMVVMNavigation", targets: ["ReMVVMNavigation"]),
        // What an app's own domain needs to get the whole server: the entry point, and the modules
        // of the types it may hand in (journals, access control).
        .library(name: "ReMVVMServerCommand", targets: ["ReMVVMServerCommand"]),
        .library(name: "Journal", targets: ["Journal"]),
        .library(name: "SQLiteJournal", targets: ["SQLiteJournal"]),
        .library(name: "PostgresJournal", targets: ["PostgresJournal"]),
        .library(name: "AccessControl", targets: ["AccessControl"]),
        .executable(name: "remvvm-server", targets: ["remvvm-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // SHA-256 of idempotent requests (and, next, of access tokens and JWT signatures).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // GET /metrics: the swift-metrics API, rendered by swift-prometheus.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `swift package generate-documentation` (scripts/docs.sh): the DocC catalogs of the public
        // modules. A command plugin: nothing of it is built into the server.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The error shape of every module: a code enum and a message (`CodedError`). No dependencies.
        .target(
            name: "CodedErrors",
            swiftSettings: strictSettings
        ),
        // The concurrency toolkit of every target: one lock (pthread mutex + condition, visible to
        // ThreadSanitizer) and blocking work moved off the cooperative pool.
        .target(
            name: "ConcurrencyKit",
            dependencies: ["CLinux"],
            swiftSettings: strictSettings
        ),
        // eventfd(2), which Glibc's overlay leaves out; imported by ConcurrencyKit only (Doorbell).
        .systemLibrary(name: "CLinux"),
        // The C boundary: libmicrohttpd, imported by MicroHTTP only.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // Our HTTP server over libmicrohttpd; knows nothing about stores.
        .target(
            name: "MicroHTTP",
            dependencies: [
                "CMicroHTTPD",
                "CodedErrors",
                "ConcurrencyKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // The C boundary for SQLite, imported by SQLiteJournal only.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The journal: records, the storage protocol, group commit on one thread; no SQL, no HTTP.
        .target(
            name: "Journal",
            dependencies: [
                "ConcurrencyKit",
                "CodedErrors",
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),
        // The embedded journal backend: one SQLite file per data directory.
        .target(
            name: "SQLiteJournal",
            dependencies: ["CSQLite", "Journal", "ConcurrencyKit"],
            swiftSettings: strictSettings
        ),
        // The C boundary for PostgreSQL (libpq), imported by PostgresJournal only.
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // The shared journal backend: one ordered action log in PostgreSQL, for several replicas.
        .target(
            name: "PostgresJournal",
            dependencies: [
                "CPostgres", "Journal", "ConcurrencyKit",
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),
        // The store core: ReMVVM semantics, thread-safe; knows nothing about HTTP.
        .target(
            name: "ReMVVM",
            dependencies: [
                "ConcurrencyKit",
                "CodedErrors",
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),
        // Navigation as state: tabs of screen stacks and modals, their actions, reducer and
        // middleware (ReMVVM's Push/Pop/ShowModal); knows nothing about HTTP.
        .target(
            name: "ReMVVMNavigation",
            dependencies: ["ReMVVM"],
            swiftSettings: strictSettings
        ),
        // The project's one strict JSON reader (RFC 8259 exactly, duplicate names, depth limit): a
        // pull tokenizer that JSON Patch, the POST /actions validator and the JWT reader stand on.
        // No dependencies.
        .target(
            name: "StrictJSON",
            swiftSettings: strictSettings
        ),
        // Who may do what: static tokens (SHA-256), JWT verification (HS256/ES256/RS256), scopes,
        // store lists and the Bearer challenge; knows nothing about HTTP servers or stores.
        .target(
            name: "AccessControl",
            dependencies: [
                "StrictJSON",
                "CodedErrors",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // JSON Patch (RFC 6902) and JSON pointers (RFC 6901) over a JSON value that keeps number
        // literals as written: diff, apply, canonical encoding. No dependencies.
        .target(
            name: "JSONPatch",
            dependencies: ["StrictJSON", "CodedErrors"],
            swiftSettings: strictSettings
        ),
        // The service: a store served over MicroHTTP.
        .target(
            name: "ReMVVMServer",
            dependencies: [
                "ReMVVM",
                "ReMVVMNavigation",
                "JSONPatch",
                "StrictJSON",
                "MicroHTTP",
                "ConcurrencyKit",
                "Journal",
                "AccessControl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The inspector page (GET /inspector) and the thin client (GET /app): HTML, CSS and
            // JavaScript compiled into the binary.
            resources: [.embedInCode("Inspector/Resources"), .embedInCode("App/Resources")],
            swiftSettings: strictSettings
        ),
        // The entry point of a domain's server: settings (flags, REMVVM_* variables, config file),
        // the journal or the shared log, access control, a ServiceGroup with graceful shutdown, and
        // the subcommands (`serve` the default).
        .target(
            name: "ReMVVMServerCommand",
            dependencies: [
                "ReMVVM",
                "ReMVVMServer",
                "MicroHTTP",
                "ConcurrencyKit",
                "Journal",
                "JSONPatch",
                "SQLiteJournal",
                "PostgresJournal",
                "AccessControl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // The seed domain: counter + login/greetings, and their screens (navigation).
        .target(
            name: "ExampleApp",
            dependencies: [
                "ReMVVM", "ReMVVMNavigation", "ReMVVMServer", "ReMVVMServerCommand", "MicroHTTP", "Journal", "AccessControl",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The example domain served through ReMVVMServerCommand: main.swift alone.
        .executableTarget(
            name: "remvvm-server",
            dependencies: ["ExampleApp", "ReMVVMServerCommand"],
            swiftSettings: strictSettings
        ),
        // A raw-socket HTTP/1.1 + SSE client for live tests (test-only).
        .target(
            name: "HTTPTestSupport",
            dependencies: [
                "ConcurrencyKit",
                "CodedErrors",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HTTPTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ConcurrencyKitTests",
            dependencies: ["ConcurrencyKit", "HTTPTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "JournalTests",
            dependencies: ["Journal", "ConcurrencyKit", "HTTPTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SQLiteJournalTests",
            dependencies: ["SQLiteJournal", "Journal", "HTTPTestSupport"],
            swiftSettings: strictSettings
        ),
        // A throwaway PostgreSQL server for tests (initdb + pg_ctl as the postgres user, unix socket).
        .target(
            name: "PostgresTestSupport",
            dependencies: ["ConcurrencyKit"],
            path: "Tests/PostgresTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PostgresJournalTests",
            dependencies: ["PostgresJournal", "Journal", "PostgresTestSupport", "HTTPTestSupport", "ConcurrencyKit"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReMVVMTests",
            dependencies: ["ReMVVM", "ExampleApp", "ConcurrencyKit", "HTTPTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReMVVMNavigationTests",
            dependencies: ["ReMVVMNavigation", "ReMVVM"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AccessControlTests",
            dependencies: [
                "AccessControl",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrictJSONTests",
            dependencies: ["StrictJSON"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "JSONPatchTests",
            dependencies: ["JSONPatch", "HTTPTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MicroHTTPTests",
            dependencies: [
                "MicroHTTP", "HTTPTestSupport", "ConcurrencyKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReMVVMServerTests",
            dependencies: [
                // ReMVVMServerCommand: AccessSettingsTests (they share the access tokens of Support/).
                "ReMVVMServer", "ExampleApp", "MicroHTTP", "HTTPTestSupport", "remvvm-server", "ReMVVMServerCommand", "ConcurrencyKit", "ReMVVMNavigation",
                "Journal", "SQLiteJournal", "PostgresJournal", "PostgresTestSupport", "AccessControl", "JSONPatch",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReMVVMServerCommandTests",
            dependencies: [
                "ReMVVMServerCommand", "ReMVVMServer", "ReMVVM", "ExampleApp", "MicroHTTP", "HTTPTestSupport",
                "Journal", "PostgresJournal",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Benchmarks are built only when asked for (scripts/bench.sh sets REMVVM_BENCHMARKS=1), so that
// `swift build` and `swift test` stay lean.
if ProcessInfo.processInfo.environment["REMVVM_BENCHMARKS"] != nil {
    package.targets += [
        // Baseline: a plain libmicrohttpd hello server in C, same threading mode as MicroHTTP.
        .executableTarget(
            name: "mhd-hello",
            path: "Benchmarks/mhd-hello",
            linkerSettings: [.linkedLibrary("microhttpd")]
        ),
        // The service with a large state (10,000 todo items), for the cost of a big state.
        .executableTarget(
            name: "large-state-server",
            dependencies: [
                "ReMVVM", "ReMVVMServer", "MicroHTTP", "ConcurrencyKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/large-state-server",
            swiftSettings: strictSettings
        ),
        // remvvm-server's example service with a synchronous main, which valgrind can run:
        // instructions per request (Benchmarks/request-cost.sh).
        .executableTarget(
            name: "request-cost-server",
            dependencies: [
                "ExampleApp", "ReMVVMServer", "MicroHTTP", "Journal", "SQLiteJournal", "AccessControl", "ConcurrencyKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/request-cost-server",
            swiftSettings: strictSettings
        ),
        // Group commit through the SQLite journal: acknowledged records/s by client count.
        .executableTarget(
            name: "journal-bench",
            dependencies: ["Journal", "SQLiteJournal", "ConcurrencyKit"],
            path: "Benchmarks/journal-bench",
            swiftSettings: strictSettings
        ),
        // Appends to the shared PostgreSQL log: actions/s by actions per transaction.
        .executableTarget(
            name: "postgres-log-bench",
            dependencies: ["PostgresJournal", "Journal", "ConcurrencyKit"],
            path: "Benchmarks/postgres-log-bench",
            swiftSettings: strictSettings
        ),
        // In-process dispatch throughput of the store core.
        .executableTarget(
            name: "dispatch-bench",
            dependencies: ["ReMVVM", "ExampleApp", "ConcurrencyKit"],
            path: "Benchmarks/dispatch-bench",
            swiftSettings: strictSettings
        ),
    ]
}

// The Swift client (issue 37): the library an app links (Linux and Apple platforms: Foundation's
// URLSession, no MicroHTTP, no Glibc of its own), the `remvvm-client` tool over it, and its tests
// against a real server. ReMVVM's `Synchronization` types (Mutex, Atomic) need these versions.
package.platforms = [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)]
package.products += [
    .library(name: "ReMVVMClient", targets: ["ReMVVMClient"]),
    .executable(name: "remvvm-client", targets: ["remvvm-client"]),
]
package.targets += [
    .target(
        name: "ReMVVMClient",
        dependencies: ["ReMVVM", "JSONPatch", "ConcurrencyKit"],
        swiftSettings: strictSettings
    ),
    .executableTarget(
        name: "remvvm-client",
        dependencies: [
            "ReMVVMClient", "JSONPatch",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "ReMVVMClientTests",
        dependencies: [
            "ReMVVMClient", "ReMVVM", "JSONPatch", "ReMVVMServer", "ExampleApp", "MicroHTTP", "Journal",
            "SQLiteJournal", "ConcurrencyKit", "HTTPTestSupport", "AccessControl", "remvvm-client",
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: strictSettings
    ),
]
if ProcessInfo.processInfo.environment["REMVVM_BENCHMARKS"] != nil {
    package.targets += [
        // What one client parses and applies: events/s of a recorded delta stream, memory per stream.
        .executableTarget(
            name: "client-bench",
            dependencies: ["ReMVVMClient", "JSONPatch"],
            path: "Benchmarks/client-bench",
            swiftSettings: strictSettings
        ),
    ]
}
