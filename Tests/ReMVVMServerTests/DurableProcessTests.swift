import Foundation
import HTTPTestSupport
import Testing

/// The executable keeps its store in `--data-dir` by default (docs/http-api.md, "Durability").
@Suite struct DurableProcessTests {
    private func post(_ json: String, port: Int) throws -> TestHTTPResponse {
        try TestHTTPClient(port: port).send(
            method: "POST", path: "/actions", headers: [("Content-Type", "application/json")], body: Array(json.utf8)
        )
    }

    @Test func stateAndVersionsSurviveARestartOfTheExecutable() throws {
        // The executable creates the data directory: start from a path that does not exist yet.
        let parent = try TemporaryDirectory(prefix: "remvvm-restart")
        let directory = parent.path + "/data"
        var stateBefore = ""
        do {
            let server = try ServerProcess(dataDirectory: directory)
            #expect(try post(#"[{"type":"increase"},{"type":"increase"}]"#, port: server.port).bodyString == #"{"version":2}"#)
            #expect(try post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#, port: server.port).status == 200)
            stateBefore = try TestHTTPClient(port: server.port).send(path: "/state").bodyString
            // The executable's login middleware stamps the time from the system clock.
            #expect(stateBefore.hasPrefix(#"{"counter":2,"user":{"firstName":"Ada","lastName":"Lovelace","loggedInAt":"20"#), "\(stateBefore)")
            let exit = try #require(server.stop(with: SIGTERM, timeout: 10))
            #expect(exit.status == 0, "\(server.standardError)")
        }
        #expect(FileManager.default.fileExists(atPath: directory + "/journal.sqlite"), "the data directory was created")
        let restarted = try ServerProcess(dataDirectory: directory)
        let state = try TestHTTPClient(port: restarted.port).send(path: "/state")
        #expect(state.headers["ETag"] == "\"3\"")
        #expect(state.bodyString == stateBefore, "the stamped time comes back from the journal, not from the clock")
        #expect(try post(#"{"type":"decrease"}"#, port: restarted.port).bodyString == #"{"version":4}"#)
        #expect(restarted.standardError.contains("restored version 3"), "\(restarted.standardError)")
    }

    @Test func aSecondServerOnTheSameDataDirectoryRefusesToStart() throws {
        let first = try ServerProcess()
        let directory = try #require(first.dataDirectory)
        #expect {
            _ = try ServerProcess(dataDirectory: directory)
        } throws: { error in
            // Exits non-zero before serving (ServerProcess throws on an exit before "listening
            // on"), naming the directory.
            guard let error = error as? ServerProcessError else { return false }
            return error.message.contains("in use by another server process") && error.message.contains(directory)
                && error.exitStatus != nil && error.exitStatus != 0
        }
        #expect(try TestHTTPClient(port: first.port).send(path: "/healthz").status == 200, "the first one serves on")
    }

    @Test func aSettingThatCannotWorkStopsTheStartBeforeTheDataDirectoryIsCreated() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remvvm-never-\(UUID().uuidString)").path
        for arguments in [["--host", "999.1.1.1"], ["--cors-allowed-origins", "nonsense"]] {
            #expect {
                _ = try ServerProcess(arguments: arguments, dataDirectory: directory)
            } throws: { error in
                guard let error = error as? ServerProcessError else { return false }
                return error.exitStatus == 64 && error.message.contains("Error: invalid setting ") && !error.message.contains("Usage:")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func aDataDirectoryBelowAFileIsRefusedSayingWhichPathIsInTheWay() throws {
        let folder = try TemporaryDirectory(prefix: "remvvm-below-file")
        let file = folder.path + "/afile"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        #expect {
            _ = try ServerProcess(dataDirectory: file + "/data")
        } throws: { error in
            guard let error = error as? ServerProcessError else { return false }
            return error.exitStatus == 1 && error.message.contains("cannot create the data directory \(file)/data: \(file): it exists and is not a directory")
        }
    }

    @Test func inMemoryKeepsNothingAcrossARestart() throws {
        do {
            let server = try ServerProcess(arguments: ["--in-memory"])
            #expect(try post(#"{"type":"increase"}"#, port: server.port).status == 200)
            #expect(try TestHTTPClient(port: server.port).send(path: "/state").headers["ETag"]?.hasPrefix("\"1-") == true,
                    "in memory, tags carry the instance token")
        }
        let again = try ServerProcess(arguments: ["--in-memory"])
        #expect(try TestHTTPClient(port: again.port).send(path: "/state").bodyString == #"{"counter":0,"user":null}"#)
    }

    @Test func anUnknownJournalSyncModeIsAClearStartupError() throws {
        #expect {
            _ = try ServerProcess(environment: ["REMVVM_JOURNAL_SYNC": "sometimes"])
        } throws: { error in
            "\(error)".contains("journalSync") && "\(error)".contains("full, normal, off")
        }
    }
}
