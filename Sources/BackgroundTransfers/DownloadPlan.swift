import BackgroundCore

/// What a download does with a response, decided from its status and header fields alone: the
/// pure part of ``DownloadAttempt``, kept apart from the HTTP client's types so that it can be
/// tested and fuzzed on its own (Fuzz/TransferResponses).
///
/// Every number it reads from the server is an ``HTTPDecimal`` (at most 18 digits), so no
/// arithmetic on them traps, whatever a server states.
enum DownloadPlan: Sendable, Equatable {
    /// Write the body from byte `from` of the file; `until`, when known, is where it must end.
    case write(from: Int64, until: Int64?)
    /// Forget what is held and start over (the attempt fails as transient).
    case restart(String)

    /// Where the body goes, from the status and the stated lengths and range; updates
    /// `transfer`'s validators and expected length as the response states them.
    ///
    /// - Parameters:
    ///   - status: the response's status code.
    ///   - headers: the response's header fields, in order (``TransferRun/checkedHeaders(_:)``).
    ///   - resuming: whether the request asked for a range from `transfer.bytesDone`.
    static func plan(
        status: Int,
        headers: [TransferHeader],
        resuming: Bool,
        transfer: inout TransferCheckpoint
    ) -> DownloadPlan {
        let length = field("Content-Length", in: headers).flatMap(HTTPDecimal.parse)
        let etag = field("ETag", in: headers)
        let modified = field("Last-Modified", in: headers)
        if status == 206 {
            guard resuming, let range = ContentRange(field("Content-Range", in: headers)) else {
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

    /// Whether a chunk of `count` bytes arriving at `offset` stays within `end` (the length or
    /// range the server announced); `offset <= end` and both non-negative, so no overflow.
    static func fits(_ count: Int64, at offset: Int64, end: Int64?) -> Bool {
        guard let end else { return true }
        return count <= end - offset
    }

    /// What a written body comes to.
    enum Ending: Sendable, Equatable {
        /// The range ended before the resource did and was large enough: ask for the rest now.
        case continued
        /// The range ended before the resource did with fewer than the policy's minimum bytes:
        /// a failed attempt (issue 25, finding 8).
        case shortPart(Int64)
        /// The body is complete: delivered with this status and these fields (a resumed
        /// download as the whole resource's `200`, ``CompleteResponse``).
        case finished(statusCode: Int, headers: [TransferHeader])
    }

    /// What follows a body written from `start` to `transfer.bytesDone` in answer to `status`.
    static func ending(
        status: Int,
        headers: [TransferHeader],
        start: Int64,
        transfer: TransferCheckpoint,
        minimumPartBytes: Int64
    ) -> Ending {
        if status == 206, let total = transfer.expectedLength, transfer.bytesDone < total {
            let part = transfer.bytesDone - start
            return part >= minimumPartBytes ? .continued : .shortPart(part)
        }
        guard status == 206 else { return .finished(statusCode: status, headers: headers) }
        return .finished(
            statusCode: 200,
            headers: CompleteResponse.headers(
                stored: transfer.representationHeaders,
                partial: headers,
                length: transfer.bytesDone
            )
        )
    }

    /// The value of the first field named `name` (ASCII letters compared without case, as
    /// `HTTPHeaders.first(name:)` compares them).
    static func field(_ name: String, in headers: [TransferHeader]) -> String? {
        headers.first { sameName($0.name, name) }?.value
    }

    private static func sameName(_ one: String, _ other: String) -> Bool {
        one.utf8.count == other.utf8.count
            && zip(one.utf8, other.utf8).allSatisfy { lowered($0) == lowered($1) }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
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
