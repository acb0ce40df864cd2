import BackgroundProtocol
import Logging
import NIOCore

/// Turns a connection's bytes into requests for the engine.
///
/// The frame header is checked against the limit before any payload is buffered; a frame that
/// is too large, a payload that is not a protocol message, or a message of the wrong shape
/// closes this connection with a logged reason, and nothing else happens. A hello in another
/// protocol version is answered with a refusal in that version
/// (``ProtocolCodec/versionRefusal(toClientSpeaking:)``), then closed. A client that has not
/// said hello within ``DaemonLimits/helloTimeout`` is closed.
final class FrameChannelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let engine: DaemonEngine
    private let link: SocketLink
    private let peer: PeerIdentity?
    private let limits: DaemonLimits
    private let logger: Logger
    private var decoder: FrameDecoder
    private var helloTimer: Scheduled<Void>?
    private var failed = false
    private var saidHello = false

    init(engine: DaemonEngine, link: SocketLink, peer: PeerIdentity?, limits: DaemonLimits, logger: Logger) {
        self.engine = engine
        self.link = link
        self.peer = peer
        self.limits = limits
        self.logger = logger
        // The first frame, the hello, is read before the peer is known: a small limit, raised
        // once it has been handled (``DaemonLimits/maximumHelloBytes``).
        self.decoder = FrameDecoder(maximumFrameBytes: min(limits.maximumHelloBytes, limits.maximumFrameBytes))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let link = self.link
        let engine = self.engine
        let timeout = limits.helloTimeout
        helloTimer = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout.seconds * 1e9))) {
            if engine.isAwaitingHello(link) {
                link.close(reason: "no hello within \(timeout)")
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        var buffer = unwrapInboundIn(data)
        if let bytes = buffer.readBytes(length: buffer.readableBytes) { decoder.append(bytes) }
        do {
            while let payload = try decoder.nextFrame() {
                let isHello = !saidHello
                let request = try ProtocolCodec.decode(
                    DaemonRequest.self,
                    from: payload,
                    limits: isHello ? limits.helloWireLimits : .standard
                )
                engine.received(request, from: link, peer: peer)
                if isHello {
                    saidHello = true
                    decoder.maximumFrameBytes = limits.maximumFrameBytes
                }
            }
        } catch WireError.unsupportedVersion(let theirs) where !saidHello {
            // Another release's client: told so in a frame its version can read, then closed.
            failed = true
            if let refusal = try? Frame.encode(ProtocolCodec.versionRefusal(toClientSpeaking: theirs)) {
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: refusal)), promise: nil)
            }
            link.close(
                reason: "the client speaks protocol version \(theirs), this daemon \(ProtocolCodec.version): refused"
            )
        } catch {
            failed = true
            link.close(reason: "malformed input: \(error)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        helloTimer?.cancel()
        engine.disconnected(link)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        link.close(reason: "connection error: \(error)")
    }
}

extension DaemonEngine {
    func isAwaitingHello(_ link: any ClientLink) -> Bool {
        state.withLock { state in
            if case .awaitingHello? = state.sessions[link.linkID]?.role { return true }
            return false
        }
    }
}
