import ConcurrencyKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The data delegate of ``URLSessionTransport``'s session: hands each task's head to the caller
/// waiting for it, then its body, piece by piece, to the stream the caller reads.
///
/// Unchecked `Sendable`: its one stored property is a ``Lock``; URLSession calls the delegate on
/// its serial delegate queue, and every task's record is read and changed under the lock.
final class URLSessionStreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What is known of one running task.
    private struct Exchange {
        var head: CheckedContinuation<HTTPStreamingResponse, any Error>?
        var body: AsyncThrowingStream<[UInt8], any Error>.Continuation?
    }

    private let exchanges = Lock([Int: Exchange]())

    /// Starts `task` and waits for its head; cancelling the caller cancels the task.
    func start(_ task: URLSessionDataTask) async throws -> HTTPStreamingResponse {
        let identifier = task.taskIdentifier
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                exchanges.withLock { $0[identifier] = Exchange(head: continuation) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        var headers: [String: String] = [:]
        for (name, value) in (response as? HTTPURLResponse)?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String {
                headers[name] = value
            }
        }
        let (body, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        continuation.onTermination = { [weak dataTask] termination in
            if case .cancelled = termination { dataTask?.cancel() }
        }
        let waiting = exchanges.withLock { exchanges -> CheckedContinuation<HTTPStreamingResponse, any Error>? in
            let waiting = exchanges[dataTask.taskIdentifier]?.head
            exchanges[dataTask.taskIdentifier] = Exchange(head: nil, body: continuation)
            return waiting
        }
        waiting?.resume(returning: HTTPStreamingResponse(head: HTTPResponseHead(status: status, headers: headers), body: body))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let continuation = exchanges.withLock { $0[dataTask.taskIdentifier]?.body }
        continuation?.yield([UInt8](data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let head = exchange.head {
            head.resume(throwing: error ?? URLError(.badServerResponse))
        } else if let error {
            exchange.body?.finish(throwing: error)
        } else {
            exchange.body?.finish()
        }
    }

    /// Never follows a redirect: the client speaks to the URL it was given.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
