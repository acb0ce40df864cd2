#if canImport(Glibc)
package import BackgroundPosix
import Glibc
#endif

/// One connected control socket, blocking with timeouts: reads and writes whole frames.
///
/// Both ends use it (the app's ``ControlServer`` and `bgctl`); the daemon's NIO channel uses
/// ``ControlFrame`` directly.
package final class ControlConnection {
    /// The socket; closed when the connection goes.
    package let descriptor: Int32

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { SystemCall.close(descriptor) }

    /// Who is at the other end.
    package func peer() throws(ControlChannelError) -> PeerCredentials {
        do { return try SystemCall.peerCredentials(of: descriptor) } catch { throw .system(error) }
    }

    /// Reads one frame's payload, at most `limit` bytes.
    package func readFrame(limit: Int) throws(ControlChannelError) -> [UInt8] {
        let header = try readExactly(ControlFrame.headerSize)
        let length: Int
        do { length = try ControlFrame.payloadLength(header: header, limit: limit) } catch { throw .frame(error) }
        return try readExactly(length)
    }

    /// Writes one frame carrying `payload`.
    package func writeFrame(_ payload: [UInt8]) throws(ControlChannelError) {
        do { try SystemCall.writeAll(descriptor, ControlFrame.encode(payload)) } catch { throw .init(error) }
    }

    private func readExactly(_ count: Int) throws(ControlChannelError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) -> Int in
                    try SystemCall.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }
            }
            let read: Int
            do { read = try result.get() } catch { throw .init(error) }
            guard read > 0 else {
                throw .frame(ControlFrameError("the connection closed after \(filled) of \(count) bytes"))
            }
            filled += read
        }
        return bytes
    }
}

/// Why a control connection failed.
package enum ControlChannelError: Error, Sendable, CustomStringConvertible {
    /// A system call failed.
    case system(SystemCallError)
    /// The peer did not answer within the connection's timeout.
    case timedOut
    /// The peer sent a frame that breaks the rules.
    case frame(ControlFrameError)

    init(_ error: SystemCallError) {
        self = error.code == EAGAIN || error.code == EWOULDBLOCK ? .timedOut : .system(error)
    }

    package var description: String {
        switch self {
        case .system(let error): return "\(error)"
        case .timedOut: return "no answer within the timeout"
        case .frame(let error): return "bad frame: \(error)"
        }
    }
}
