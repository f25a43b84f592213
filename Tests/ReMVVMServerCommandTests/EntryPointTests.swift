import ArgumentParser
import ExampleApp
import Foundation
import HTTPTestSupport
import ReMVVM
import Testing
@testable import ReMVVMServerCommand

/// `ReMVVMServerCommand`: a domain handed to the entry point is served with the executable's
/// subcommands, `serve` the default, under the domain's own name.
@Suite(.serialized) struct EntryPointTests {
    @Test func flagsWithoutASubcommandAreTheServeCommands() throws {
        let command = try ServerRootCommand.parseAsRoot(["--port", "9090", "--in-memory"])
        let serve = try #require(command as? ServeCommand)
        #expect(serve.port == 9090)
        #expect(serve.inMemory)
    }

    @Test func serveIsASubcommandThatCanBeNamed() throws {
        let command = try ServerRootCommand.parseAsRoot(["serve", "--data-dir", "/tmp/x"])
        #expect((command as? ServeCommand)?.dataDir == "/tmp/x")
    }

    @Test func anUnknownFlagIsRefusedWithExitCode64() throws {
        #expect {
            _ = try ServerRootCommand.parseAsRoot(["--no-such-flag"])
        } throws: { error in
            ServerRootCommand.exitCode(for: error) == .validationFailure
        }
    }

    @Test func theHelpNamesTheDomainsExecutableAndItsConfigFile() async throws {
        var domain = ExampleApp.domain
        domain.name = "todo-server"
        var help = ""
        do {
            try await ReMVVMServerCommand.run(domain, arguments: ["serve", "--help"])
        } catch {
            #expect(ServerRootCommand.exitCode(for: error) == .success)
            help = ServerRootCommand.fullMessage(for: error, columns: 1_000)
        }
        #expect(help.contains("USAGE: todo-server serve"))
        #expect(help.contains("(default: Config/todo-server.json, skipped if missing)"))
        #expect(help.contains("--journal-sync"))
        #expect(!help.contains("remvvm-server"))
    }

    @Test func theRootHelpListsServeAsTheDefaultSubcommand() async throws {
        var help = ""
        do {
            try await ReMVVMServerCommand.run(ExampleApp.domain, arguments: ["--help"])
        } catch {
            help = ServerRootCommand.fullMessage(for: error, columns: 1_000)
        }
        #expect(help.contains("USAGE: remvvm-server <subcommand>"))
        #expect(help.contains("serve (default)"))
    }

    @Test func theDefaultConfigFileIsNamedAfterTheDomain() async throws {
        #expect(ServerSettings.defaultConfigPath(for: "todo-server") == "Config/todo-server.json")
        let directory = try TemporaryDirectory(prefix: "remvvm-entry")
        let path = directory.path + "/todo-server.json"
        try #"{"port": 9191}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let settings = try await ServerSettings.load(flags: [:], environment: [:], configPath: nil, defaultConfigPath: path)
        #expect(settings.http.port == 9191)
    }

    @Test func aVariableThatIsNoSettingIsWarnedAboutUnderTheDomainsName() {
        #expect(ServerSettings.environmentWarnings(in: ["REMVVM_JOURNAL_SYNCH": "off"], program: "todo-server") == [
            "REMVVM_JOURNAL_SYNCH is no setting of todo-server (did you mean REMVVM_JOURNAL_SYNC?); ignored",
        ])
    }

    @Test func aDomainsStoreStartsAtItsInitialStateWithItsMiddlewareOnItsServices() throws {
        var domain = ExampleApp.domain
        domain.initialState = AppState(counter: 41)
        domain.services.clock = FixedClock(Date(timeIntervalSince1970: 1_800_000_000))
        let store = try domain.store()
        #expect(store.state == AppState(counter: 41))
        #expect(store.dispatchAndWait([Increase(), Login(firstName: "Ada", lastName: "Lovelace")]) == .reduced(version: 2))
        #expect(store.state == AppState(
            counter: 42,
            user: User(firstName: "Ada", lastName: "Lovelace", loggedInAt: "2027-01-15T08:00:00.000Z")
        ))
    }

    @Test func aDomainReducesWithItsReducerAlone() {
        let domain = ExampleApp.domain
        // No middleware in a replay: the login stays as the journal kept it.
        let state = domain.reduce(AppState(counter: 1), Login(firstName: "Ada", lastName: "Lovelace"))
        #expect(state == AppState(counter: 1, user: User(firstName: "Ada", lastName: "Lovelace")))
        #expect(domain.reduce(state, Decrease()).counter == 0)
    }
}
