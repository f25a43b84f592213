internal import CMicroHTTPD
import Logging

/// Hands a ``Response`` to libmicrohttpd for one connection. Runs on the connection's thread,
/// inside the access handler (the only place a response may be queued).
enum ResponseWriter {
    /// - Parameters:
    ///   - isHead: whether the request was `HEAD` (a stream body is then not opened).
    ///   - isHTTP11: whether the request was HTTP/1.1, so libmicrohttpd sends a stream body as
    ///     chunks (HTTP/1.0 gets it unframed, until the connection closes).
    static func queue(
        _ response: Response,
        on connection: OpaquePointer,
        isHead: Bool = false,
        isHTTP11: Bool = false,
        server: ServerCore
    ) -> MHD_Result {
        var status = response.status
        if !(200...999).contains(status) {
            server.logger.error("Responder returned status \(status); sending 500 instead")
            status = 500
        }
        switch response.body {
        case .bytes(let bytes):
            if let prepared = response.prepared, !server.isRefusingRequests, prepared.isUnchanged(response) {
                return queue(prepared.handle, status: status, on: connection, server: server)
            }
            guard let created = makeBufferResponse(bytes) else {
                server.logger.error("Could not allocate a response of \(bytes.count) bytes")
                return .NO
            }
            return submit(created, status: status, headers: response.headers, on: connection, server: server)

        case .stream(let stream) where isHead:
            // libmicrohttpd 0.9.75 sends a chunked terminator after the head of a HEAD reply
            // with a streamed body, corrupting the connection; send the head alone instead.
            stream.end(.clientGone, discardingBacklog: true)
            var head = response
            head.body = .bytes([])
            return queue(head, on: connection, server: server)

        case .pending:
            // The access handler resolves pending responses before they get here.
            server.logger.error("A pending response reached the writer; sending 500")
            return queue(.text("Internal Server Error\n", status: 500), on: connection, server: server)

        case .stream(let stream):
            // libmicrohttpd frames an unknown-length body as chunks for HTTP/1.1 requests,
            // unless the status has no body.
            let chunked = isHTTP11 && status != 204 && status != 304
            guard stream.attach(to: connection, server: server, chunked: chunked) else {
                server.logger.error("An EventStream was returned for more than one response; sending 500")
                return queue(.text("Internal Server Error\n", status: 500), on: connection, server: server)
            }
            let retained = Unmanaged.passRetained(stream)
            let created = MHD_create_response_from_callback(
                cmhd_size_unknown(),
                EventStream.responseBlockSize,
                eventStreamReader,
                retained.toOpaque(),
                eventStreamReleased
            )
            guard let created else {
                // libmicrohttpd never took the stream: end and release it here instead.
                eventStreamReleased(retained.toOpaque())
                server.logger.error("Could not allocate a stream response")
                return .NO
            }
            return submit(created, status: status, headers: response.headers, on: connection, server: server)
        }
    }

    /// Adds the headers, queues the response and drops our reference to it (libmicrohttpd
    /// keeps its own until the response is sent; for streams, that release ends the stream).
    private static func submit(
        _ created: OpaquePointer,
        status: Int,
        headers: HTTPHeaders,
        on connection: OpaquePointer,
        server: ServerCore
    ) -> MHD_Result {
        defer { release(created) }
        for (name, value) in headers where !add(name: name, value: value, to: created) {
            // Invalid characters, or a header libmicrohttpd manages itself (Content-Length...).
            server.logger.debug("Header \(name) was not accepted by libmicrohttpd and is left out")
        }
        if server.isRefusingRequests {
            _ = MHD_add_response_header(created, "Connection", "close")
        }
        return queue(created, status: status, on: connection, server: server)
    }

    /// Queues a response libmicrohttpd holds (its own reference: the caller keeps or drops its).
    private static func queue(_ response: OpaquePointer, status: Int, on connection: OpaquePointer, server: ServerCore) -> MHD_Result {
        let result = MHD_queue_response(connection, UInt32(status), response)
        if result == .NO {
            // E.g. the client spoke a protocol version the status cannot be sent in.
            server.logger.debug("libmicrohttpd refused to queue a \(status) response; closing the connection")
        }
        return result
    }

    /// A libmicrohttpd response with a copy of `bytes` as its body (MUST_COPY: it never points
    /// into a Swift array); nil when it cannot be allocated.
    static func makeBufferResponse(_ bytes: [UInt8]) -> OpaquePointer? {
        bytes.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
        }
    }

    /// Adds every field of `headers` to `response`; false when libmicrohttpd refused one.
    static func addFields(_ headers: HTTPHeaders, to response: OpaquePointer) -> Bool {
        headers.allSatisfy { add(name: $0.name, value: $0.value, to: response) }
    }

    /// Drops our reference to `response` (libmicrohttpd frees it once no connection sends it).
    static func release(_ response: OpaquePointer) {
        MHD_destroy_response(response)
    }

    /// `MHD_add_response_header` (libmicrohttpd copies both texts). Through `withCString`: a
    /// native string lends its own NUL-terminated bytes, where passing the `String` as a C
    /// string argument built a copy of each text (two allocations per field, every answer).
    private static func add(name: String, value: String, to response: OpaquePointer) -> Bool {
        name.withCString { name in
            value.withCString { value in MHD_add_response_header(response, name, value) == .YES }
        }
    }
}
