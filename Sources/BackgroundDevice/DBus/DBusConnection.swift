import BackgroundPosix
import Glibc
import Synchronization

/// A connection to a D-Bus bus over its Unix-domain socket: `EXTERNAL` authentication with this
/// process's uid, then messages. Small on purpose (no Swift D-Bus library is in the package
/// mirror): it sends ``DBusMessage``s and decodes what arrives.
///
/// The socket is non-blocking after authentication; ``drain()`` returns the whole messages that
/// have arrived, for a ``PollThread`` to call when the socket is readable.
final class DBusConnection: Sendable {
    /// The descriptor, for `poll`.
    let descriptor: Int32
    /// The address it connected to, for messages.
    let address: String

    private struct State {
        var buffer: [UInt8] = []
        var nextSerial: UInt32 = 1
    }

    private let state = Mutex(State())

    /// The system bus's address: `DBUS_SYSTEM_BUS_ADDRESS`, else the specification's default.
    static var systemBusAddress: String {
        getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? "unix:path=/run/dbus/system_bus_socket"
    }

    /// The socket path of the first `unix:path=…` or `unix:abstract=…` entry of an address (an
    /// abstract name starts with NUL), or nil for transports this client does not speak.
    static func socketPath(of address: String) -> [UInt8]? {
        for entry in address.split(separator: ";") where entry.hasPrefix("unix:") {
            for pair in entry.dropFirst(5).split(separator: ",") {
                if pair.hasPrefix("path=") { return Array(pair.dropFirst(5).utf8) }
                if pair.hasPrefix("abstract=") { return [0] + Array(pair.dropFirst(9).utf8) }
            }
        }
        return nil
    }

    /// Connects and authenticates, waiting at most `timeout` milliseconds for each answer.
    init(address: String, timeout: Int32 = 2000) throws(DeviceError) {
        self.address = address
        guard let path = Self.socketPath(of: address), !path.isEmpty, path.count < 108 else {
            throw .malformed(path: address, reason: "not a unix:path= or unix:abstract= D-Bus address")
        }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        descriptor = try SystemCall.checked("socket", address) { socket(AF_UNIX, type, 0) }
        do {
            var socketAddress = sockaddr_un()
            socketAddress.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
                for (index, byte) in path.enumerated() { raw[index] = byte }
            }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
            let descriptor = descriptor
            try SystemCall.checked("connect", address) {
                withUnsafePointer(to: &socketAddress) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
                }
            }
            try authenticate(timeout: timeout)
            try SystemCall.checked("fcntl", address) {
                fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            }
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
    }

    deinit {
        SystemCall.close(descriptor)
    }

    /// `AUTH EXTERNAL <uid as hex of its decimal digits>`, `OK <guid>`, `BEGIN` (the
    /// specification's "Authentication Protocol"); the bus checks the socket's credentials.
    private func authenticate(timeout: Int32) throws(DeviceError) {
        let hex = Array("0123456789abcdef".utf8)
        let uid = String(
            decoding: Array(String(getuid()).utf8).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]] },
            as: UTF8.self
        )
        try SystemCall.writeAll(descriptor, [0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8), target: address)
        var line: [UInt8] = []
        while line.count < 2 || line.suffix(2) != [13, 10] {
            guard line.count < 512 else { throw .malformed(path: address, reason: "an authentication line too long") }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard try SystemCall.checked("poll", address, { poll(&waiting, 1, timeout) }) > 0 else {
                throw .system(call: "authenticate", target: address, errno: ETIMEDOUT)
            }
            var byte: UInt8 = 0
            let count = try SystemCall.checked("read", address) { read(descriptor, &byte, 1) }
            guard count == 1 else { throw .system(call: "authenticate", target: address, errno: ECONNRESET) }
            line.append(byte)
        }
        let answer = String(decoding: line.dropLast(2), as: UTF8.self)
        guard answer.hasPrefix("OK ") else {
            throw .malformed(path: address, reason: "the bus refused authentication: \(answer.prefix(80))")
        }
        try SystemCall.writeAll(descriptor, Array("BEGIN\r\n".utf8), target: address)
    }

    /// Sends `message` with the next serial; returns the serial.
    @discardableResult
    func send(_ message: DBusMessage) throws(DeviceError) -> UInt32 {
        var message = message
        message.serial = state.withLock { state in
            defer { state.nextSerial = state.nextSerial == UInt32.max ? 1 : state.nextSerial + 1 }
            return state.nextSerial
        }
        let bytes: [UInt8]
        do {
            bytes = try message.encoded()
        } catch {
            throw .malformed(path: address, reason: error.description)
        }
        try SystemCall.writeAll(descriptor, bytes, target: address)
        return message.serial
    }

    /// Sends a method call with string arguments; returns its serial.
    @discardableResult
    func call(
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ member: String,
        _ strings: [String] = []
    ) throws(DeviceError) -> UInt32 {
        try send(.call(destination, path, interface, member, strings))
    }

    /// Reads what has arrived and returns the whole messages in it; an end of stream is
    /// `ECONNRESET`, a malformed message `DeviceError.malformed`. At most ``DBusMessage/maximumSize``
    /// bytes wait for a message's end.
    func drain() throws(DeviceError) -> [DBusMessage] {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var arrived: [UInt8] = []
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                arrived += chunk[0..<count]
                if arrived.count >= DBusMessage.maximumSize { break }  // the rest on the next call
                continue
            }
            if count == 0 { throw .system(call: "read", target: address, errno: ECONNRESET) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { break }
            throw .system(call: "read", target: address, errno: errno)
        }
        return try state.withLock { state throws(DeviceError) -> [DBusMessage] in
            state.buffer += arrived
            var messages: [DBusMessage] = []
            do throws(DBusError) {
                while let size = try DBusMessage.size(of: state.buffer[...]), state.buffer.count >= size {
                    messages.append(try DBusMessage(decoding: Array(state.buffer[0..<size])))
                    state.buffer.removeFirst(size)
                }
            } catch {
                throw .malformed(path: address, reason: error.description)
            }
            return messages
        }
    }

    /// Waits up to `timeout` milliseconds for the socket to be readable, then drains it.
    func receive(timeout: Int32) throws(DeviceError) -> [DBusMessage] {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard try SystemCall.checked("poll", address, { poll(&waiting, 1, timeout) }) > 0 else { return [] }
        return try drain()
    }
}
