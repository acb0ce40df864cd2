import AsyncHTTPClient
import NIOCore

/// Why an attempt failed, as `NSURLErrorDomain` names it, and whether another attempt may help.
struct TransferFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// `NSURLErrorDomain`'s code.
    var code: Int
    /// What happened, in one line.
    var message: String
    /// Whether the attempt may be retried (a reset, a timeout, a 5xx, a short body).
    var isTransient: Bool

    var description: String { "\(message) (\(code))" }

    init(code: Int, message: String, isTransient: Bool) {
        self.code = code
        self.message = message
        self.isTransient = isTransient
    }

    static let cancelledCode = -999
    static let timedOutCode = -1001
    static let unsupportedURLCode = -1002
    static let cannotFindHostCode = -1003
    static let cannotConnectCode = -1004
    static let connectionLostCode = -1005
    static let tooManyRedirectsCode = -1007
    static let badServerResponseCode = -1011
    static let fileDoesNotExistCode = -1100
    static let cannotOpenFileCode = -3001
    static let cannotWriteFileCode = -3003
    static let unknownCode = -1

    static func transient(_ code: Int, _ message: String) -> Self {
        Self(code: code, message: message, isTransient: true)
    }

    static func permanent(_ code: Int, _ message: String) -> Self {
        Self(code: code, message: message, isTransient: false)
    }

    static let cancelled = permanent(cancelledCode, "cancelled")

    /// The failure an error thrown by the HTTP client or a file stands for.
    init(classifying error: any Error) {
        if let failure = error as? TransferFailure {
            self = failure
            return
        }
        if error is CancellationError {
            self = .cancelled
            return
        }
        if let client = error as? HTTPClientError {
            self = Self.classify(client)
            return
        }
        if "\(type(of: error))".contains("ConnectionError") {
            self = .transient(Self.cannotConnectCode, "could not connect to the server: \(error)")
            return
        }
        self = .transient(Self.connectionLostCode, "the network connection was lost: \(error)")
    }

    private static func classify(_ error: HTTPClientError) -> TransferFailure {
        switch error {
        case .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout:
            return .transient(timedOutCode, "the request timed out (\(error))")
        case .cancelled:
            return .cancelled
        case .invalidURL, .emptyHost, .emptyScheme:
            return .permanent(unsupportedURLCode, "unsupported URL (\(error))")
        case .redirectLimitReached, .redirectCycleDetected:
            return .permanent(tooManyRedirectsCode, "too many redirects (\(error))")
        case .bodyLengthMismatch:
            return .permanent(fileDoesNotExistCode, "the upload's file changed while it was sent")
        default:
            if "\(error)".contains("unsupportedScheme") {
                return .permanent(unsupportedURLCode, "unsupported URL (\(error))")
            }
            return .transient(connectionLostCode, "the network connection was lost (\(error))")
        }
    }
}
