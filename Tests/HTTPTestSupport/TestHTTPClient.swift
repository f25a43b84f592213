/// A small blocking HTTP/1.1 client over a raw socket, for live server tests.
///
/// Requests reuse one keep-alive connection (reconnecting if the server closed it). Every
/// read waits at most `timeout`. Not thread-safe: use one client per thread.
public final class TestHTTPClient {
    /// The server's address.
    public let host: String
    /// The server's port.
    public let port: Int
    /// How long any single request may take.
    public var timeout: Duration

    private var socket: TestSocket?
    /// How many TCP connections this client opened so far (1 while keep-alive holds).
    public private(set) var connectionsOpened = 0

    /// Creates a client; connects lazily at the first request.
    public init(host: String = "127.0.0.1", port: Int, timeout: Duration = .seconds(10)) {
        self.host = host
        self.port = port
        self.timeout = timeout
    }

    /// Whether a connection is open (the server may still have closed its side).
    public var isConnected: Bool { socket?.isOpen ?? false }

    /// Sends one request and reads its response. Adds `Host`, and `Content-Length` when
    /// there is a body, unless given in `headers`.
    public func send(
        method: String = "GET",
        path: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) throws(TestHTTPError) -> TestHTTPResponse {
        var head = "\(method) \(path) HTTP/1.1\r\n"
        let names = Set(headers.map { $0.0.lowercased() })
        if !names.contains("host") {
            head += "Host: \(host):\(port)\r\n"
        }
        if !body.isEmpty, !names.contains("content-length"), !names.contains("transfer-encoding") {
            head += "Content-Length: \(body.count)\r\n"
        }
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        try sendRaw(Array(head.utf8) + body)
        return try readResponse(bodyless: method == "HEAD")
    }

    /// Sends bytes as they are (malformed, chunked or oversized requests), connecting if needed.
    public func sendRaw(_ bytes: [UInt8]) throws(TestHTTPError) {
        let socket = try connectedSocket()
        do {
            try socket.write(bytes)
        } catch {
            close()
            throw error
        }
    }

    /// Reads the next response on the connection (after ``sendRaw(_:)``); `bodyless` for `HEAD`.
    public func readResponse(bodyless: Bool = false) throws(TestHTTPError) -> TestHTTPResponse {
        guard let socket, socket.isOpen else {
            throw TestHTTPError(code: .connectionClosed, message: "Not connected")
        }
        let deadline = ContinuousClock.now + timeout
        do {
            let head = try ResponseHead.read(from: socket, deadline: deadline)
            var body: [UInt8] = []
            let noBody = bodyless || head.status == 204 || head.status == 304
            if noBody {
                body = []
            } else if head.isChunked {
                while let size = try ResponseHead.readChunkSize(from: socket, deadline: deadline) {
                    if size > 0 {
                        body += try socket.read(count: size, deadline: deadline)
                    }
                    try ResponseHead.readChunkEnd(from: socket, last: size == 0, deadline: deadline)
                    if size == 0 { break }
                }
            } else if let length = head.contentLength {
                body = try socket.read(count: length, deadline: deadline)
            } else {
                body = try socket.readToEnd(deadline: deadline)
            }
            if head.closesConnection || (!noBody && !head.isChunked && head.contentLength == nil) {
                close()
            }
            return TestHTTPResponse(
                status: head.status,
                reason: head.reason,
                headers: head.headers,
                body: body,
                wasChunked: head.isChunked
            )
        } catch {
            close()
            throw error
        }
    }

    /// Sends `bytes` on a new connection and returns every byte the server sends until it closes
    /// the connection; throws if it is still open after ``timeout`` (for "exactly one answer,
    /// then close" checks on malformed requests).
    public func exchangeUntilClosed(_ bytes: [UInt8]) throws(TestHTTPError) -> [UInt8] {
        close()
        let socket = try connectedSocket()
        defer { close() }
        try socket.write(bytes)
        return try socket.readToEnd(deadline: .now + timeout)
    }

    /// Waits until the server closes the connection; returns `false` if it is still open at the deadline.
    public func waitForServerClose(timeout: Duration) -> Bool {
        guard let socket, socket.isOpen else { return true }
        let deadline = ContinuousClock.now + timeout
        do {
            while try socket.fill(deadline: deadline) {}
            close()
            return true
        } catch {
            return false
        }
    }

    /// Closes the connection (the next request opens a new one).
    public func close() {
        socket?.close()
        socket = nil
    }

    private func connectedSocket() throws(TestHTTPError) -> TestSocket {
        if let socket, socket.isOpen, !socket.reachedEnd {
            return socket
        }
        let socket = try TestSocket(host: host, port: port)
        connectionsOpened += 1
        self.socket = socket
        return socket
    }
}
