import NIOCore
import NIOHTTP1
import Synchronization

/// Answers one connection's requests from the server's routes.
final class LoopbackHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let server: LoopbackServer
    private var head: HTTPRequestHead?
    private var received: Int64 = 0
    private var kept: [UInt8] = []
    private var answer = 0

    init(server: LoopbackServer) {
        self.server = server
    }

    var path: String { head.map { String($0.uri.prefix { $0 != "?" }) } ?? "/" }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
            received = 0
            kept = []
        case .body(let buffer):
            received += Int64(buffer.readableBytes)
            if kept.count < 1 << 20 { kept.append(contentsOf: buffer.readableBytesView.prefix((1 << 20) - kept.count)) }
        case .end:
            respond(context: context)
        }
    }

    private func respond(context: ChannelHandlerContext) {
        guard let head else { return }
        let path = path
        let (route, failing) = server.state.withLock { state -> (LoopbackRoute?, Bool) in
            var counters = state.counters[path] ?? LoopbackCounters()
            counters.requests += 1
            counters.bytesReceived += received
            if head.method == .POST || head.method == .PUT { counters.lastUpload = kept }
            counters.lastHeaders = Dictionary(
                head.headers.map { ($0.name.lowercased(), $0.value) },
                uniquingKeysWith: { first, _ in first }
            )
            if let range = head.headers.first(name: "Range"), let start = Self.rangeStart(range) {
                counters.rangeStarts.append(start)
            }
            answer = counters.bytesPerAnswer.count
            counters.bytesPerAnswer.append(0)
            state.counters[path] = counters
            guard let route = state.routes[path] else { return (nil, false) }
            let served = state.served[path, default: 0]
            state.served[path] = served + 1
            return (route, served < route.failuresBeforeSuccess)
        }
        guard let route else { return simple(context, status: .notFound, body: "not found") }
        if failing { return simple(context, status: .serviceUnavailable, body: "busy") }
        if let target = route.redirectTo {
            let absolute = target.hasPrefix("http://") || target.hasPrefix("https://")
            var headers = HTTPHeaders([("Location", absolute ? target : server.url(target)), ("Content-Length", "0")])
            headers.add(name: "Connection", value: "keep-alive")
            let status = HTTPResponseStatus(statusCode: route.redirectStatus)
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                promise: nil
            )
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        if head.method == .POST || head.method == .PUT, !route.answersUploadsWithBody {
            return simple(context, status: HTTPResponseStatus(statusCode: route.status), body: "received \(received)")
        }
        serveBody(context: context, head: head, route: route)
    }

    private func serveBody(context: ChannelHandlerContext, head: HTTPRequestHead, route: LoopbackRoute) {
        var start: Int64 = 0
        var last = route.size - 1
        var status = HTTPResponseStatus(statusCode: route.status)
        var headers = HTTPHeaders()
        if route.sendsEntityTag { headers.add(name: "ETag", value: route.entityTag) }
        if route.sendsLastModified { headers.add(name: "Last-Modified", value: route.lastModified) }
        if route.supportsRanges { headers.add(name: "Accept-Ranges", value: "bytes") }
        for (name, value) in route.extraHeaders { headers.add(name: name, value: value) }
        if route.supportsRanges, route.status == 200, let range = head.headers.first(name: "Range"),
            let asked = Self.rangeStart(range)
        {
            let ifRange = head.headers.first(name: "If-Range")
            let matches = ifRange == nil || ifRange == route.entityTag || ifRange == route.lastModified
            if matches {
                guard asked < route.size else {
                    headers.add(name: "Content-Range", value: "bytes */\(route.size)")
                    headers.add(name: "Content-Length", value: "0")
                    context.write(
                        wrapOutboundOut(
                            .head(HTTPResponseHead(version: .http1_1, status: .rangeNotSatisfiable, headers: headers))
                        ),
                        promise: nil
                    )
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                    return
                }
                start = asked
                last = route.maximumPartBytes.map { min(last, asked + $0 - 1) } ?? last
                status = .partialContent
                var stated = asked
                switch route.lie {
                case .rangeStartsLater(let by): stated = asked + by
                case .rangeFromZero: stated = 0
                default: break
                }
                if case .statedRange(let text) = route.lie {
                    headers.add(name: "Content-Range", value: text)
                } else {
                    headers.add(name: "Content-Range", value: "bytes \(stated)-\(last)/\(route.size)")
                }
            }
        }
        if status == .ok { for (name, value) in route.wholeAnswerHeaders { headers.add(name: name, value: value) } }
        var length = last + 1 - start
        if case .lengthLongerThanBody(let by) = route.lie { length += by }
        if case .statedRange = route.lie, status == .partialContent {
            headers.add(name: "Transfer-Encoding", value: "chunked")
        } else {
            headers.add(name: "Content-Length", value: "\(length)")
        }
        let drop: Int64? = server.state.withLock { state in
            guard let after = route.dropAfterBytes, route.drops > 0 else { return nil }
            state.routes[path]?.drops -= 1
            if route.changesWhenDropped { state.routes[path]?.version += 1 }
            return after
        }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil
        )
        let end = min(last + 1, drop.map { start + $0 } ?? route.size)
        let cut = drop != nil || route.lie.map { if case .lengthLongerThanBody = $0 { true } else { false } } == true
        var writer = BodyWriter(handler: self, context: context, route: route, end: end, closesAfter: cut)
        writer.stallAt = route.stallAtOffset
        writer.write(from: start)
    }

    func count(_ bytes: Int64) {
        let path = path
        let answer = answer
        server.state.withLock { state in
            state.counters[path, default: LoopbackCounters()].bytesSent += bytes
            state.counters[path]?.bytesPerAnswer[answer] += bytes
        }
    }

    func finish(context: ChannelHandlerContext, closing: Bool) {
        if closing {
            context.flush()
            context.close(promise: nil)
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    private func simple(_ context: ChannelHandlerContext, status: HTTPResponseStatus, body: String) {
        let headers = HTTPHeaders([("Content-Length", "\(body.utf8.count)"), ("Content-Type", "text/plain")])
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil
        )
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        count(Int64(body.utf8.count))
    }

    static func rangeStart(_ value: String) -> Int64? {
        guard value.hasPrefix("bytes="), let dash = value.firstIndex(of: "-") else { return nil }
        return Int64(value[value.index(value.startIndex, offsetBy: 6)..<dash])
    }
}

