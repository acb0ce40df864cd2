import BackgroundCore
package import BackgroundPosix
import Foundation
package import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The app's end of the control channel: a Unix-domain socket this process alone listens on.
///
/// The socket is `<pid>.<nonce>.sock` in a ``SecureDirectory`` (mode `0700`, owned by the
/// effective user), created with mode `0600`; the per-start nonce means a name never points at
/// a later process that reuses the pid. Each connection is checked with `SO_PEERCRED` (the
/// same user, or root), gets one request frame of at most ``DebugCommand/maximumRequestSize``
/// bytes and one reply, with ``connectionTimeout`` on every read and write. Connections are
/// served one at a time on a thread of their own, never on the signal path: nothing a client
/// does can delay SIGTERM or SIGINT handling.
package final class ControlServer: Sendable {
    /// The directory the socket is in.
    package let directory: SecureDirectory
    /// The socket's name in ``directory``.
    package let socketName: String
    private let listener: Int32
    private let handler: @Sendable (DebugCommand) -> DebugReply
    private let log: @Sendable (String) -> Void

    /// How long a client may take to send its request or read its reply, in seconds.
    package static let connectionTimeout = 2.0

    /// The socket name of process `pid` started with `nonce`.
    package static func socketName(pid: Int32, nonce: UInt64) -> String {
        "\(pid).\(String(nonce, radix: 16)).sock"
    }

    /// The pid a socket name claims, or nil if it is not a control socket's name.
    package static func claimedPID(ofSocket name: String) -> Int32? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "sock", !parts[1].isEmpty, parts[1].allSatisfy(\.isHexDigit) else {
            return nil
        }
        return Int32(parts[0]).flatMap { $0 > 0 ? $0 : nil }
    }

    /// Starts listening in `directory` and serving on a thread of its own.
    ///
    /// Sockets left by processes that are gone (nothing listens on them) are removed first.
    package static func start(
        in directory: SecureDirectory,
        log: @escaping @Sendable (String) -> Void,
        handler: @escaping @Sendable (DebugCommand) -> DebugReply
    ) throws(SystemCallError) -> ControlServer {
        removeStaleSockets(in: directory)
        var random = SystemRandomNumberGenerator()
        let name = socketName(pid: SystemCall.processID, nonce: random.next())
        let listener = try SystemCall.unixStreamSocket()
        do {
            try SystemCall.bind(listener, to: directory.pathThroughDescriptor(name))
            try SystemCall.changeModeAt(directory.descriptor, name, to: 0o600)
            try SystemCall.listen(listener, backlog: 16)
        } catch {
            SystemCall.close(listener)
            try? directory.removeSocket(name)
            throw error
        }
        let server = ControlServer(directory: directory, socketName: name, listener: listener, handler, log)
        ControlServer.current.withLock { $0 = server }
        Thread.detachNewThread { server.serve() }
        return server
    }

    private init(
        directory: SecureDirectory,
        socketName: String,
        listener: Int32,
        _ handler: @escaping @Sendable (DebugCommand) -> DebugReply,
        _ log: @escaping @Sendable (String) -> Void
    ) {
        self.directory = directory
        self.socketName = socketName
        self.listener = listener
        self.handler = handler
        self.log = log
    }

    /// The server of this process, if one was started: its socket is removed when the
    /// process exits through ``ProcessControl/exit(_:)``.
    package static let current = Mutex<ControlServer?>(nil)

    /// Removes this server's socket (at exit).
    package func removeSocket() {
        try? directory.removeSocket(socketName)
    }

    private func serve() {
        while true {
            let descriptor: Int32
            do {
                descriptor = try SystemCall.accept(listener)
            } catch {
                log("control socket: accept failed: \(error)")
                if error.code == EBADF || error.code == EINVAL { return }
                continue
            }
            serve(ControlConnection(descriptor: descriptor))
        }
    }

    /// Answers one connection: checks the peer, reads one request, writes one reply.
    private func serve(_ connection: ControlConnection) {
        do {
            let peer = try connection.peer()
            guard peer.uid == SystemCall.effectiveUserID || peer.uid == 0 else {
                log("control socket: refused a connection from uid \(peer.uid) (pid \(peer.pid))")
                return
            }
            do {
                try SystemCall.setTimeouts(connection.descriptor, seconds: Self.connectionTimeout)
            } catch {
                throw ControlChannelError.system(error)
            }
            let request = try connection.readFrame(limit: DebugCommand.maximumRequestSize)
            let reply: DebugReply
            do {
                reply = handler(try DebugCommand.decode(Data(request)))
            } catch {
                reply = DebugReply(.rejected, "\(error)\n")
            }
            let encoded = try JSONEncoder().encode(reply)
            try connection.writeFrame(Array(encoded))
        } catch {
            log("control socket: connection dropped: \(ControlCharacters.escaped("\(error)"))")
        }
    }

    private static func removeStaleSockets(in directory: SecureDirectory) {
        for name in (try? directory.entries()) ?? [] where claimedPID(ofSocket: name) != nil {
            guard let socket = try? SystemCall.unixStreamSocket() else { return }
            defer { SystemCall.close(socket) }
            do {
                try SystemCall.connect(socket, to: directory.pathThroughDescriptor(name))
            } catch  where error.code == ECONNREFUSED {
                try? directory.removeSocket(name)
            } catch {
                continue
            }
        }
    }
}
