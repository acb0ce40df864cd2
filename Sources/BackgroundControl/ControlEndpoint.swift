import BackgroundCore
import BackgroundPosix
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The client's end of the control channel (`bgctl status`, `why`, `simulate-launch`,
/// `simulate-expiration`): finds the app's socket, checks who answers, sends one command.
///
/// It never signals a process and never writes anywhere but to a socket whose listener the
/// kernel vouches for: the directory must pass ``SecureDirectory``'s checks, the listener
/// must run as this user (or root), and its pid must be the one the socket's name claims (and
/// the one asked for, if any).
package enum ControlEndpoint {
    /// Sends `command` to the app whose control directory is `path` and returns its reply.
    ///
    /// - Parameters:
    ///   - pid: The process to talk to; nil when exactly one process of the app is running.
    ///   - timeout: Seconds for each read and write.
    package static func send(
        _ command: DebugCommand,
        directory path: String,
        pid: Int32?,
        timeout: Double
    ) throws(ControlEndpointError) -> DebugReply {
        let directory: SecureDirectory
        do {
            directory = try SecureDirectory.open(path, access: .privateToOwner, creating: false)
        } catch {
            if error.isMissing {
                throw .unavailable("\(error): is the app running, and does it call acceptDebugCommands()?")
            }
            throw .refused("\(error)")
        }
        let connection = try connect(in: directory, pid: pid)
        do {
            try SystemCall.setTimeouts(connection.descriptor, seconds: timeout)
            try connection.writeFrame(Array(JSONEncoder().encode(command)))
            let payload = try connection.readFrame(limit: DebugReply.maximumSize)
            return try JSONDecoder().decode(DebugReply.self, from: Data(payload))
        } catch let error as ControlChannelError {
            if case .timedOut = error { throw .timedOut("no answer within \(timeout) s") }
            throw .badReply("\(error)")
        } catch let error as DecodingError {
            throw .badReply("the reply is not a valid answer: \(error)")
        } catch {
            throw .badReply("\(error)")
        }
    }

    /// Connects to the one live, verified listener of the directory (of `pid`, if given).
    private static func connect(
        in directory: SecureDirectory,
        pid: Int32?
    ) throws(ControlEndpointError)
        -> ControlConnection
    {
        let names: [String]
        do { names = try directory.entries() } catch { throw .unavailable("\(directory.path): \(error)") }
        var live: [(name: String, connection: ControlConnection)] = []
        for name in names {
            guard let claimed = ControlServer.claimedPID(ofSocket: name), pid == nil || claimed == pid else { continue }
            guard let connection = try open(name, claiming: claimed, in: directory) else { continue }
            live.append((name, connection))
        }
        guard let first = live.popLast() else {
            let whom = pid.map { "process \($0)" } ?? "any process"
            throw .unavailable(
                "\(directory.path): no control socket of \(whom) is listening; is the app running, and does it call acceptDebugCommands()?"
            )
        }
        guard live.isEmpty else {
            let pids = ([first.name] + live.map(\.name)).compactMap(ControlServer.claimedPID).sorted()
            throw .ambiguous(
                "several processes of the app are running (pids \(pids.map(String.init).joined(separator: ", "))); choose one with --pid"
            )
        }
        return first.connection
    }

    /// Connects to one socket and checks its listener; nil if nobody listens there.
    private static func open(
        _ name: String,
        claiming claimed: Int32,
        in directory: SecureDirectory
    )
        throws(ControlEndpointError) -> ControlConnection?
    {
        guard let status = try? directory.status(of: name), status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        let connection: ControlConnection
        do {
            connection = ControlConnection(descriptor: try SystemCall.unixStreamSocket())
            try SystemCall.connect(connection.descriptor, to: directory.pathThroughDescriptor(name))
        } catch  where error.code == ECONNREFUSED || error.code == ENOENT {
            return nil  // left behind by a process that is gone
        } catch {
            throw .unavailable("\(directory.path)/\(name): \(error)")
        }
        let peer: PeerCredentials
        do { peer = try connection.peer() } catch { throw .refused("\(name): \(error)") }
        let me = SystemCall.effectiveUserID
        guard peer.uid == me || peer.uid == 0 else {
            throw .refused("\(name): the listener runs as uid \(peer.uid), not as uid \(me) or root")
        }
        guard peer.pid == claimed else {
            throw .refused("\(name): the listener is process \(peer.pid), not process \(claimed) as its name claims")
        }
        return connection
    }
}

/// Why a command could not be sent to a running app.
package enum ControlEndpointError: Error, Sendable, CustomStringConvertible {
    /// No app is listening (exit 69).
    case unavailable(String)
    /// The directory or the listener failed a check: not the app it claims to be (exit 77).
    case refused(String)
    /// Several processes listen and none was chosen (exit 64).
    case ambiguous(String)
    /// The app did not answer in time (exit 75).
    case timedOut(String)
    /// The answer broke the protocol (exit 65).
    case badReply(String)

    package var description: String {
        switch self {
        case .unavailable(let text), .refused(let text), .ambiguous(let text), .timedOut(let text),
            .badReply(let text):
            return text
        }
    }
}
