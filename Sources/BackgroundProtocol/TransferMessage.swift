public import BackgroundCore

/// What an app's background `URLSession`s ask the daemon, which runs their transfers out of the
/// app's process (protocol version 3; docs/daemon-protocol.md, "Background transfers").
///
/// Sent as ``AppMessage/transfer(_:)``. Only ``attach(_:)`` is a round trip (answered with
/// ``TransferNotice/attached(session:transfers:nextTask:complete:)``); everything else is one
/// way, and what it causes comes back as ``TransferNotice`` pushes. Every call is about the
/// connection's own app: the daemon checks it (``TransferCall/problem(from:)``) and closes a
/// connection that breaks a bound.
public enum TransferCall: Sendable, Hashable, Codable {
    /// The app created a background session with this identifier (in this process): from now on
    /// its events are pushed to this process. Answered with the session's transfers (an earlier
    /// process's among them) and the first task identifier free.
    case attach(TransferSessionOptions)
    /// `resume()` of a new task: the daemon checks it and runs it when its conditions hold. An
    /// upload names its file (which must be inside the app's container); a download from resume
    /// data carries it (validated by the daemon's engine).
    case submit(TransferCheckpoint, uploadPath: String?, resumeData: WireBytes?)
    /// `cancel()`, or `cancel(byProducingResumeData:)` with `wantsResumeData`: the resume data
    /// comes as ``TransferNotice/resumeData(session:task:_:)``, then the completion with -999.
    case cancel(session: String, task: Int, wantsResumeData: Bool)
    /// The app's delegate received a completed transfer's events (`didCompleteWithError` returned):
    /// the daemon forgets the transfer and removes its temporary file.
    case delivered(session: String, task: Int)
    /// `invalidateAndCancel()` (`cancelling`) or `finishTasksAndInvalidate()`.
    case detach(session: String, cancelling: Bool)
    /// The app called the completion handler `handleEventsForBackgroundURLSession` gave it: it
    /// has handled the session's events and may be suspended again.
    case eventsHandled(session: String)
}

