import BackgroundProtocol
import Logging
import NIOCore
import Synchronization

/// A client connection over NIO: frames out, with a bound on what may wait unread.
///
/// Sends are queued on the channel and never wait. The bytes written but not yet taken by the
/// kernel are counted; a client that lets more than ``DaemonLimits/maximumPendingBytesPerClient``
/// pile up (it does not read, or is frozen, or is stuck) is disconnected with a logged reason,
/// and nobody else notices.
final class SocketLink: ClientLink {
    let linkID: Int
    let channel: any Channel
    private let limits: DaemonLimits
    private let logger: Logger
    private let pendingBytes = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)

    init(linkID: Int, channel: any Channel, limits: DaemonLimits, logger: Logger) {
        self.linkID = linkID
        self.channel = channel
        self.limits = limits
        self.logger = logger
    }

    func send(_ response: DaemonResponse) {
        guard !closed.load(ordering: .relaxed) else { return }
        let bytes: [UInt8]
        do {
            bytes = try Frame.encode(ProtocolCodec.encode(response), limit: limits.maximumFrameBytes)
        } catch {
            logger.error("connection \(linkID): a response could not be encoded: \(error)")
            return
        }
        let pending = pendingBytes.add(bytes.count, ordering: .relaxed).newValue
        guard pending <= limits.maximumPendingBytesPerClient else {
            close(
                reason:
                    "the client is not reading: \(pending) bytes wait for it, more than the \(limits.maximumPendingBytesPerClient) allowed"
            )
            return
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [self] _ in
            self.pendingBytes.subtract(bytes.count, ordering: .relaxed)
        }
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: promise)
    }

    func close(reason: String) {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        logger.notice("connection \(linkID) closed: \(reason)")
        let channel = self.channel
        // Let what was queued go first (a refusal's reason), then close.
        channel.eventLoop.execute {
            channel.writeAndFlush(ByteBuffer(), promise: nil)
            channel.close(promise: nil)
        }
    }
}
