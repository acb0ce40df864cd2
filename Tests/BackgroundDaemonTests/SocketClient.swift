import BackgroundExecution
import BackgroundPosix
import BackgroundProtocol
import Foundation

/// A blocking client of the daemon's socket, for tests: raw bytes or framed messages.
final class SocketClient {
    let descriptor: Int32

    init(path: String, timeout: Double = 5) throws {
        descriptor = try SystemCall.unixStreamSocket()
        try SystemCall.connect(descriptor, to: path)
        try SystemCall.setTimeouts(descriptor, seconds: timeout)
    }

    deinit { SystemCall.close(descriptor) }

    func sendRaw(_ bytes: [UInt8]) throws {
        try SystemCall.writeAll(descriptor, bytes)
    }

    func send(_ request: DaemonRequest) throws {
        try sendRaw(Frame.encode(ProtocolCodec.encode(request)))
    }

    /// The next response; nil when the daemon closed the connection.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func receive() throws -> DaemonResponse? {
        try receivePayload().map { try ProtocolCodec.decode(DaemonResponse.self, from: $0) }
    }

    /// The next frame's payload, undecoded; nil when the daemon closed the connection.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func receivePayload() throws -> [UInt8]? {
        guard let header = try read(Frame.headerSize) else { return nil }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        return try read(length)
    }

    /// Reads until the daemon closes the connection; true if it did within the timeout.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func waitForClose() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    private func read(_ count: Int) throws -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: max(count, 1))
        while bytes.count < count {
            let got = try buffer.withUnsafeMutableBytes { raw in
                try SystemCall.read(
                    descriptor,
                    into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<(count - bytes.count)])
                )
            }
            if got == 0 { return nil }
            bytes.append(contentsOf: buffer[0..<got])
        }
        return bytes
    }

    /// Hello as `role`, and the daemon's answer.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func hello(_ role: ClientRole) throws -> DaemonResponse? {
        try send(.hello(ClientHello(role: role)))
        return try receive()
    }

    /// A control request's reply.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func control(_ request: ControlRequest) throws -> ControlReply? {
        try send(.control(request))
        guard case .control(let reply)? = try receive() else { return nil }
        return reply
    }
}

/// Runs blocking work (socket calls, waiting for a process) on a thread of its own, so it never
/// holds one of the few threads async tests share.
func onThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async -> Result<Value, any Error> {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: Result { try body() }) }
    }
}
