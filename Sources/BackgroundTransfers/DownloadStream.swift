import AsyncHTTPClient
import BackgroundCore
import NIOCore
import NIOHTTP1
import Synchronization

/// One response of a download, read through AsyncHTTPClient's delegate API so that its body is
/// written into the partial file on the connection's event loop, chunk by chunk, as it arrives.
///
/// The async API's body hands every buffer to the consuming task and stops reading until that
/// task asks for the next (a high and low watermark of one buffer): two thread wake-ups per
/// buffer, about 8,800 per GiB, and the socket idle meanwhile (issue 28, item 3). Here a chunk
/// costs one `pwrite` into the page cache on the event loop, and the connection keeps reading;
/// `fsync` never runs on the event loop (``PartialFile/syncInBackground(covering:)``).
///
/// The attempt waits for the head (``head()``), decides from it, then either hands the body a
/// ``BodyWriter`` (``write(into:)``) and waits for the end, or cancels the request (a redirect,
/// a response it will not write). Parts that arrive meanwhile are held (at most 1 MiB) and
/// written first, even when the connection dropped after them.
final class DownloadStream: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    private let eventLoop: any EventLoop
    private let headPromise: EventLoopPromise<HTTPResponseHead>
    /// Where the body goes: parts that arrive before the attempt decided wait here (at most
    /// ``maximumPendingBytes``, then the connection waits), so that bytes a server sent before
    /// dropping the connection are still written and a retry resumes after them.
    private struct Body {
        var writer: BodyWriter?
        var discarding = false
        var pending: [ByteBuffer] = []
        var pendingBytes = 0
        /// The client waits on this while `pending` is full.
        var resume: EventLoopPromise<Void>?
    }
    private let body = Mutex(Body())
    private let task = Mutex<HTTPClient.Task<Void>?>(nil)
    /// The most body bytes held in memory while the attempt decides what to do with the head.
    static let maximumPendingBytes = 1 << 20

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        headPromise = eventLoop.makePromise()
    }

    /// Sends `request` (no body) and returns the stream of its response.
    static func start(
        _ request: HTTPClientRequest,
        client: HTTPClient,
        deadline: NIODeadline
    ) throws -> DownloadStream {
        let sent = try HTTPClient.Request(url: request.url, method: request.method, headers: request.headers)
        let eventLoop = client.eventLoopGroup.next()
        let stream = DownloadStream(eventLoop: eventLoop)
        // The delegate's loop is preferred for a new connection, so a download's connection and
        // its writes share one thread.
        let task = client.execute(
            request: sent,
            delegate: stream,
            eventLoop: .delegate(on: eventLoop),
            deadline: deadline
        )
        stream.task.withLock { $0 = task }
        // Every promise ends with the request, whatever ended it (a later completion is ignored).
        task.futureResult.whenComplete { _ in
            stream.headPromise.fail(HTTPClientError.remoteConnectionClosed)
            stream.body.withLock { body -> EventLoopPromise<Void>? in
                defer { body.resume = nil }
                return body.resume
            }?.fail(HTTPClientError.cancelled)
        }
        return stream
    }

    /// The response's head, as the async API's response without a body.
    func head() async throws -> HTTPClientResponse {
        let head = try await withTaskCancellationHandler {
            try await headPromise.futureResult.get()
        } onCancel: {
            self.cancel()
        }
        return HTTPClientResponse(version: head.version, status: head.status, headers: head.headers)
    }

    /// Writes the body with `writer` (first the parts that arrived while the attempt decided)
    /// and returns when it ended; throws what ended it otherwise (a ``TransferFailure`` the
    /// writer threw, or the client's error).
    func write(into writer: BodyWriter) async throws {
        try await withTaskCancellationHandler {
            // On the event loop, where the parts arrive: the held ones are written before any new one.
            try await eventLoop.submit {
                let (pending, resume) = self.body.withLock { body in
                    body.writer = writer
                    defer { (body.pending, body.pendingBytes, body.resume) = ([], 0, nil) }
                    return (body.pending, body.resume)
                }
                do {
                    for part in pending { try writer.receive(part) }
                } catch {
                    resume?.fail(error)
                    throw error
                }
                resume?.succeed(())
            }.get()
            try await task.withLock { $0 }?.futureResult.get()
        } onCancel: {
            self.cancel()
        }
    }

    /// Stops the request (its connection is closed); a body not yet handed a writer is not read.
    func cancel() {
        body.withLock { body -> EventLoopPromise<Void>? in
            body.discarding = true
            (body.pending, body.pendingBytes) = ([], 0)
            defer { body.resume = nil }
            return body.resume
        }?.fail(HTTPClientError.cancelled)
        task.withLock { $0 }?.cancel()
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        headPromise.succeed(head)
        return eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        enum Next {
            case write(BodyWriter)
            case discard
            case held
            case wait(EventLoopFuture<Void>)
        }
        let next = body.withLock { body -> Next in
            if let writer = body.writer { return .write(writer) }
            if body.discarding { return .discard }
            body.pending.append(buffer)
            body.pendingBytes += buffer.readableBytes
            guard body.pendingBytes >= Self.maximumPendingBytes else { return .held }
            let resume = eventLoop.makePromise(of: Void.self)
            body.resume = resume
            return .wait(resume.futureResult)
        }
        switch next {
        case .write(let writer):
            do {
                try writer.receive(buffer)
            } catch {
                return eventLoop.makeFailedFuture(error)
            }
            return eventLoop.makeSucceededVoidFuture()
        case .discard:
            return eventLoop.makeFailedFuture(HTTPClientError.cancelled)
        case .held:
            return eventLoop.makeSucceededVoidFuture()
        case .wait(let resumed):
            return resumed
        }
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        headPromise.fail(error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}
}

