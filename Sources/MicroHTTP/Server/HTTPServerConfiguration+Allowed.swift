extension HTTPServerConfiguration {
    /// The values each setting accepts: the one place they are defined. ``HTTPServer/start()``
    /// refuses a configuration outside them with ``HTTPServerErrorCode/invalidConfiguration``,
    /// and `remvvm-server` checks its settings against them.
    public enum Allowed {
        /// The TCP port (0: any free one).
        public static let port = 0...65_535
        /// libmicrohttpd worker threads.
        public static let workerThreads = 1...1_024
        /// The largest request body.
        public static let maxBodyBytes = 0...(1 << 30)
        /// Connections served at once.
        public static let connectionLimit = 1...(1 << 24)
        /// Connections one client address may hold (0: no limit).
        public static let perClientConnectionLimit = 0...(1 << 24)
        /// How long a request head may take to arrive.
        public static let requestHeadTimeout = Duration.zero ... .seconds(86_400)
        /// How long a request body may take to arrive.
        public static let requestBodyTimeout = Duration.zero ... .seconds(86_400)
        /// Bytes of libmicrohttpd memory pool per connection.
        public static let connectionMemoryLimit = 4_096...(1 << 20)
        /// Seconds an idle connection is kept (0: no limit).
        public static let connectionTimeoutSeconds = 0...86_400
        /// Time between heartbeats of event streams.
        public static let heartbeatInterval = Duration.milliseconds(10) ... .seconds(3_600)
        /// The send buffer of an event stream's socket (0: the kernel's).
        public static let streamSendBufferBytes = 0...(64 << 20)
        /// How long a graceful shutdown waits.
        public static let shutdownTimeout = Duration.zero ... .seconds(3_600)
    }

    /// Whether `host` is what the server can listen on: an IPv4 literal, an IPv6 literal (in
    /// brackets or not), or `localhost`. Host names are not resolved.
    public static func isValidHost(_ host: String) -> Bool {
        SocketAddress(host: host, port: 0) != nil
    }

    /// `host:port` as written in a URL: an IPv6 literal in brackets (`[::1]:8080`).
    public static func authority(host: String, port: Int) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Throws ``HTTPServerErrorCode/invalidHost`` for a host ``isValidHost(_:)`` refuses, then
    /// ``HTTPServerErrorCode/invalidConfiguration`` for the first value outside ``Allowed``
    /// (the message starts with the property's name).
    public func validate() throws(HTTPServerError) {
        func check<Value: Comparable>(_ name: String, _ value: Value, _ range: ClosedRange<Value>) throws(HTTPServerError) {
            guard range.contains(value) else {
                throw HTTPServerError(
                    code: .invalidConfiguration,
                    message: "\(name) must be in \(range.lowerBound)...\(range.upperBound), not \(value)"
                )
            }
        }
        guard Self.isValidHost(host) else {
            throw HTTPServerError(code: .invalidHost, message: "Host '\(host)' is not an IPv4 or IPv6 address or 'localhost'")
        }
        try check("port", port, Allowed.port)
        try check("workerThreads", workerThreads, Allowed.workerThreads)
        try check("maxBodyBytes", maxBodyBytes, Allowed.maxBodyBytes)
        try check("connectionLimit", connectionLimit, Allowed.connectionLimit)
        try check("perClientConnectionLimit", perClientConnectionLimit, Allowed.perClientConnectionLimit)
        try check("requestHeadTimeout", requestHeadTimeout, Allowed.requestHeadTimeout)
        try check("requestBodyTimeout", requestBodyTimeout, Allowed.requestBodyTimeout)
        try check("connectionMemoryLimit", connectionMemoryLimit, Allowed.connectionMemoryLimit)
        try check("connectionTimeoutSeconds", connectionTimeoutSeconds, Allowed.connectionTimeoutSeconds)
        try check("heartbeatInterval", heartbeatInterval, Allowed.heartbeatInterval)
        try check("streamSendBufferBytes", streamSendBufferBytes, Allowed.streamSendBufferBytes)
        try check("shutdownTimeout", shutdownTimeout, Allowed.shutdownTimeout)
    }
}
