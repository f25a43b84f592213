internal import CMicroHTTPD
import Synchronization

/// `MHD_AccessHandlerCallback`: called on the connection's worker thread, first when the
/// request head is in, then once per body piece, then once with no data at the end.
///
/// The reply is queued on the last call, never the first: a reply queued on the first call
/// makes libmicrohttpd close the connection afterwards (no keep-alive).
func accessHandler(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?,
    _ version: UnsafePointer<CChar>?,
    _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let url, let method, let uploadDataSize, let slot else {
        return .NO
    }
    let server = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let limit = server.maxBodyBytes

    let state = RequestSlot(slot.pointee)
    switch state {
    case .fresh, .queryRefused:
        server.requestStarted()
        RequestSlot.markHeadersSeen(slot)
        let record = connectionRecord(of: connection)
        if let record {
            server.connections.headReceived(record)
        }
        let head = RequestHead.read(
            of: connection,
            isHTTP11: RequestReader.isHTTP11(version),
            singleFields: server.singleFields,
            repeated: record?.repeatedFieldValues
        )
        if server.isOverConnectionLimit {
            return refuse(.overloaded(limit: server.connectionLimit.load(ordering: .relaxed)), connection, url, method, head.headers, server)
        }
        if let violation = head.violation {
            // Answered now, before any body byte is read, and the connection closed: where the
            // next request would start is unknown.
            return refuse(violation, connection, url, method, head.headers, server)
        }
        if url.pointee != CChar(UInt8(ascii: "/")) {
            // Only paths are served (origin-form): what the gates and the router read starts at
            // its `/`. Absolute-form, authority-form and `*` are refused, not read as paths.
            return refuse(.notOriginForm, connection, url, method, head.headers, server)
        }
        if case .queryRefused = state {
            // libmicrohttpd parsed none of it (requestTargetReceived): answered now, and closed.
            let failure = RequestFailure.queryTooLarge(limit: server.queryLimit.maxBytes, bytesPerParameter: QueryLimit.bytesPerParameter)
            return refuse(failure, connection, url, method, head.headers, server)
        }
        record?.keepHeaders(head.headers)
        if let record, head.isChunked || (head.contentLength ?? 0) > 0 {
            server.connections.bodyAwaited(record)
        }
        if let declared = head.contentLength, declared > UInt64(limit) {
            if declared > UInt64(drainLimit(limit)) || RequestReader.expectsContinue(connection) {
                // The client waits for a go-ahead, or the body is too large to read through:
                // answer now, before reading it.
                return refuse(.bodyTooLarge(limit: limit), connection, url, method, head.headers, server)
            }
            // Read the body and drop it, then answer (RFC 9112 §9.6): closing on a client that
            // is still sending resets the connection, and clients that send everything before
            // they read (Python's http.client) would get the reset instead of the 413.
            let body = RequestBody(expectedLength: nil, limit: limit)
            body.refuse()
            RequestSlot.store(body, in: slot)
        } else if let declared = head.contentLength, declared > 0 {
            // Made now, with the length the head declared: the first piece would make it anyway.
            RequestSlot.store(RequestBody(expectedLength: declared, limit: limit), in: slot)
        }
        return .YES

    case .headersSeen where uploadDataSize.pointee > 0:
        let body = RequestBody(expectedLength: RequestReader.contentLength(of: connection), limit: limit)
        RequestSlot.store(body, in: slot)
        return receive(uploadData, uploadDataSize, into: body, limit: limit)

    case .body(let body) where uploadDataSize.pointee > 0:
        return receive(uploadData, uploadDataSize, into: body, limit: limit)

    case .headersSeen:
        return respond(connection, url, method, version, body: [], slot: slot, server)

    case .body(let body) where body.pending != nil:
        // Resumed: the pending response is complete.
        guard var response = body.pending?.completedResponse else { return .YES }
        response.headers.addMissing(body.pendingHeaders)
        return ResponseWriter.queue(
            response,
            on: connection,
            isHead: RequestReader.method(method) == .HEAD,
            isHTTP11: RequestReader.isHTTP11(version),
            server: server
        )

    case .body(let body):
        if body.isTooLarge {
            if let record = connectionRecord(of: connection) {
                server.connections.bodyReceived(record)
            }
            return refuse(.bodyTooLarge(limit: limit), connection, url, method, requestHeaders(of: connection, server), server)
        }
        return respond(connection, url, method, version, body: body.takeBytes(), slot: slot, server)
    }
}

/// Takes one body piece. A body over the limit is drained (a reply cannot be queued mid-body)
/// and refused at the end; one that goes on far past the limit drops the connection.
private func receive(
    _ data: UnsafePointer<CChar>?,
    _ size: UnsafeMutablePointer<Int>,
    into body: RequestBody,
    limit: Int
) -> MHD_Result {
    body.append(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size.pointee), limit: limit)
    size.pointee = 0
    if body.isTooLarge, body.received > drainLimit(limit) {
        return .NO
    }
    return .YES
}

/// How much of a refused body is read through (and dropped) so that the 413 can be answered
/// after it: eight times the limit, at least 8 MiB. Past that the connection is dropped.
private func drainLimit(_ limit: Int) -> Int {
    let (product, overflow) = max(limit, 1 << 20).multipliedReportingOverflow(by: 8)
    return overflow ? Int.max : product
}

