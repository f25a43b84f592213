import ConcurrencyKit
import Foundation
import JSONPatch
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer

/// `large-state-server [port] [items]`: serves a todo list of `items` (default 10,000) on 127.0.0.1.
/// `large-state-server encode [items] [rounds]`: the time to encode that state as JSON, with
/// Foundation's `JSONEncoder` and with the server's encoder (`JSONCoding.encode`), in turns; then
/// the time to find the patch of one toggled item as patch streams did (parse the new JSON, diff
/// the trees) and as they do (``JSONPatch/diff(canonical:_:maxOperations:)``).
@main
enum LargeStateServer {
    static func main() throws {
        let arguments = CommandLine.arguments
        if arguments.count > 1, arguments[1] == "encode" {
            try timeEncoding(items: arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000, rounds: arguments.count > 3 ? Int(arguments[3]) ?? 20 : 20)
            return
        }
        let port = arguments.count > 1 ? Int(arguments[1]) ?? 8082 : 8082
        let count = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000

        var actions = ActionRegistry()
        actions.register(Toggle.self, as: "toggle")
        var viewModels = ViewModelRegistry<TodoState>()
        viewModels.register(ProgressViewModel.self, as: "progress")
        var http = HTTPServerConfiguration()
        http.port = port
        http.connectionLimit = 20_000
        var service = ServiceConfiguration()
        service.subscriberBacklogBytes = 64 << 20
        var logger = Logger(label: "large-state-server")
        logger.logLevel = .warning

        let server = ReMVVMServer(
            store: try Store(state: TodoState(count: count), reducer: ToggleReducer.self),
            actions: actions,
            viewModels: viewModels,
            http: http,
            service: service,
            logger: logger
        )
        try server.start()
        print("listening on http://127.0.0.1:\(server.port) with \(count) items")

        waitForTerminationSignal()
        server.shutdown()
    }
}

extension LargeStateServer {
    /// Prints the median time of one encoding of a `items`-item state by each encoder, over
    /// `rounds` turns of each, and checks that both give the same bytes.
    static func timeEncoding(items: Int, rounds: Int) throws {
        let state = TodoState(count: items)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]  // JSONCoding's settings
        let foundationBytes = Array(try encoder.encode(state))
        let serverBytes = try JSONCoding.encode(state)
        guard foundationBytes == serverBytes else {
            print("the encoders disagree")
            exit(1)
        }
        let (foundation, server) = try medianMilliseconds(rounds: rounds, { _ = try encoder.encode(state) }, { _ = try JSONCoding.encode(state) })
        print(String(format: "%d items, %d bytes: JSONEncoder %.2f ms, JSONCoding.encode %.2f ms (median of %d), %.1fx",
                     items, serverBytes.count, foundation, server, rounds, foundation / server))

        var toggled = state
        toggled.items[items / 2].done.toggle()
        let next = try JSONCoding.encode(toggled)
        let previousTree = try JSON(parsing: serverBytes)
        let expected = diff(previousTree, try JSON(parsing: next))
        guard try diff(canonical: serverBytes, next, maxOperations: .max) == expected, expected.count == 1 else {
            print("the diffs disagree")
            exit(1)
        }
        let (trees, texts) = try medianMilliseconds(
            rounds: rounds,
            { _ = diff(previousTree, try JSON(parsing: next), maxOperations: next.count / 25) },
            { _ = try diff(canonical: serverBytes, next, maxOperations: next.count / 25) }
        )
        print(String(format: "one item toggled: parse + tree diff %.2f ms, canonical diff %.2f ms (median of %d), %.1fx",
                     trees, texts, rounds, trees / texts))
    }

    /// The median milliseconds of `first` and of `second`, each run `rounds` times, in turns.
    static func medianMilliseconds(rounds: Int, _ first: () throws -> Void, _ second: () throws -> Void) rethrows -> (Double, Double) {
        var times: ([Double], [Double]) = ([], [])
        for _ in 0..<rounds {
            var started = MonotonicClock.nanoseconds()
            try first()
            times.0.append(Double(MonotonicClock.nanoseconds() - started) / 1e6)
            started = MonotonicClock.nanoseconds()
            try second()
            times.1.append(Double(MonotonicClock.nanoseconds() - started) / 1e6)
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        return (median(times.0), median(times.1))
    }
}
