import Foundation

/// Why a command stopped: one line, `<tool> <command>: <subject>: <reason>`, and an exit status
/// from the one table.
///
/// Commands throw it; ``CommandEntry`` prints it on standard error and exits with its status.
/// The command's name is added there, so code deep in a command only says what and why.
public struct CommandFailure: Error, CustomStringConvertible, Sendable, Equatable {
    /// What the failure is about: a path, a flag, a task identifier, a process.
    public var subject: String
    /// Why it failed, in words a user can act on.
    public var reason: String
    /// The exit status.
    public var status: ExitStatus

    /// A failure about `subject`, because of `reason`, ending with `status`.
    public init(_ status: ExitStatus, _ subject: String, _ reason: String) {
        self.status = status
        self.subject = subject
        self.reason = Self.oneLine(reason)
    }

    /// `<subject>: <reason>` (the command's name is added by ``line(command:)``).
    public var description: String { subject.isEmpty ? reason : "\(subject): \(reason)" }

    /// The whole line: `bgctl simulate: examples/x.json: no such file`.
    public func line(command: String) -> String { "\(command): \(description)" }

    /// Collapses a multi-line message to one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

extension CommandFailure {
    /// A failure for any error, about `subject`: a file-system error gets its sysexits code
    /// and the system's words (never an `NSError` dump); a `CommandFailure` is kept; anything
    /// else is `defaultStatus` with the error's description on one line.
    public init(_ error: any Error, subject: String, defaultStatus: ExitStatus = .internalError) {
        if let failure = error as? CommandFailure {
            self = failure
            return
        }
        if let (status, reason) = Self.fileSystemReason(error) {
            let path = (error as NSError).userInfo[NSFilePathErrorKey] as? String
            self.init(status, subject.isEmpty ? path ?? "" : subject, reason)
            return
        }
        self.init(defaultStatus, subject, String(describing: error))
    }

    /// The status and words for a Foundation or POSIX file-system error, if it is one.
    static func fileSystemReason(_ error: any Error) -> (ExitStatus, String)? {
        if let posix = error as? POSIXError {
            return (status(errno: posix.code.rawValue, writing: false), String(cString: strerror(posix.code.rawValue)))
        }
        let nsError = error as NSError
        guard nsError.domain == NSCocoaErrorDomain else { return nil }
        let underlying = (nsError.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        let code = CocoaError.Code(rawValue: nsError.code)
        let writing = (CocoaError.Code.fileWriteUnknown.rawValue...CocoaError.Code.fileWriteVolumeReadOnly.rawValue)
            .contains(code.rawValue)
        if let underlying, underlying.domain == NSPOSIXErrorDomain {
            let errnoValue = Int32(underlying.code)
            return (status(errno: errnoValue, writing: writing), String(cString: strerror(errnoValue)))
        }
        switch code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return (.inputMissing, "No such file or directory")
        case .fileReadNoPermission: return (.inputMissing, "Permission denied")
        case .fileWriteNoPermission: return (.cannotCreateOutput, "Permission denied")
        case .fileWriteOutOfSpace: return (.ioError, "No space left on device")
        case .fileWriteVolumeReadOnly: return (.cannotCreateOutput, "Read-only file system")
        case .fileReadCorruptFile: return (.badInput, "the file is damaged or in the wrong format")
        default: return (writing ? .cannotCreateOutput : .ioError, "the file system refused the operation")
        }
    }

    /// The status for an `errno`, for a read (`writing == false`) or a write.
    static func status(errno: Int32, writing: Bool) -> ExitStatus {
        switch errno {
        case ENOENT, ENOTDIR, EISDIR, ELOOP: writing ? .cannotCreateOutput : .inputMissing
        case EACCES, EPERM, EROFS: writing ? .cannotCreateOutput : .inputMissing
        case ENOSPC, EIO: .ioError
        default: writing ? .cannotCreateOutput : .ioError
        }
    }
}
