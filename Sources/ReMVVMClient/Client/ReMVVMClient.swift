public import Foundation
import ReMVVM

/// The ReMVVM API of one store over HTTP, with the app's own `Codable` types.
///
/// Point it at a store's base URL (`http://host:8080` for the default store, or
/// `http://host:8080/stores/{id}`):
///
/// ```swift
/// var actions = ActionNames()
/// actions.register(Increase.self, as: "increase")
/// let client = try ReMVVMClient(url: "http://127.0.0.1:8080", token: "s3cret", actions: actions)
/// let answer = try await client.dispatch(Increase())          // .applied(version: 42)
/// for try await update in client.states(as: AppState.self) {  // resumes across restarts
///     print(update.version, update.state.counter)
/// }
/// ```
///
/// Dispatches are sent exactly once across retries (``dispatch(_:ifMatch:)``); streams reconnect
/// with `Last-Event-ID` and never repeat or skip a version (``stateEvents(deltas:)``).
public final class ReMVVMClient: Sendable {
    /// The store's base URL, without a trailing slash.
    public let baseURL: URL
    /// The access token sent as `Authorization: Bearer`, nil for none.
    public let token: String?
    /// The wire names of the app's actions.
    public let actions: ActionNames
    /// How requests reach the server.
    public let transport: any HTTPTransport
    /// When dispatches and reads are retried, and how streams back off while the server is away.
    public let retry: RetryPolicy
    /// How long an event stream may stay silent before it counts as broken and is reopened: longer
    /// than the server's heartbeat (15 s by default).
    public let streamIdleTimeout: Duration

    /// Creates a client of the store at `baseURL`.
    public init(
        baseURL: URL,
        token: String? = nil,
        actions: ActionNames = ActionNames(),
        transport: any HTTPTransport = URLSessionTransport(),
        retry: RetryPolicy = RetryPolicy(),
        streamIdleTimeout: Duration = .seconds(45)
    ) {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.baseURL = URL(string: text) ?? baseURL
        self.token = token
        self.actions = actions
        self.transport = transport
        self.retry = retry
        self.streamIdleTimeout = streamIdleTimeout
    }

    /// Creates a client of the store at `url` (`http://host:8080` or `…/stores/{id}`); throws
    /// ``ClientError/Code/invalidURL`` for a text that is not an absolute `http` or `https` URL.
    public convenience init(
        url: String,
        token: String? = nil,
        actions: ActionNames = ActionNames(),
        transport: any HTTPTransport = URLSessionTransport(),
        retry: RetryPolicy = RetryPolicy(),
        streamIdleTimeout: Duration = .seconds(45)
    ) throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
              scheme == "http" || scheme == "https", parsed.host != nil, parsed.query == nil
        else {
            throw ClientError(.invalidURL, "\(url) is not a store's base URL (http://host:port or http://host:port/stores/{id}, no query)")
        }
        self.init(baseURL: parsed, token: token, actions: actions, transport: transport, retry: retry, streamIdleTimeout: streamIdleTimeout)
    }

    /// The URL of `path` (starting with `/`, its segments already percent-encoded) under the base
    /// URL, with `query` percent-encoded.
    func url(_ path: String, query: [(name: String, value: String)] = []) -> URL {
        var text = baseURL.absoluteString + path
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.percentEncoded($0.name))=\(Self.percentEncoded($0.value))" }.joined(separator: "&")
        }
        return URL(string: text) ?? baseURL
    }

    /// `text` as one path segment or query component: everything but RFC 3986's unreserved
    /// characters percent-encoded (a `+` too, which a query would read as a space).
    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// RFC 3986's unreserved characters (ASCII letters and digits, `-._~`).
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A request to this store, with the token and `Accept`.
    func request(_ method: String, _ url: URL, accept: String = "application/json", headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) -> HTTPRequest {
        var all: [(name: String, value: String)] = [("Accept", accept)]
        if let token { all.append(("Authorization", "Bearer \(token)")) }
        if body != nil { all.append(("Content-Type", "application/json")) }
        return HTTPRequest(method: method, url: url, headers: all + headers, body: body)
    }
}
