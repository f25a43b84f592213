import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPTransport`` over Foundation's `URLSession`: the system's HTTP stack on Apple platforms
/// (HTTP/2, proxies, the keychain's certificates), swift-corelibs-foundation's libcurl-based one on
/// Linux. Event streams are read through a data delegate (``URLSessionStreamDelegate``), which both
/// implementations support (`URLSession.bytes(for:)` does not exist on Linux).
///
/// Nothing is cached and no cookie is kept: every answer of the server is read fresh.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate: URLSessionStreamDelegate

    /// Creates a transport with its own session. `maximumConnectionsPerHost` bounds the connections
    /// to one server (each open event stream holds one).
    public init(maximumConnectionsPerHost: Int = 16) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        configuration.timeoutIntervalForResource = .infinity
        delegate = URLSessionStreamDelegate()
        let queue = OperationQueue()
        queue.name = "ReMVVMClient.URLSessionTransport"
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Sends `request` and collects the whole answer.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let answer = try await stream(request)
        var body: [UInt8] = []
        for try await piece in answer.body {
            body += piece
        }
        // A cancelled task's body ends as if complete: a cut-off answer must not pass for one.
        try Task.checkCancellation()
        return HTTPResponse(head: answer.head, body: body)
    }

    /// Sends `request`; returns at the answer's head, its body arriving through the delegate.
    public func stream(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let task = session.dataTask(with: Self.urlRequest(request))
        return try await delegate.start(task)
    }

    private static func urlRequest(_ request: HTTPRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        urlRequest.timeoutInterval = request.idleTimeout.seconds
        for (name, value) in request.headers {
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        if let body = request.body {
            urlRequest.httpBody = Data(body)
        }
        return urlRequest
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
