import Configuration
import Foundation
import Logging
import Testing
@testable import remvvm_server

/// How `remvvm-server` resolves its settings: flags, then REMVVM_* variables, then the file, then defaults.
@Suite struct ServerSettingsTests {
    private func writeConfig(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("remvvm-\(UUID().uuidString).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func builtInDefaultsApplyWhenNothingIsGiven() async throws {
        let settings = try await ServerSettings.load(flags: [:], environment: [:], configPath: nil)
        #expect(settings == ServerSettings())
        #expect(settings.host == "127.0.0.1")
        #expect(settings.port == 8080)
    }

    @Test func theShippedConfigFileHoldsTheDefaults() async throws {
        let path = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Config/remvvm-server.json").path
        let settings = try await ServerSettings.load(flags: [:], environment: [:], configPath: path)
        #expect(settings == ServerSettings())
    }

    @Test func fileOverridesDefaultsEnvironmentOverridesFileAndFlagsOverrideAll() async throws {
        let path = try writeConfig(#"{"port": 9000, "host": "0.0.0.0", "logLevel": "debug", "heartbeatSeconds": 5}"#)
        let settings = try await ServerSettings.load(
            flags: [AbsoluteConfigKey(["port"]): ConfigValue(.int(9002), isSecret: false)],
            environment: ["REMVVM_PORT": "9001", "REMVVM_HOST": "::1", "REMVVM_WORKER_THREADS": "3"],
            configPath: path
        )
        #expect(settings.port == 9002, "flag")
        #expect(settings.host == "::1", "environment")
        #expect(settings.workerThreads == 3, "environment, camelCase key as upper snake case")
        #expect(settings.logLevel == .debug, "file")
        #expect(settings.heartbeatSeconds == 5, "file")
        #expect(settings.subscriberBacklogBytes == ServerSettings().subscriberBacklogBytes, "default")
        #expect(settings.http.port == 9002)
        #expect(settings.http.workerThreads == 3)
        #expect(settings.http.heartbeatInterval == .seconds(5))
    }

    @Test func invalidValuesAreErrorsNamingTheSetting() async throws {
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_PORT": "eighty"], configPath: nil) }
            throws: { "\($0)".contains("port") }
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_PORT": "70000"], configPath: nil) }
            throws: { "\($0)".contains("out of range") }
        await #expect { _ = try await ServerSettings.load(flags: [:], environment: ["REMVVM_LOG_LEVEL": "loud"], configPath: nil) }
            throws: { "\($0)".contains("not a log level") }
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