/// What the daemon tells an app's background sessions, sent as ``SystemMessage/transfer(_:)``.
public enum TransferNotice: Sendable, Hashable, Codable {
    /// The answer to ``TransferCall/attach(_:)``, in one or more parts (each at most
    /// ``TransferMessageLimits/maximumAttachedBytes`` of transfers): `complete` marks the last.
    /// Transfers come without their request's header fields and outcome (the completion event
    /// carries the outcome).
    case attached(session: String, transfers: [TransferCheckpoint], nextTask: Int, complete: Bool)
    /// Body bytes of a download reached the file (`didWriteData`).
    case wroteData(session: String, task: Int, bytesWritten: Int64, totalWritten: Int64, totalExpected: Int64?)
    /// Body bytes of an upload were sent (`didSendBodyData`).
    case sentData(session: String, task: Int, bytesSent: Int64, totalSent: Int64, totalExpected: Int64?)
    /// The transfer ended (``TransferCheckpoint/outcome``): a download's file is at `location`
    /// until the app answers ``TransferCall/delivered(session:task:)``; `resumeData` for a
    /// download that can be resumed; an upload's response body is `responseBody` (its last part,
    /// after the ``responseBodyPart(session:task:_:)`` parts when it is longer than
    /// ``TransferMessageLimits/maximumPushedResponseBody``), not in the checkpoint's outcome.
    case completed(
        session: String,
        TransferCheckpoint,
        location: String?,
        resumeData: WireBytes?,
        responseBody: WireBytes
    )
    /// The resume data ``TransferCall/cancel(session:task:wantsResumeData:)`` asked for (nil: none).
    case resumeData(session: String, task: Int, WireBytes?)
    /// The daemon launched or resumed the app for this session's events: call
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)`.
    case handleEvents(session: String)
    /// A part of an upload's response body (at most ``TransferMessageLimits/maximumPushedResponseBody``
    /// bytes), sent in order right before its ``completed(session:_:location:resumeData:responseBody:)``,
    /// whose `responseBody` is the last part: the app joins them, so a body is never cut at a
    /// frame's size (the engine keeps up to ``TransferOutcome/maximumResponseBody``).
    case responseBodyPart(session: String, task: Int, WireBytes)
}

/// The bounds of the transfer messages, checked by the daemon before anything runs.
public enum TransferMessageLimits {
    /// A session identifier's longest UTF-8 form.
    public static let maximumSessionBytes = 256
    /// A URL's longest UTF-8 form (as the engine's own check).
    public static let maximumURLBytes = 8192
    /// The most header fields of a request.
    public static let maximumHeaderFields = 100
    /// The most bytes of a request's header fields, names and values together.
    public static let maximumHeaderBytes = 64 * 1024
    /// The longest upload path, and the longest `taskDescription`.
    public static let maximumPathBytes = 4096
    /// The largest resume data (the format's own bound).
    public static let maximumResumeDataBytes = 64 * 1024
    /// The most bytes of transfers in one ``TransferNotice/attached(session:transfers:nextTask:complete:)`` part.
    public static let maximumAttachedBytes = 256 * 1024
    /// The most bytes of an upload's response body in one message (its completion, or one
    /// ``TransferNotice/responseBodyPart(session:task:_:)`` before it).
    public static let maximumPushedResponseBody = 512 * 1024
    /// The largest task identifier.
    public static let maximumTask = Int(Int32.max)
}

extension TransferCall {
    /// What is wrong with this call from `app`'s connection, in one line, or nil if nothing is:
    /// a session identifier that is empty, too long or has control characters; a task identifier
    /// out of range; options out of range; an order for another app, naming the engine's own
    /// fields (files, bytes, an outcome), or over a bound.
    public func problem(from app: AppID) -> String? {
        switch self {
        case .attach(let options):
            if options.app != app { return "a session of \(options.app)" }
            if let why = Self.sessionProblem(options.session) { return why }
            guard (1...1000).contains(options.maximumConnectionsPerHost) else {
                return "httpMaximumConnectionsPerHost \(options.maximumConnectionsPerHost) is not within 1...1000"
            }
            for (name, value) in [
                ("timeoutIntervalForRequest", options.requestTimeoutSeconds),
                ("timeoutIntervalForResource", options.resourceTimeoutSeconds),
            ] where !(value.isFinite && value > 0 && value <= 1e9) {
                return "\(name) \(value) is not a positive number of seconds"
            }
            return nil
        case .submit(let transfer, let uploadPath, let resumeData):
            return Self.orderProblem(transfer, uploadPath: uploadPath, resumeData: resumeData, from: app)
        case .cancel(let session, let task, _), .delivered(let session, let task):
            return Self.sessionProblem(session) ?? Self.taskProblem(task)
        case .detach(let session, _), .eventsHandled(let session):
            return Self.sessionProblem(session)
        }
    }

    static func sessionProblem(_ session: String) -> String? {
        if session.isEmpty { return "an empty session identifier" }
        if session.utf8.count > TransferMessageLimits.maximumSessionBytes {
            return "a session identifier longer than \(TransferMessageLimits.maximumSessionBytes) bytes"
        }
        if session.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "a session identifier with control characters"
        }
        return nil
    }

    static func taskProblem(_ task: Int) -> String? {
        (1...TransferMessageLimits.maximumTask).contains(task) ? nil : "task identifier \(task) is out of range"
    }

    static func orderProblem(
        _ transfer: TransferCheckpoint,
        uploadPath: String?,
        resumeData: WireBytes?,
        from app: AppID
    ) -> String? {
        if transfer.app != app { return "a transfer of \(transfer.app)" }
        if let why = sessionProblem(transfer.session) ?? taskProblem(transfer.task) { return why }
        if transfer.state != .waiting || transfer.outcome != nil || transfer.bytesDone != 0
            || transfer.partialFile != nil || transfer.bodyFile != nil
        {
            return "an order names the engine's own fields (state, outcome, bytes or files)"
        }
        if transfer.url.utf8.count > TransferMessageLimits.maximumURLBytes { return "a URL over 8 KiB" }
        if transfer.method.isEmpty || transfer.method.utf8.count > 16
            || !transfer.method.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) })
        {
            return "a method that is not 1 to 16 capital letters"
        }
        if transfer.headers.count > TransferMessageLimits.maximumHeaderFields {
            return "more than \(TransferMessageLimits.maximumHeaderFields) header fields"
        }
        let headerBytes = TransferHeader.bytes(of: transfer.headers)
        if headerBytes > TransferMessageLimits.maximumHeaderBytes { return "header fields over 64 KiB" }
        if (transfer.taskDescription?.utf8.count ?? 0) > TransferMessageLimits.maximumPathBytes {
            return "a taskDescription over 4 KiB"
        }
        if let digest = transfer.expectedSHA256,
            digest.utf8.count != 64
                || !digest.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        {
            return "an expected SHA-256 that is not 64 lowercase hexadecimal digits"
        }
        if let begin = transfer.earliestBeginUnixSeconds, !begin.isFinite { return "an earliestBeginDate not finite" }
        if let priority = transfer.requirements?.priority, !(0...1).contains(priority) {
            return "a priority not within 0...1"
        }
        if let path = uploadPath, path.utf8.count > TransferMessageLimits.maximumPathBytes || path.isEmpty {
            return "an upload path that is empty or over 4 KiB"
        }
        if (resumeData?.bytes.count ?? 0) > TransferMessageLimits.maximumResumeDataBytes {
            return "resume data over 64 KiB"
        }
        return nil
    }
}
