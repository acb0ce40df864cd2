import BackgroundPosix
import BackgroundProtocol

#if canImport(Glibc)
import Glibc
#endif

/// One connection of an app's process to `backgroundd`: a blocking Unix-domain stream socket
/// that carries frames (``Frame``) of ``ProtocolCodec`` messages.
///
/// Writes come from the app's threads (under the connection's lock, so frames never
/// interleave) and use `MSG_NOSIGNAL`: a daemon that went away is an error to handle, never a
/// `SIGPIPE` that kills the app. Reads come from the connection's one reader thread.
final class DaemonSocket: Sendable {
    /// The descriptor; closed by ``close()``.
    let descriptor: Int32

    /// Takes over a connected descriptor (inherited from the daemon, or made by ``connect(to:)``),
    /// making it close-on-exec so the app's own children never inherit it.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    /// Connects to the daemon's socket at `path`.
    static func connect(to path: String) throws(SystemCallError) -> DaemonSocket {
        let descriptor = try SystemCall.unixStreamSocket()
        do {
            try SystemCall.connect(descriptor, to: path)
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
        return DaemonSocket(descriptor: descriptor)
    }

    /// Sets how long a read may block (`SO_RCVTIMEO`); nil blocks for ever.
    func setReadTimeout(_ timeout: Duration?) {
        let seconds = timeout.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 } ?? 0
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sets how long a write may block (`SO_SNDTIMEO`): a daemon that stops reading must not
    /// hold the app's thread for ever; the connection is then treated as broken.
    func setWriteTimeout(_ timeout: Duration) {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends one message as a frame.
    ///
    /// - Throws: ``DaemonSocketError`` when it cannot be encoded or written.
    func send(_ request: DaemonRequest) throws(DaemonSocketError) {
        let bytes: [UInt8]
        do {
            bytes = try Frame.encode(ProtocolCodec.encode(request))
        } catch {
            throw .encoding("\(error)")
        }
        try sendAll(bytes)
    }

    private func sendAll(_ bytes: [UInt8]) throws(DaemonSocketError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress! + written, buffer.count - written, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(SystemCallError(call: "send", subject: "backgroundd", code: errno))
            }
            written += count
        }
    }

    /// Reads into `decoder` until it holds a frame, and decodes it.
    ///
    /// - Returns: The next message; nil when the daemon closed the connection.
    /// - Throws: ``DaemonSocketError`` for a read that failed or timed out, or a frame that is
    ///   not a message.
    func receive(into decoder: inout FrameDecoder) throws(DaemonSocketError) -> DaemonResponse? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            do {
                if let payload = try decoder.nextFrame() {
                    return try ProtocolCodec.decodeAnswer(from: payload)
                }
            } catch {
                throw .malformed("\(error)")
            }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut }
                throw .system(SystemCallError(call: "read", subject: "backgroundd", code: errno))
            }
            if count == 0 { return nil }
            decoder.append(chunk[0..<count])
        }
    }

    /// Wakes a reader blocked on this socket (it reads the end of the stream).
    func shutDown() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Closes the descriptor.
    func close() {
        SystemCall.close(descriptor)
    }
}

/// Why a connection to the daemon failed.
enum DaemonSocketError: Error, Sendable, CustomStringConvertible {
    /// A system call failed.
    case system(SystemCallError)
    /// Nothing arrived within the time allowed.
    case timedOut
    /// The daemon sent bytes that are not a message of this protocol.
    case malformed(String)
    /// A message could not be encoded.
    case encoding(String)

    var description: String {
        switch self {
        case .system(let error): return "\(error)"
        case .timedOut: return "no answer in time"
        case .malformed(let why): return "a malformed message: \(why)"
        case .encoding(let why): return "a message could not be encoded: \(why)"
        }
    }
}
