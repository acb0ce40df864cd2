import ArgumentParser
import BackgroundExecution
import BackgroundPaths
import BackgroundPosix
import BackgroundProtocol
import CommandOutput
import Foundation

/// Options of every command that talks to `backgroundd`.
struct DaemonOptions: ParsableArguments {
    @Option(
        help:
            "The daemon's socket (default: $BACKGROUNDD_SOCKET, $XDG_RUNTIME_DIR/backgroundd/backgroundd.sock, <state>/run/backgroundd.sock; as root /run/backgroundd/backgroundd.sock)."
    )
    var socket: String?

    @Option(parsing: .unconditional, help: "Seconds to wait for the daemon's answer (more than 0).")
    var timeout: Double = 5

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most 86400")
        }
        if let socket, !socket.hasPrefix("/") { throw ValidationError("--socket must be an absolute path") }
    }

    /// The socket's path.
    func socketPath() throws(CommandFailure) -> String {
        if let socket { return socket }
        guard let paths = DaemonPaths(environment: ProcessInfo.processInfo.environment) else {
            throw CommandFailure(.usage, "--socket", "no default: set HOME or XDG_STATE_HOME to an absolute path")
        }
        return paths.socket
    }
}

/// A blocking control connection to `backgroundd`: hello as a control client, then requests.
///
/// Only reads and control requests; it never writes a file. Failures are ``CommandFailure``s:
/// 69 the daemon is not running or is of another release (another protocol version), 77 refused,
/// 75 timed out, 65 a malformed answer.
final class DaemonClient {
    private let descriptor: Int32
    private let path: String
    private var decoder = FrameDecoder()

    init(options: DaemonOptions) throws(CommandFailure) {
        path = try options.socketPath()
        let subject = "backgroundd"
        do {
            descriptor = try SystemCall.unixStreamSocket()
        } catch {
            throw CommandFailure(.ioError, subject, error.description)
        }
        do {
            try SystemCall.connect(descriptor, to: path)
            try SystemCall.setTimeouts(descriptor, seconds: options.timeout)
        } catch {
            SystemCall.close(descriptor)
            throw CommandFailure(
                .unavailable,
                subject,
                "not running (no daemon at \(ControlCharacters.escaped(path)): \(error.reason))"
            )
        }
        try send(.hello(ClientHello(role: .control)))
        switch try receive() {
        case .welcome: return
        case .refused(let refusal) where refusal.code == .unsupportedVersion:
            // Another release's daemon: not a permission, a mismatch the user can fix.
            throw CommandFailure(.unavailable, subject, ControlCharacters.escaped(refusal.message))
        case .refused(let refusal):
            throw CommandFailure(.permissionDenied, subject, "refused: \(ControlCharacters.escaped(refusal.message))")
        default:
            throw CommandFailure(.badInput, subject, "answered the hello with something else than a welcome")
        }
    }

    deinit { SystemCall.close(descriptor) }

    func send(_ request: DaemonRequest) throws(CommandFailure) {
        do {
            try SystemCall.writeAll(descriptor, try Frame.encode(ProtocolCodec.encode(request)))
        } catch {
            throw CommandFailure(.ioError, "backgroundd", "cannot send: \(error)")
        }
    }

    /// The next message; the connection's end is an error (the daemon went away).
    func receive() throws(CommandFailure) -> DaemonResponse {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            do {
                if let payload = try decoder.nextFrame() {
                    return try ProtocolCodec.decodeAnswer(from: payload)
                }
            } catch {
                throw CommandFailure(.badInput, "backgroundd", "a malformed answer: \(error)")
            }
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in try SystemCall.read(descriptor, into: buffer) }
            }
            let count: Int
            switch result {
            case .success(let read): count = read
            case .failure(let error) where error.code == EAGAIN || error.code == EWOULDBLOCK:
                throw CommandFailure(.timedOut, "backgroundd", "no answer in time")
            case .failure(let error):
                throw CommandFailure(.ioError, "backgroundd", error.description)
            }
            if count == 0 { throw CommandFailure(.unavailable, "backgroundd", "closed the connection") }
            decoder.append(chunk[0..<count])
        }
    }

    /// Sends a request and returns its reply.
    func request(_ request: ControlRequest) throws(CommandFailure) -> ControlReply {
        try send(.control(request))
        guard case .control(let reply) = try receive() else {
            throw CommandFailure(.badInput, "backgroundd", "answered with something else than a control reply")
        }
        return reply
    }

    /// Asks once and prints the answer (its text, or its JSON document with `--json`); a negative
    /// answer exits 1, a refused or invalid request 77 or 64.
    static func run(_ request: ControlRequest, options: DaemonOptions, json: Bool) throws {
        let reply = try DaemonClient(options: options).request(request)
        print(json ? reply.json : ControlCharacters.escapedLines(reply.text))
        try throwExitStatus(for: reply.outcome)
    }

    /// Returns for `.ok`; otherwise throws the outcome's exit status (1, 64, 77 or 70).
    static func throwExitStatus(for outcome: ControlReply.Outcome) throws {
        switch outcome {
        case .ok: return
        case .notFound: throw ExitCode(ExitStatus.negativeAnswer.rawValue)
        case .invalid: throw ExitCode(ExitStatus.usage.rawValue)
        case .denied: throw ExitCode(ExitStatus.permissionDenied.rawValue)
        case .failed: throw ExitCode(ExitStatus.internalError.rawValue)
        }
    }
}
