// swift-tools-version: 6.2

import Foundation
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// Every Swift target of the package is built with `strictSettings`: these make one with them.

/// A library module.
func module(_ name: String, _ dependencies: [Target.Dependency] = [], path: String? = nil, resources: [Resource]? = nil) -> Target {
    .target(name: name, dependencies: dependencies, path: path, resources: resources, swiftSettings: strictSettings)
}

/// An executable module.
func executable(_ name: String, _ dependencies: [Target.Dependency] = [], path: String? = nil) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: path, swiftSettings: strictSettings)
}

/// A test module.
func tests(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: dependencies, swiftSettings: strictSettings)
}

/// The products of other packages the targets use.
extension Target.Dependency {
    static var logging: Self { .product(name: "Logging", package: "swift-log") }
    static var deque: Self { .product(name: "DequeModule", package: "swift-collections") }
    static var serviceLifecycle: Self { .product(name: "ServiceLifecycle", package: "swift-service-lifecycle") }
    static var configuration: Self { .product(name: "Configuration", package: "swift-configuration") }
    static var argumentParser: Self { .product(name: "ArgumentParser", package: "swift-argument-parser") }
    static var crypto: Self { .product(name: "Crypto", package: "swift-crypto") }
    static var cryptoExtras: Self { .product(name: "_CryptoExtras", package: "swift-crypto") }
}

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
        module("CodedErrors"),
        // The concurrency toolkit of every target: one lock (pthread mutex + condition, visible to
        // ThreadSanitizer) and blocking work moved off the cooperative pool.
        module("ConcurrencyKit", ["CLinux"]),
        // eventfd(2), which Glibc's overlay leaves out; imported by ConcurrencyKit only (Doorbell).
        .systemLibrary(name: "CLinux"),
        // The C boundary: libmicrohttpd, imported by MicroHTTP only.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // Our HTTP server over libmicrohttpd; knows nothing about stores.
        module("MicroHTTP", ["CMicroHTTPD", "CodedErrors", "ConcurrencyKit", .logging, .deque, .serviceLifecycle]),
        // The C boundary for SQLite, imported by SQLiteJournal only.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The journal: records, the storage protocol, group commit on one thread; no SQL, no HTTP.
        module("Journal", ["ConcurrencyKit", "CodedErrors", .deque]),
        // The embedded journal backend: one SQLite file per data directory.
        module("SQLiteJournal", ["CSQLite", "Journal", "ConcurrencyKit"]),
        // The C boundary for PostgreSQL (libpq), imported by PostgresJournal only.
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // The shared journal backend: one ordered action log in PostgreSQL, for several replicas.
        module("PostgresJournal", ["CPostgres", "Journal", "ConcurrencyKit", .deque]),
        // The store core: ReMVVM semantics, thread-safe; knows nothing about HTTP.
        module("ReMVVM", ["ConcurrencyKit", "CodedErrors", .deque]),
        // Navigation as state: tabs of screen stacks and modals, their actions, reducer and
        // middleware (ReMVVM's Push/Pop/ShowModal); knows nothing about HTTP.
        module("ReMVVMNavigation", ["ReMVVM"]),
        // The project's one strict JSON reader (RFC 8259 exactly, duplicate names, depth limit): a
        // pull tokenizer that JSON Patch, the POST /actions validator and the JWT reader stand on.
        // No dependencies.
        module("StrictJSON"),
        // Who may do what: static tokens (SHA-256), JWT verification (HS256/ES256/RS256), scopes,
        // store lists and the Bearer challenge; knows nothing about HTTP servers or stores.
        module("AccessControl", ["StrictJSON", "CodedErrors", .crypto, .cryptoExtras]),
        // JSON Patch (RFC 6902) and JSON pointers (RFC 6901) over a JSON value that keeps number
        // literals as written: diff, apply, canonical encoding. No dependencies.
        module("JSONPatch", ["StrictJSON", "CodedErrors"]),
        // The service: a store served over MicroHTTP. The inspector page (GET /inspector) and the
        // thin client (GET /app): HTML, CSS and JavaScript compiled into the binary.
        module(
            "ReMVVMServer",
            [
                "ReMVVM", "ReMVVMNavigation", "JSONPatch", "StrictJSON", "MicroHTTP", "ConcurrencyKit", "Journal",
                "AccessControl", .logging, .serviceLifecycle, .deque, .crypto,
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.embedInCode("Inspector/Resources"), .embedInCode("App/Resources")]
        ),
        // The entry point of a domain's server: settings (flags, REMVVM_* variables, config file),
        // the journal or the shared log, access control, a ServiceGroup with graceful shutdown, and
        // the subcommands (`serve` the default).
        module("ReMVVMServerCommand", [
            "ReMVVM", "ReMVVMServer", "MicroHTTP", "ConcurrencyKit", "Journal", "JSONPatch", "SQLiteJournal",
            "PostgresJournal", "AccessControl", .logging, .configuration, .argumentParser, .serviceLifecycle,
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The seed domain: counter + login/greetings, and their screens (navigation).
        module("ExampleApp", [
            "ReMVVM", "ReMVVMNavigation", "ReMVVMServer", "ReMVVMServerCommand", "MicroHTTP", "Journal", "AccessControl", .logging,
        ]),
        // The example domain served through ReMVVMServerCommand: main.swift alone.
        executable("remvvm-server", ["ExampleApp", "ReMVVMServerCommand"]),
        // A raw-socket HTTP/1.1 + SSE client for live tests (test-only).
        module("HTTPTestSupport", ["ConcurrencyKit", "CodedErrors", .deque, .logging], path: "Tests/HTTPTestSupport"),
        tests("ConcurrencyKitTests", ["ConcurrencyKit", "HTTPTestSupport"]),
        tests("JournalTests", ["Journal", "ConcurrencyKit", "HTTPTestSupport"]),
        tests("SQLiteJournalTests", ["SQLiteJournal", "Journal", "HTTPTestSupport"]),
        // A throwaway PostgreSQL server for tests (initdb + pg_ctl as the postgres user, unix socket).
        module("PostgresTestSupport", ["ConcurrencyKit"], path: "Tests/PostgresTestSupport"),
        tests("PostgresJournalTests", ["PostgresJournal", "Journal", "PostgresTestSupport", "HTTPTestSupport", "ConcurrencyKit"]),
        tests("ReMVVMTests", ["ReMVVM", "ExampleApp", "ConcurrencyKit", "HTTPTestSupport"]),
        tests("ReMVVMNavigationTests", ["ReMVVMNavigation", "ReMVVM"]),
        tests("AccessControlTests", ["AccessControl", .crypto, .cryptoExtras]),
        tests("StrictJSONTests", ["StrictJSON"]),
        tests("JSONPatchTests", ["JSONPatch", "HTTPTestSupport"]),
        tests("MicroHTTPTests", ["MicroHTTP", "HTTPTestSupport", "ConcurrencyKit", .logging, .serviceLifecycle]),
        tests("ReMVVMServerTests", [
            // ReMVVMServerCommand: AccessSettingsTests (they share the access tokens of Support/).
            "ReMVVMServer", "ExampleApp", "MicroHTTP", "HTTPTestSupport", "remvvm-server", "ReMVVMServerCommand", "ConcurrencyKit", "ReMVVMNavigation",
            "Journal", "SQLiteJournal", "PostgresJournal", "PostgresTestSupport", "AccessControl", "JSONPatch",
            .crypto, .logging, .serviceLifecycle, .configuration,
        ]),
        tests("ReMVVMServerCommandTests", [
            "ReMVVMServerCommand", "ReMVVMServer", "ReMVVM", "ExampleApp", "MicroHTTP", "HTTPTestSupport",
            "Journal", "PostgresJournal", "SQLiteJournal", .logging, .configuration, .argumentParser,
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// Benchmarks are built only when asked for (scripts/bench.sh sets REMVVM_BENCHMARKS=1), so that
// `swift build` and `swift test` stay lean.
if ProcessInfo.processInfo.environment["REMVVM_BENCHMARKS"] != nil {
    package.targets += [
        // Baseline: a plain libmicrohttpd hello server in C, same threading mode as MicroHTTP.
        .executableTarget(name: "mhd-hello", path: "Benchmarks/mhd-hello", linkerSettings: [.linkedLibrary("microhttpd")]),
        // The service with a large state (10,000 todo items), for the cost of a big state.
        executable("large-state-server", ["ReMVVM", "ReMVVMServer", "MicroHTTP", "ConcurrencyKit", "JSONPatch", .logging], path: "Benchmarks/large-state-server"),
        // remvvm-server's example service with a synchronous main, which valgrind can run:
        // instructions per request (Benchmarks/request-cost.sh).
        executable(
            "request-cost-server",
            ["ExampleApp", "ReMVVMServer", "MicroHTTP", "Journal", "SQLiteJournal", "AccessControl", "ConcurrencyKit", .logging],
            path: "Benchmarks/request-cost-server"
        ),
        // Group commit through the SQLite journal: acknowledged records/s by client count.
        executable("journal-bench", ["Journal", "SQLiteJournal", "ConcurrencyKit"], path: "Benchmarks/journal-bench"),
        // Appends to the shared PostgreSQL log: actions/s by actions per transaction.
        executable("postgres-log-bench", ["PostgresJournal", "Journal", "ConcurrencyKit"], path: "Benchmarks/postgres-log-bench"),
        // In-process dispatch throughput of the store core.
        executable("dispatch-bench", ["ReMVVM", "ExampleApp", "ConcurrencyKit"], path: "Benchmarks/dispatch-bench"),
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
    module("ReMVVMClient", ["ReMVVM", "JSONPatch", "ConcurrencyKit"]),
    executable("remvvm-client", ["ReMVVMClient", "JSONPatch", .argumentParser]),
    tests("ReMVVMClientTests", [
        "ReMVVMClient", "ReMVVM", "JSONPatch", "ReMVVMServer", "ExampleApp", "MicroHTTP", "Journal",
        "SQLiteJournal", "ConcurrencyKit", "HTTPTestSupport", "AccessControl", "remvvm-client", .logging,
    ]),
]
if ProcessInfo.processInfo.environment["REMVVM_BENCHMARKS"] != nil {
    package.targets += [
        // What one client parses and applies: events/s of a recorded delta stream, memory per stream.
        executable("client-bench", ["ReMVVMClient", "JSONPatch"], path: "Benchmarks/client-bench"),
    ]
}