private func respond(
    _ connection: OpaquePointer,
    _ url: UnsafePointer<CChar>,
    _ method: UnsafePointer<CChar>,
    _ version: UnsafePointer<CChar>?,
    body: [UInt8],
    slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
    _ server: ServerCore
) -> MHD_Result {
    let record = connectionRecord(of: connection)
    if let record {
        server.connections.bodyReceived(record)
    }
    let headers = requestHeaders(of: connection, record: record, server)
    guard server.enterResponder() else {
        return refuse(.shuttingDown, connection, url, method, headers, server)
    }
    defer { server.leaveResponder() }
    let query = RequestReader.query(of: connection)
    guard query.isUTF8, requestPathIsUTF8(url, of: connection) else {
        return refuse(.notUTF8, connection, url, method, headers, server)
    }
    let request = Request(
        method: RequestReader.method(method),
        path: requestPath(url, of: connection),
        query: query.values,
        queryItems: query.items,
        headers: headers,
        body: body,
        connectionMemo: server.usesConnectionMemos ? record?.memo : nil
    )
    var response = server.responder.respond(to: request)
    if case .pending(let pending) = response.body {
        guard let ready = pending.responseOrSuspend(connection, server: server) else {
            // Suspended: the slot keeps the pending response for the call after the resume.
            let holder: RequestBody
            if case .body(let body) = RequestSlot(slot.pointee) {
                holder = body
            } else {
                holder = RequestBody(expectedLength: nil, limit: 0)
                RequestSlot.store(holder, in: slot)
            }
            holder.pending = pending
            holder.pendingHeaders = response.headers
            return .YES
        }
        let outer = response.headers
        response = ready
        response.headers.addMissing(outer)
    }
    return ResponseWriter.queue(
        response,
        on: connection,
        isHead: request.method == .HEAD,
        isHTTP11: RequestReader.isHTTP11(version),
        server: server
    )
}

/// The header fields of the request being answered: those its head's reading kept on the
/// connection (``RequestHead``), else (a connection without a record) read again.
private func requestHeaders(of connection: OpaquePointer, record: ConnectionRecord? = nil, _ server: ServerCore) -> HTTPHeaders {
    if let kept = (record ?? connectionRecord(of: connection))?.takeHeaders() {
        return kept
    }
    return RequestHead.read(of: connection, isHTTP11: false, singleFields: server.singleFields).headers
}

private func refuse(
    _ failure: RequestFailure,
    _ connection: OpaquePointer,
    _ url: UnsafePointer<CChar>,
    _ method: UnsafePointer<CChar>,
    _ headers: HTTPHeaders,
    _ server: ServerCore
) -> MHD_Result {
    let method = RequestReader.method(method)
    var response = server.responder.respond(
        to: failure, method: method, path: requestPath(url, of: connection), headers: headers
    )
    if let seconds = failure.retryAfterSeconds, response.headers["Retry-After"] == nil {
        response.headers.add(name: "Retry-After", value: String(seconds))
    }
    if failure.closesConnection {
        response.headers.replaceOrAdd(name: "Connection", value: "close")
    }
    return ResponseWriter.queue(response, on: connection, isHead: method == .HEAD, server: server)
}

/// `MHD_RequestCompletedCallback`: the request is over (answered, aborted, timed out, or the
/// daemon stopped). Fires once for every request that reached the access handler.
func requestCompleted(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ reason: MHD_RequestTerminationCode
) {
    guard let cls else { return }
    let server = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    guard let slot, slot.pointee != nil else { return }
    if case .queryRefused = RequestSlot(slot.pointee) {
        // The access handler never ran (libmicrohttpd refused the head, or the client left):
        // nothing was started for this request.
        slot.pointee = nil
        return
    }
    RequestSlot.release(slot)
    if let connection, let record = connectionRecord(of: connection) {
        // Kept if the request ended before its answer (aborted, timed out).
        _ = record.takeHeaders()
        server.connections.requestFinished(record)
    }
    server.requestCompleted()
}

/// `MHD_AcceptPolicyCallback`: keeps every new connection, except while the server shuts down
/// or when even the overflow past the connection limit is full (then the client sees the
/// connection closed at once, instead of waiting in the listen backlog).
///
/// This is how the server stops accepting; see ``HTTPServer/shutdown(timeout:)`` for why not
/// `MHD_quiesce_daemon`.
func acceptPolicy(
    _ cls: UnsafeMutableRawPointer?,
    _ address: UnsafePointer<sockaddr>?,
    _ addressLength: socklen_t
) -> MHD_Result {
    guard let cls else { return .YES }
    let server = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    if server.isRefusingRequests || server.connections.count >= server.connectionHardLimit.load(ordering: .relaxed) {
        return .NO
    }
    return .YES
}

/// `MHD_NotifyConnectionCallback`: a connection opened or closed. Keeps a retained
/// ``ConnectionRecord`` in the connection's socket context in between.
func connectionNotified(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext else { return }
    let server = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        let record = server.connections.opened(socket: cmhd_connection_socket(connection))
        socketContext.pointee = Unmanaged.passRetained(record).toOpaque()
    case .CONNECTION_NOTIFY_CLOSED:
        guard let pointer = socketContext.pointee else { return }
        socketContext.pointee = nil
        server.connections.closed(Unmanaged<ConnectionRecord>.fromOpaque(pointer).takeRetainedValue())
    default:
        break
    }
}

/// The ``ConnectionRecord`` of `connection`, if it has one.
func connectionRecord(of connection: OpaquePointer) -> ConnectionRecord? {
    guard let pointer = cmhd_connection_socket_context(connection) else { return nil }
    return Unmanaged<ConnectionRecord>.fromOpaque(pointer).takeUnretainedValue()
}
