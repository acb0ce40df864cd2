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
            switch try plan(
                status: status,
                response: response,
                headers: headers,
                resuming: resuming,
                transfer: &transfer
            )
            {
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
            if status == 206, let total = transfer.expectedLength, transfer.bytesDone < total {
                // The range ended before the resource did (a server may answer part of what was
                // asked): the next request asks for the rest, at once unless the part was tiny.
                guard transfer.bytesDone - start >= run.policy.minimumPartBytes else {
                    return .failed(
                        .transient(
                            TransferFailure.connectionLostCode,
                            "the server answered \(transfer.bytesDone - start) bytes of the range asked for"
                        )
                    )
                }
                return .continued
            }
            if let expected = transfer.expectedSHA256, (200...299).contains(status) {
                try verify(expected, transfer)
            }
            // A download the system resumed is delivered as the whole resource's 200, never as
            // the 206 of its last request (``CompleteResponse``).
            let resumed = status == 206
            return .finished(
                TransferOutcome(
                    statusCode: resumed ? 200 : status,
                    responseHeaders: resumed
                        ? CompleteResponse.headers(
                            stored: transfer.representationHeaders,
                            partial: headers,
                            length: transfer.bytesDone
                        ) : headers,
                    responseURL: answer.url,
                    bodyFile: transfer.partialFile
                )
            )
        } catch {
            return .failed(TransferFailure(classifying: error))
        }
    }

    private enum Plan {
        case write(from: Int64, until: Int64?)
        case restart(String)
    }

    /// Where the body goes, from the status and the stated lengths and range.
    private func plan(
        status: Int,
        response: HTTPClientResponse,
        headers: [TransferHeader],
        resuming: Bool,
        transfer: inout TransferCheckpoint
    ) throws(TransferFailure) -> Plan {
        let length = response.headers.first(name: "Content-Length").flatMap(HTTPDecimal.parse)
        let etag = response.headers.first(name: "ETag")
        let modified = response.headers.first(name: "Last-Modified")
        if status == 206 {
            guard resuming, let range = ContentRange(response.headers.first(name: "Content-Range")) else {
                return .restart("a 206 answered a request without a range, or its Content-Range is malformed")
            }
            guard range.first == transfer.bytesDone,
                length.map({ $0 == range.last - range.first + 1 }) ?? true,
                transfer.expectedLength.map({ range.total == nil || range.total == $0 }) ?? true,
                etag.map({ $0 == transfer.entityTag || transfer.entityTag == nil }) ?? true
            else {
                return .restart("the server's range \(range) does not continue the \(transfer.bytesDone) bytes held")
            }
            if transfer.expectedLength == nil { transfer.expectedLength = range.total }
            return .write(from: transfer.bytesDone, until: range.last + 1)
        }
        if status == 416 && resuming {
            return .restart("the server cannot serve the range from byte \(transfer.bytesDone)")
        }
        // A 200 (the resource changed, or the server ignored the range), or an HTTP error whose
        // body is delivered as the download's file, as Apple does: start over from byte 0.
        transfer.bytesDone = 0
        transfer.expectedLength = length
        let success = (200...299).contains(status)
        transfer.entityTag = success ? etag.flatMap { $0.hasPrefix("W/") ? nil : $0 } : nil
        transfer.lastModified = success ? modified : nil
        transfer.representationHeaders = success ? headers : nil
        return .write(from: 0, until: length)
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
            if let end, count > end - offset {  // both non-negative: no overflow
                throw TransferFailure.transient(
                    TransferFailure.badServerResponseCode,
                    "the server sent more than the \(end - start) bytes it announced"
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

/// `Content-Range: bytes first-last/total` (total may be `*`).
///
/// Every number is an ``HTTPDecimal`` (at most 18 digits), so `last + 1` and
/// `last - first + 1` never overflow, whatever a server states.
struct ContentRange: Sendable, Hashable, CustomStringConvertible {
    var first: Int64
    var last: Int64
    var total: Int64?

    init?(_ value: String?) {
        guard let value, value.hasPrefix("bytes "), value.utf8.count < 100 else { return nil }
        let parts = value.dropFirst(6).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = HTTPDecimal.parse(bounds[0]), let last = HTTPDecimal.parse(bounds[1]),
            last >= first
        else { return nil }
        let total = parts[1] == "*" ? nil : HTTPDecimal.parse(parts[1])
        guard parts[1] == "*" || total.map({ $0 > last }) == true else { return nil }
        (self.first, self.last, self.total) = (first, last, total)
    }

    var description: String { "bytes \(first)-\(last)/\(total.map(String.init) ?? "*")" }
}
