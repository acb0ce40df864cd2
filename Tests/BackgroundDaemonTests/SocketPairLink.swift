import BackgroundCore
import BackgroundDaemon
import BackgroundExecution
import BackgroundProtocol
import BackgroundTestSupport
import Foundation
import Synchronization

/// The daemon's end of a socket pair, served by an engine in the test process: the app's end
/// (``appDescriptor``) is what a `DaemonConnection` inherits, as a process the daemon starts
/// inherits its connection (`SpawnedAppProcesses` serves the same end over NIO).
///
/// Frames from the app are read on a thread of its own and handed to the engine in order;
/// responses are framed onto the socket as the engine sends them. The end of the stream
/// disconnects the link.
final class SocketPairLink: ClientLink {
    let linkID: Int
    /// The app's end, for `DaemonConnection.Configuration.Endpoint.inherited`.
    let appDescriptor: Int32
    private let descriptor: Int32
    private let writing = Mutex<Bool>(false)  // closed
    private static let counter = Atomic<Int>(2_000_000)

    /// Makes the pair and attaches the daemon's end to `engine` as the inherited connection of
    /// `app`'s process `incarnation`.
    init(engine: DaemonEngine, app: AppID, incarnation: Incarnation) throws {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
        descriptor = pair[0]
        appDescriptor = pair[1]
        linkID = Self.counter.add(1, ordering: .relaxed).newValue
        engine.attachInherited(self, app: app, incarnation: incarnation)
        let thread = Thread { [self] in serve(engine) }
        thread.name = "socket pair link \(linkID)"
        thread.start()
    }

    func send(_ response: DaemonResponse) {
        guard let bytes = try? Frame.encode(ProtocolCodec.encode(response)) else { return }
        writing.withLock { closed in
            guard !closed else { return }
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL))
                }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                written += count
            }
        }
    }

    func close(reason: String) {
        writing.withLock { closed in
            guard !closed else { return }
            closed = true
            _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }

    /// Reads frames until the app's end closes, then tells the engine.
    private func serve(_ engine: DaemonEngine) {
        var decoder = FrameDecoder()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        reading: while true {
            while let payload = try? decoder.nextFrame() {
                guard let request = try? ProtocolCodec.decode(DaemonRequest.self, from: payload) else { break reading }
                engine.received(request, from: self, peer: nil)
            }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            decoder.append(chunk[0..<count])
        }
        close(reason: "the app's end closed")
        engine.disconnected(self)
        Glibc.close(descriptor)
    }
}

extension SocketPairLink {
    /// The app's side of this pair: a real `DaemonConnection` on the inherited end, as a process
    /// the daemon starts makes it (launch completed explicitly, terminations recorded). Its hello
    /// waits for the welcome, so it is made on a thread of its own, off the main actor.
    func appConnection(_ app: AppID, sceneManifest: SceneManifest? = nil) async -> DaemonConnection {
        let descriptor = appDescriptor
        return await onDedicatedThread {
            DaemonConnection(
                configuration: .init(
                    app: app,
                    endpoint: .inherited(descriptor: descriptor),
                    launchCompletion: .explicit,
                    terminationBehavior: .record,
                    sceneManifest: sceneManifest
                )
            )
        }
    }
}
