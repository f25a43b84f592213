import ConcurrencyKit
import Dispatch
import ExampleApp
import Foundation
import ReMVVM

/// Passes every action on, as cheap middleware does.
struct PassThrough: AnyMiddleware {
    func onNext<State>(
        for state: State,
        action: any StoreAction,
        interceptor: Interceptor<any StoreAction, State>,
        dispatcher: any Dispatcher
    ) {
        interceptor.next()
    }
}

/// Dispatches `count` increases on `threads` threads and returns actions per second.
func measure(middleware: Int, threads: Int, count: Int, waiting: Bool) throws -> Double {
    let store = try Store.example(middleware: Array(repeating: PassThrough(), count: middleware))
    let perThread = count / threads
    let finished = Lock(0)
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<threads {
        Thread {
            for _ in 0..<perThread {
                if waiting {
                    _ = store.dispatchAndWait(action: Increase())
                } else {
                    store.dispatch(action: Increase())
                }
            }
            finished.withLock { $0 += 1 }
            finished.notifyAll()
        }.start()
    }
    finished.withLock(waitingUntil: { $0 == threads }) { _ in }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    precondition(store.state.counter == perThread * threads, "lost actions")
    return Double(perThread * threads) / seconds
}

let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1_000_000
print("In-process dispatch throughput (\(count) increase actions, trivial reducer)")
print("middleware  threads  api              actions/s")
for middleware in [0, 3] {
    for (threads, waiting) in [(1, false), (4, false), (4, true)] {
        _ = try measure(middleware: middleware, threads: threads, count: count / 10, waiting: waiting)  // warm-up
        let rate = try measure(middleware: middleware, threads: threads, count: count, waiting: waiting)
        let api = waiting ? "dispatchAndWait" : "dispatch"
        print(
            String(middleware).padding(toLength: 12, withPad: " ", startingAt: 0)
                + String(threads).padding(toLength: 9, withPad: " ", startingAt: 0)
                + api.padding(toLength: 17, withPad: " ", startingAt: 0)
                + String(format: "%.0f", rate)
        )
    }
}
