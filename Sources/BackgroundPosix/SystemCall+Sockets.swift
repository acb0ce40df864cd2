#if canImport(Glibc)
import Glibc
#endif

/// Who is at the other end of a Unix-domain socket, as the kernel recorded it (`SO_PEERCRED`):
/// the credentials the peer had when it called `connect` or `listen`, which it cannot forge.
package struct PeerCredentials: Sendable, Hashable {
    /// The peer's process id.
    package var pid: Int32
    /// The peer's effective user id.
    package var uid: UInt32
    /// The peer's effective group id.
    package var gid: UInt32
}

extension SystemCall {
    /// The longest socket path `sockaddr_un` holds, without its terminating zero.
    package static let maximumSocketPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// A blocking, close-on-exec Unix-domain stream socket.
    package static func unixStreamSocket() throws(SystemCallError) -> Int32 {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        return try retrying("socket") { Glibc.socket(AF_UNIX, type, 0) }
    }

    /// `bind(2)` to a path.
    package static func bind(_ descriptor: Int32, to path: String) throws(SystemCallError) {
        var address = try socketAddress(path)
        _ = try retrying("bind", path) {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
    }

    /// `connect(2)` to a path. Not retried on `EINTR`: a connect in progress cannot be restarted.
    package static func connect(_ descriptor: Int32, to path: String) throws(SystemCallError) {
        var address = try socketAddress(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == -1 { throw SystemCallError(call: "connect", subject: path, code: errno) }
    }

    /// `listen(2)`.
    package static func listen(_ descriptor: Int32, backlog: Int32) throws(SystemCallError) {
        _ = try retrying("listen") { Glibc.listen(descriptor, backlog) }
    }

    /// `accept(2)`, the new descriptor made close-on-exec.
    package static func accept(_ descriptor: Int32) throws(SystemCallError) -> Int32 {
        let connection = try retrying("accept") { Glibc.accept(descriptor, nil, nil) }
        do {
            try setFlags(connection, descriptor: FD_CLOEXEC)
        } catch {
            close(connection)
            throw error
        }
        return connection
    }

    /// Sets the receive and send timeouts (`SO_RCVTIMEO`, `SO_SNDTIMEO`): a blocked `read` or
    /// `write` fails with `EAGAIN` after `seconds`.
    package static func setTimeouts(_ descriptor: Int32, seconds requested: Double) throws(SystemCallError) {
        // From a command line or a file: saturated to 0...10^9 s (NaN as 0), so the conversion
        // to whole seconds below never traps.
        let seconds = requested.isNaN ? 0 : min(max(requested, 0), 1e9)
        let whole = seconds.rounded(.down)
        var value = timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1_000_000))
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            _ = try retrying("setsockopt") {
                Glibc.setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
            }
        }
    }

    /// The peer's credentials (`getsockopt(SO_PEERCRED)`).
    package static func peerCredentials(of descriptor: Int32) throws(SystemCallError) -> PeerCredentials {
        // `struct ucred` is { pid_t pid; uid_t uid; gid_t gid; }; Glibc's module map hides it.
        var raw: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: raw))
        _ = try retrying("getsockopt(SO_PEERCRED)") {
            Glibc.getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &raw, &length)
        }
        return PeerCredentials(pid: raw.0, uid: raw.1, gid: raw.2)
    }

    /// A close-on-exec Unix-domain datagram socket, unbound (the service manager's notification
    /// socket is written to with one).
    package static func unixDatagramSocket() throws(SystemCallError) -> Int32 {
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        return try retrying("socket") { Glibc.socket(AF_UNIX, type, 0) }
    }

    /// Sends `bytes` as one datagram to the Unix-domain socket at `address`: a path, or an
    /// abstract name when it starts with `@` (systemd's notation in `$NOTIFY_SOCKET`). A reader
    /// that has gone is an error, never a `SIGPIPE` (`MSG_NOSIGNAL`).
    package static func sendDatagram(
        _ descriptor: Int32,
        _ bytes: [UInt8],
        to address: String
    ) throws(SystemCallError) {
        var (socketAddress, length) = try unixAddress(address)
        let sent = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketPointer in
                bytes.withUnsafeBytes { buffer in
                    sendtoRetryingInterrupts(descriptor, buffer, socketPointer, length)
                }
            }
        }
        if sent == -1 { throw SystemCallError(call: "sendto", subject: address, code: errno) }
    }

    private static func sendtoRetryingInterrupts(
        _ descriptor: Int32,
        _ buffer: UnsafeRawBufferPointer,
        _ address: UnsafePointer<sockaddr>,
        _ length: socklen_t
    ) -> Int {
        while true {
            let sent = Glibc.sendto(
                descriptor,
                buffer.baseAddress,
                buffer.count,
                Int32(MSG_NOSIGNAL),
                address,
                length
            )
            if sent == -1 && errno == EINTR { continue }
            return sent
        }
    }

    /// An integer socket option at `SOL_SOCKET` (`getsockopt(2)`): `SO_DOMAIN`, `SO_TYPE`,
    /// `SO_ACCEPTCONN`.
    package static func socketOption(_ descriptor: Int32, _ name: Int32) throws(SystemCallError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = try retrying("getsockopt") { Glibc.getsockopt(descriptor, SOL_SOCKET, name, &value, &length) }
        return value
    }

    /// The address a Unix-domain socket is bound to (`getsockname(2)`): its path, `@name` for
    /// an abstract one, nil for an unbound one.
    package static func boundAddress(of descriptor: Int32) throws(SystemCallError) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        _ = try retrying("getsockname") {
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.getsockname(descriptor, $0, &length) }
            }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        let count = min(Int(length), MemoryLayout<sockaddr_un>.size) - pathOffset
        guard count > 0 else { return nil }
        let bytes = withUnsafeBytes(of: &address.sun_path) { Array($0.prefix(count)) }
        if bytes[0] == 0 { return "@" + String(decoding: bytes.dropFirst(), as: UTF8.self) }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// A `sockaddr_un` for a path, or for an abstract name written `@name`, and its length
    /// (an abstract name's length counts exactly its bytes: it has no terminating zero).
    private static func unixAddress(_ address: String) throws(SystemCallError) -> (sockaddr_un, socklen_t) {
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        guard address.hasPrefix("@") else {
            let socketAddress = try socketAddress(address)
            return (socketAddress, socklen_t(pathOffset + address.utf8.count + 1))
        }
        let bytes = [0] + Array(address.utf8.dropFirst())
        guard bytes.count <= maximumSocketPathLength + 1 else {
            throw SystemCallError(call: "sockaddr_un", subject: address, code: ENAMETOOLONG)
        }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        return (socketAddress, socklen_t(pathOffset + bytes.count))
    }

    private static func socketAddress(_ path: String) throws(SystemCallError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumSocketPathLength, !bytes.contains(0) else {
            throw SystemCallError(call: "sockaddr_un", subject: path, code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        return address
    }
}