/// Writes one response's body into a download's partial file, on the connection's event loop:
/// checks each chunk against the announced end, reports progress, and writes a checkpoint
/// every ``TransferPolicy/checkpointBytes`` or ``TransferPolicy/checkpointInterval`` (no
/// `fsync`: the page cache outlives a killed process) with a sync started on another thread
/// every ``TransferPolicy/syncBytes`` or ``TransferPolicy/syncInterval`` (what a power loss
/// costs).
///
/// `@unchecked Sendable`: its state is used on the event loop alone while the body arrives,
/// and read by the attempt only after the request's future completed (which orders the two).
final class BodyWriter: @unchecked Sendable {
    let file: PartialFile
    let start: Int64
    let end: Int64?
    private let run: TransferRun
    private let deadline: ContinuousClock.Instant
    /// The checkpoint as the body moves it.
    private(set) var transfer: TransferCheckpoint
    private(set) var offset: Int64
    private var checkpointed: Int64
    private var checkpointTime: ContinuousClock.Instant
    private var syncedFrom: Int64
    private var syncTime: ContinuousClock.Instant

    init(
        file: PartialFile,
        from start: Int64,
        until end: Int64?,
        transfer: TransferCheckpoint,
        run: TransferRun,
        deadline: ContinuousClock.Instant
    ) {
        self.file = file
        self.start = start
        self.end = end
        self.transfer = transfer
        self.run = run
        self.deadline = deadline
        offset = start
        checkpointed = start
        syncedFrom = start
        let now = ContinuousClock.now
        (checkpointTime, syncTime) = (now, now)
        self.transfer.syncedBytes = file.syncedBytes
        run.reporter.checkpoint(self.transfer)
    }

    /// Writes one chunk at the current offset.
    func receive(_ buffer: ByteBuffer) throws(TransferFailure) {
        let count = Int64(buffer.readableBytes)
        guard DownloadPlan.fits(count, at: offset, end: end) else {
            throw TransferFailure.transient(
                TransferFailure.badServerResponseCode,
                "the server sent more than the \((end ?? offset) - start) bytes it announced"
            )
        }
        try file.write(buffer, at: offset)
        offset += count
        transfer.bytesDone = offset
        run.reporter.event(
            .wroteData(
                task: transfer.task,
                bytesWritten: count,
                totalWritten: offset,
                totalExpected: transfer.expectedLength
            )
        )
        let now = ContinuousClock.now
        if offset - checkpointed >= run.policy.checkpointBytes || now - checkpointTime >= run.policy.checkpointInterval
        {
            // No fsync here: the written bytes are in the page cache, which outlives a killed
            // process; the row says how many of them are synced (what a power loss keeps).
            if offset - syncedFrom >= run.policy.syncBytes || now - syncTime >= run.policy.syncInterval,
                file.syncInBackground(covering: offset)
            {
                (syncedFrom, syncTime) = (offset, now)
            }
            transfer.syncedBytes = file.syncedBytes
            run.reporter.checkpoint(transfer)
            (checkpointed, checkpointTime) = (offset, now)
        }
        if now >= deadline {
            throw TransferFailure.permanent(TransferFailure.timedOutCode, "the resource timed out")
        }
    }
}