/// Writes a body in chunks, each after the previous one was written (or after a pause).
/// `@unchecked Sendable`: it is created and continued only on the channel's event loop.
struct BodyWriter: @unchecked Sendable {
    let handler: LoopbackHandler
    let context: ChannelHandlerContext
    let route: LoopbackRoute
    let end: Int64
    let closesAfter: Bool
    /// Where to stop writing, the connection left open.
    var stallAt: Int64?

    func write(from offset: Int64) {
        if let stallAt, offset >= stallAt { return }
        guard offset < end else { return handler.finish(context: context, closing: closesAfter) }
        let chunk = Int64(route.slowChunk?.bytes ?? 256 << 10)
        let count = min(chunk, end - offset, (stallAt ?? end) - offset)
        var buffer = context.channel.allocator.buffer(capacity: Int(count))
        var position = offset
        while position < offset + count {
            let phase = Int(position % LoopbackRoute.period)
            let run = min(Int(offset + count - position), Int(LoopbackRoute.period) - phase)
            Pattern.table(version: route.version).withUnsafeBufferPointer { table in
                _ = buffer.writeBytes(
                    UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(table)[phase..<(phase + run)])
                )
            }
            position += Int64(run)
        }
        handler.count(count)
        let next = self
        let written = context.writeAndFlush(handler.wrapOutboundOut(.body(.byteBuffer(buffer))))
        if let pause = route.slowChunk?.pauseMilliseconds {
            written.whenSuccess {
                next.context.eventLoop.scheduleTask(in: .milliseconds(pause)) { next.write(from: offset + count) }
            }
        } else {
            written.whenSuccess { next.write(from: offset + count) }
        }
    }
}

/// One period of each version's pattern, computed once.
enum Pattern {
    private static let tables = Mutex<[Int: [UInt8]]>([:])

    static func table(version: Int) -> [UInt8] {
        tables.withLock { tables in
            if let table = tables[version] { return table }
            let table = (0..<LoopbackRoute.period).map { LoopbackRoute.byte(at: $0, version: version) }
            tables[version] = table
            return table
        }
    }
}
