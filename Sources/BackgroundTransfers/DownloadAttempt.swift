import AsyncHTTPClient
import BackgroundCore
import NIOCore
import NIOHTTP1

/// One request of a download: resumes with `Range` and `If-Range` when the checkpoint has a
/// validator, appends on a matching `206`, starts over on a `200`, and checks every length and
/// range the server states against what it sends.
struct DownloadAttempt {
    let run: TransferRun
    let deadline: ContinuousClock.Instant
    let isLast: Bool

    /// Performs the attempt, updating `transfer`'s progress (and its checkpoint) as bytes land.
    func perform(_ transfer: inout TransferCheckpoint) async -> TransferRun.AttemptResult {
        if transfer.bytesDone > 0 {
            // After a reboot only the synced bytes are sure; a file cut short holds no more.
            let size = PartialFile.size(container: run.container, relative: partialPath(transfer))
            transfer.bytesDone = BootID.heldBytes(of: transfer, fileSize: size)
        }
        let resuming = transfer.bytesDone > 0 && (transfer.entityTag != nil || transfer.lastModified != nil)
        if !resuming { transfer.bytesDone = 0 }
        transfer.syncedBytes = min(transfer.syncedBytes ?? transfer.bytesDone, transfer.bytesDone)
        transfer.bootID = BootID.current
        var request = run.request(for: transfer)
        if resuming {
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(transfer.bytesDone)-")
            request.headers.replaceOrAdd(name: "If-Range", value: ifRange(transfer))
        }
        // Each hop's response is a stream read on its connection's event loop; every one not
        // written (a redirect, a refused response, an error) is cancelled on the way out.
        let hops = Hops()
        defer { hops.cancel() }
        do {
            let answer = try await run.send(request, for: transfer) { hop in
                try await hops.start(hop, client: run.client, deadline: nioDeadline())
            }
            let response = answer.response
            let headers: [TransferHeader]
            switch run.checkedHeaders(response) {
            case .success(let fields): headers = fields
            case .failure(let failure): return .failed(failure)
            }
            let status = Int(response.status.code)
            if (500...599).contains(status) && !isLast {
                return .failed(.transient(TransferFailure.badServerResponseCode, "the server answered \(status)"))
            }
            let start: Int64
            let end: Int64?
            switch DownloadPlan.plan(status: status, headers: headers, resuming: resuming, transfer: &transfer) {
            case .write(let from, let until):
                (start, end) = (from, until)
            case .restart(let reason):
                transfer.bytesDone = 0
                transfer.syncedBytes = 0
                transfer.entityTag = nil
                transfer.lastModified = nil
                transfer.representationHeaders = nil
                return .failed(.transient(TransferFailure.connectionLostCode, reason))
            }
            let file = try PartialFile(
                container: run.container,
                relative: partialPath(transfer),
                length: start,
                synced: start == 0 ? 0 : transfer.syncedBytes ?? start
            )
            guard let stream = hops.current else {
                throw TransferFailure.transient(TransferFailure.connectionLostCode, "the response ended")
            }
            let writer = BodyWriter(
                file: file,
                from: start,
                until: end,
                transfer: transfer,
                run: run,
                deadline: deadline
            )
            do {
                try await stream.write(into: writer)
            } catch {
                transfer = writer.transfer
                throw error
            }
            transfer = writer.transfer
            if let end, writer.offset < end {
                run.reporter.checkpoint(transfer)
                throw TransferFailure.transient(
                    TransferFailure.connectionLostCode,
                    "the connection closed after \(writer.offset - start) of \(end - start) bytes"
                )
            }
            // Synced before the completion is stored and delivered: a delivered body survives a
            // power loss too.
            try file.flush(covering: transfer.bytesDone)
            transfer.syncedBytes = transfer.bytesDone
            run.reporter.checkpoint(transfer)
            let ending = DownloadPlan.ending(
                status: status,
                headers: headers,
                start: start,
                transfer: transfer,
                minimumPartBytes: run.policy.minimumPartBytes
            )
            switch ending {
            case .continued:
                // The range ended before the resource did (a server may answer part of what was
                // asked): the next request asks for the rest at once.
                return .continued
            case .shortPart(let part):
                return .failed(
                    .transient(
                        TransferFailure.connectionLostCode,
                        "the server answered \(part) bytes of the range asked for"
                    )
                )
            case .finished(let statusCode, let fields):
                if let expected = transfer.expectedSHA256, (200...299).contains(status) {
                    try verify(expected, transfer)
                }
                // A download the system resumed is delivered as the whole resource's 200, never
                // as the 206 of its last request (``CompleteResponse``).
                return .finished(
                    TransferOutcome(
                        statusCode: statusCode,
                        responseHeaders: fields,
                        responseURL: answer.url,
                        bodyFile: transfer.partialFile
                    )
                )
            }
        } catch {
            return .failed(TransferFailure(classifying: error))
        }
    }

    private func verify(_ expected: String, _ transfer: TransferCheckpoint) throws(TransferFailure) {
        let actual = FileDigest.sha256(of: partialPath(transfer), in: run.container)
        guard actual == expected.lowercased() else {
            throw .permanent(
                TransferFailure.badServerResponseCode,
                "the body's SHA-256 is \(actual ?? "unreadable"), expected \(expected.lowercased())"
            )
        }
    }

    private func partialPath(_ transfer: TransferCheckpoint) -> String {
        transfer.partialFile ?? "\(TransferContainer.transfersDirectory)/\(transfer.task).partial"
    }

    private func ifRange(_ transfer: TransferCheckpoint) -> String {
        if let tag = transfer.entityTag, !tag.hasPrefix("W/") { return tag }
        return transfer.lastModified ?? transfer.entityTag ?? ""
    }

    private func nioDeadline() -> NIODeadline {
        let remaining = deadline - ContinuousClock.now
        let (seconds, attoseconds) = remaining.components
        return .now() + .seconds(max(0, seconds)) + .nanoseconds(attoseconds / 1_000_000_000)
    }

    /// The streams of one attempt's hops (a redirect is a new request): the latest, and every
    /// earlier one cancelled when the next starts.
    private final class Hops {
        private(set) var current: DownloadStream?

        func start(
            _ request: HTTPClientRequest,
            client: HTTPClient,
            deadline: NIODeadline
        ) async throws
            -> HTTPClientResponse
        {
            current?.cancel()
            let stream = try DownloadStream.start(request, client: client, deadline: deadline)
            current = stream
            return try await stream.head()
        }

        /// Cancels the latest stream (nothing, if its body was written to its end).
        func cancel() { current?.cancel() }
    }
}
