#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How an ``HTTPServer`` listens and what it allows per connection and request.
public struct HTTPServerConfiguration: Sendable, Equatable {
    /// The address to bind: an IPv4 literal, an IPv6 literal (brackets optional), `localhost`
    /// (127.0.0.1) or `0.0.0.0` / `::` for every interface.
    public var host: String = "127.0.0.1"
    /// The TCP port; 0 picks a free one (read it back from ``HTTPServer/port``).
    public var port: Int = 8080
    /// Worker threads, each running its own epoll loop; defaults to the active core count.
    public var workerThreads: Int = HTTPServerConfiguration.activeCoreCount
    /// The largest request body accepted; larger ones get 413 without reaching routing.
    public var maxBodyBytes: Int = 1_048_576
    /// The most simultaneous connections served, event streams included. Requests on
    /// connections beyond it are answered `503` with `Retry-After` (a short overflow is
    /// accepted for that); past the overflow, connections are closed at once.
    public var connectionLimit: Int = 16_384
    /// The most simultaneous connections from one IP address
    /// (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`); more are closed at once. 0 = no limit.
    public var perClientConnectionLimit: Int = 0
    /// How long a client may take to send a request head: from opening the connection, or from
    /// the previous answer on it. A connection over it is closed. It bounds slow-header attacks,
    /// which libmicrohttpd's idle timeout (restarted by every byte) does not; it also bounds
    /// how long an idle keep-alive connection stays open. 0 disables it. Default 15 s.
    public var requestHeadTimeout: Duration = .seconds(15)
    /// How long a client may take to send a request body, from its head's arrival to its last
    /// byte. A connection over it is closed without an answer. It bounds slow-body attacks, which
    /// libmicrohttpd's idle timeout (restarted by every byte) does not: a client sending a byte
    /// every few seconds of a declared megabyte would otherwise hold its connection for weeks.
    /// 0 disables it. Default 60 s.
    public var requestBodyTimeout: Duration = .seconds(60)
    /// Memory per connection for request head, body chunks and the write buffer
    /// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`). libmicrohttpd touches all of it, so it is most of
    /// what an idle event stream costs: measured with 10,000 subscribers, RSS 130 MB at 8 KiB,
    /// 171 MB at 16 KiB. At 16 KiB request heads up to about 15.7 KB are accepted and cookies (parsed
    /// into the pool a second time) up to about 7.5 KB; larger get libmicrohttpd's own 431
    /// (`docs/libmicrohttpd-errors.md`). At 8 KiB cookies over about 3.5 KB, which browsers do send,
    /// get it. Default 16 KiB.
    public var connectionMemoryLimit: Int = 16 * 1024
    /// Seconds a connection may stay idle (no bytes either way) before it is closed; event
    /// streams waiting for data are exempt (the heartbeat checks them instead). 0 disables it.
    public var connectionTimeoutSeconds: Int = 30
    /// How often a comment line (`: ping\n`) is sent on every idle event stream, to keep proxies
    /// from closing it and to notice clients that left.
    public var heartbeatInterval: Duration = .seconds(15)

    /// The kernel send buffer of each event-stream socket, in bytes (`SO_SNDBUF`; Linux reserves
    /// twice the value). It bounds what a client that stops reading holds in the kernel, as an
    /// ``EventStream``'s `maxPendingBytes` bounds what it holds in the server: without a cap,
    /// loopback and fast links grow it to megabytes per socket. 0 leaves the kernel's automatic
    /// sizing. Default 64 KiB.
    public var streamSendBufferBytes: Int = 64 * 1024
    /// Whether a send to a stream whose connection waits for data is written straight to the
    /// socket (one system call; see `docs/event-delivery.md`) instead of waking libmicrohttpd.
    /// Default on.
    public var directStreamWrites: Bool = true
    /// How long a graceful stop (``HTTPServer/run()`` after SIGTERM or SIGINT) waits for running
    /// requests and for event streams to drain before it closes what is left. Default 5 s.
    public var shutdownTimeout: Duration = .seconds(5)

    /// Creates the default configuration.
    public init() {}

    /// The number of cores this process may run on.
    static var activeCoreCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
