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
        let resuming = transfer.bytesDone > 0 && (transfer.entityTag != nil || transfer.lastModified != nil)
        if !resuming { transfer.bytesDone = 0 }
        var request = run.request(for: transfer)
        if resuming {
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(transfer.bytesDone)-")
            request.headers.replaceOrAdd(name: "If-Range", value: ifRange(transfer))
        }
        do {
            let answer = try await run.send(request, for: transfer, deadline: nioDeadline())
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
                transfer.entityTag = nil
                transfer.lastModified = nil
                transfer.representationHeaders = nil
                return .failed(.transient(TransferFailure.connectionLostCode, reason))
            }
            let file = try PartialFile(container: run.container, relative: partialPath(transfer), length: start)
            try await receive(response.body, into: file, from: start, until: end, transfer: &transfer)
            try file.flush()
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

    private func receive(
        _ body: HTTPClientResponse.Body,
        into file: PartialFile,
        from start: Int64,
        until end: Int64?,
        transfer: inout TransferCheckpoint
    ) async throws {
        var offset = start
        var checkpointed = start
        var checkpointTime = ContinuousClock.now
        run.reporter.checkpoint(transfer)
        for try await buffer in body {
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
            if offset - checkpointed >= run.policy.checkpointBytes
                || now - checkpointTime >= run.policy.checkpointInterval
            {
                try file.flush()
                run.reporter.checkpoint(transfer)
                (checkpointed, checkpointTime) = (offset, now)
            }
            if now >= deadline {
                throw TransferFailure.permanent(TransferFailure.timedOutCode, "the resource timed out")
            }
        }
        if let end, offset < end {
            try file.flush()
            run.reporter.checkpoint(transfer)
            throw TransferFailure.transient(
                TransferFailure.connectionLostCode,
                "the connection closed after \(offset - start) of \(end - start) bytes"
            )
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
}
