import BackgroundTestSupport
import Foundation
import Glibc
import Synchronization

@testable import BackgroundDevice

/// A private `dbus-daemon` on a socket in a temporary directory, for the desktop sources' tests:
/// the system bus's protocol without the system's bus (there is none on this project's machines).
final class PrivateBus {
    /// Where `dbus-daemon` is, if installed (Debian package `dbus-daemon`; `.ci/run` installs it).
    static let executable = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    /// Whether every optional tool is required (`BACKGROUND_REQUIRE_ALL_TESTS=1`, as in CI).
    static let required = ProcessInfo.processInfo.environment["BACKGROUND_REQUIRE_ALL_TESTS"] == "1"

    let directory: String
    let address: String
    private var process = Process()

    /// Starts the daemon with a configuration that lets any client own any name and talk to any
    /// other, and waits (at most 10 s, polling with `Task.sleep`, so no thread of the
    /// cooperative pool is held) until it accepts a client.
    init() async throws {
        guard let executable = Self.executable else { throw CocoaError(.fileNoSuchFile) }
        var template = Array("/tmp/bg-dbus-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        directory = String(cString: made)
        address = "unix:path=\(directory)/bus"
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>custom</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow own="*"/>
                <allow send_destination="*"/>
                <allow receive_sender="*"/>
              </policy>
            </busconfig>
            """
        try configuration.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        try await launch(executable)
    }

    private func launch(_ executable: String) async throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The socket file appears before the daemon listens: wait until a client authenticates.
        let deadline = Date().addingTimeInterval(10)
        while (try? DBusConnection(address: address)) == nil, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Kills the daemon (every client's connection ends), awaits its end without holding a
    /// thread, and removes its socket.
    func kill() async {
        // dbus-daemon does not end on SIGTERM (it only reloads on SIGHUP): SIGKILL, then reap it.
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        await process.ended()
        unlink(directory + "/bus")
    }

    /// Starts a new daemon at the same address (after ``kill()``).
    func restart() async throws {
        await kill()
        guard let executable = Self.executable else { throw CocoaError(.fileNoSuchFile) }
        try await launch(executable)
    }

    deinit {
        // SIGKILL, reaped on a thread of its own (the deinit runs on one of the cooperative pool's).
        process.killWithoutWaiting()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A service on a ``PrivateBus`` standing for power-profiles-daemon, logind or NetworkManager:
/// it owns its name, answers `Properties.Get` from its table and emits `PropertiesChanged` when
/// the test sets a property. Built on the library's own ``DBusConnection``.
final class FakeBusService: Sendable {
    private let connection: DBusConnection
    private let properties: Mutex<[BusProperty: DBusValue]>
    private let stopped = Mutex(false)

    /// Connects, owns `name` (waiting for the bus's answer, up to 5 s), then answers on a thread
    /// of its own. All of it runs on a thread of its own: the waits block.
    static func start(
        address: String,
        name: String,
        properties: [BusProperty: DBusValue]
    ) async throws -> FakeBusService {
        try await onDedicatedThread { try FakeBusService(address: address, name: name, properties: properties) }
    }

    private init(address: String, name: String, properties: [BusProperty: DBusValue]) throws {
        connection = try DBusConnection(address: address)
        self.properties = Mutex(properties)
        let bus = DBusMessage.bus
        try connection.call(bus.name, bus.path, bus.name, "Hello")
        var request = DBusMessage.call(bus.name, bus.path, bus.name, "RequestName", [name])
        request.signature = "su"
        request.body.append(.uint(4))  // DBUS_NAME_FLAG_DO_NOT_QUEUE
        let serial = try connection.send(request)
        let deadline = Date().addingTimeInterval(5)
        var owned = false
        while !owned, Date() < deadline {
            for message in try connection.receive(timeout: 100) {
                if message.replySerial == serial, message.kind == .methodReturn { owned = true }
                answer(message)  // a Get may come as soon as the name is owned
            }
        }
        guard owned else { throw CocoaError(.featureUnsupported) }
        Thread.detachNewThread { [self] in
            while !stopped.withLock({ $0 }) {
                // The bus gone (killed by a test): stop answering rather than spin on a dead socket.
                guard let messages = try? connection.receive(timeout: 50) else { break }
                for message in messages { answer(message) }
            }
            _ = shutdown(connection.descriptor, Int32(SHUT_RDWR))  // the bus sees it leave now
        }
    }

    /// Stops answering and leaves the bus: the answering thread shuts the connection down within
    /// its next 50 ms receive, without the caller waiting (a test sees it leave on the bus).
    func stop() {
        stopped.withLock { $0 = true }
    }

    private func answer(_ call: DBusMessage) {
        guard call.kind == .methodCall, call.member == "Get", call.body.count == 2, let interface = call.body[0].text,
            let name = call.body[1].text
        else { return }
        let value = properties.withLock { table in
            table.first { $0.key.path == call.path && $0.key.interface == interface && $0.key.name == name }?.value
        }
        var reply = DBusMessage(kind: value == nil ? .error : .methodReturn)
        reply.replySerial = call.serial
        reply.destination = call.sender
        if let value {
            reply.signature = "v"
            reply.body = [value]
        } else {
            reply.errorName = "org.freedesktop.DBus.Error.UnknownProperty"
        }
        _ = try? connection.send(reply)
    }

    /// Sets a property and emits `PropertiesChanged` for it.
    func set(_ property: BusProperty, _ value: DBusValue) throws {
        properties.withLock { $0[property] = value }
        var signal = DBusMessage(kind: .signal)
        signal.path = property.path
        signal.interface = "org.freedesktop.DBus.Properties"
        signal.member = "PropertiesChanged"
        signal.signature = "sa{sv}as"
        signal.body = [.string(property.interface), .dictionary([.string(property.name): value]), .array([])]
        try connection.send(signal)
    }
}
