import AsyncHTTPClient
import BackgroundCore
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

/// One request of an upload: the body streams from the file in the app's container, in
/// bounded chunks, and the response's body is kept up to ``TransferOutcome/maximumResponseBody``.
struct UploadAttempt {
    let run: TransferRun
    let deadline: ContinuousClock.Instant
    let isLast: Bool

    /// Performs the attempt; an upload that fails starts again from its first byte.
    func perform(_ transfer: inout TransferCheckpoint) async -> TransferRun.AttemptResult {
        guard let bodyFile = transfer.bodyFile else {
            return .failed(.permanent(TransferFailure.fileDoesNotExistCode, "the upload has no file"))
        }
        let descriptor: Int32
        do {
            descriptor = try run.container.openForReading(bodyFile)
        } catch {
            return .failed(.permanent(TransferFailure.fileDoesNotExistCode, "cannot read the upload's file: \(error)"))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            return .failed(.permanent(TransferFailure.fileDoesNotExistCode, "cannot read the upload's file"))
        }
        let size = Int64(status.st_size)
        var request = run.request(for: transfer)
        let task = transfer.task
        let reporter = run.reporter
        let chunks = FileChunks(descriptor: descriptor, size: size, chunkBytes: run.policy.uploadChunkBytes) {
            sent,
            total in
            reporter.event(.sentData(task: task, bytesSent: sent, totalSent: total, totalExpected: size))
        }
        request.body = .stream(chunks, length: .known(size))
        do {
            let remaining = deadline - ContinuousClock.now
            let answer = try await run.send(
                request,
                for: transfer,
                deadline: .now() + .nanoseconds(max(0, remaining.components.seconds) * 1_000_000_000)
            )
            let response = answer.response
            let headers: [TransferHeader]
            switch run.checkedHeaders(response) {
            case .success(let fields): headers = fields
            case .failure(let failure): return .failed(failure)
            }
            let code = Int(response.status.code)
            if (500...599).contains(code) && !isLast {
                return .failed(.transient(TransferFailure.badServerResponseCode, "the server answered \(code)"))
            }
            var kept: [UInt8] = []
            for try await buffer in response.body where kept.count < TransferOutcome.maximumResponseBody {
                let room = TransferOutcome.maximumResponseBody - kept.count
                kept.append(contentsOf: buffer.readableBytesView.prefix(room))
            }
            transfer.bytesDone = size
            return .finished(
                TransferOutcome(
                    statusCode: code,
                    responseHeaders: headers,
                    responseURL: answer.url,
                    responseBody: kept
                )
            )
        } catch {
            return .failed(TransferFailure(classifying: error))
        }
    }
}

/// A file's bytes as an asynchronous sequence of buffers, read on demand (the client asks for
/// the next chunk only when it has sent the last), so an upload's memory stays one chunk.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let descriptor: Int32
    let size: Int64
    let chunkBytes: Int
    let sent: @Sendable (Int64, Int64) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: FileChunks
        var offset: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            guard offset < chunks.size else { return nil }
            let count = Int(Swift.min(Int64(chunks.chunkBytes), chunks.size - offset))
            var buffer = ByteBufferAllocator().buffer(capacity: count)
            let position = offset
            let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                Swift.max(0, pread(chunks.descriptor, raw.baseAddress, count, off_t(position)))
            }
            guard read > 0 else {
                throw TransferFailure.permanent(TransferFailure.fileDoesNotExistCode, "the upload's file got shorter")
            }
            offset += Int64(read)
            chunks.sent(Int64(read), offset)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
}
