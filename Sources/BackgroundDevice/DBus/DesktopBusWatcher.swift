import Glibc
import Synchronization

/// The desktop's own answers over the D-Bus system bus, event-driven: power-profiles-daemon's
/// `ActiveProfile` (`power-saver` is Low Power Mode), logind's `IdleHint` (the user is away) and
/// the `LockedHint` of seat0's active session (unlocked since boot once it reads false), and
/// NetworkManager's `Metered`.
///
/// At creation it connects, subscribes (`AddMatch` on each object's `PropertiesChanged` from its
/// service, and on each service's `NameOwnerChanged`, so a service that starts later is picked up)
/// and reads each property once (`org.freedesktop.DBus.Properties.Get`), waiting at most
/// `timeout` for the answers; ``start(_:)`` then waits in `poll` on the socket: no bus traffic, no
/// CPU. Where there is no bus or no service, each value is `unavailable` with the reason, and the
/// daemon uses the documented default. The rules are ``DesktopBusState``'s.
public final class DesktopBusWatcher: DeviceWatcher {
    private let connection: DBusConnection?
    private let state = Mutex(DesktopBusState())
    private let thread: PollThread

    /// Connects to the bus at `address` (the system bus by default: `DBUS_SYSTEM_BUS_ADDRESS`, else
    /// `/run/dbus/system_bus_socket`) and reads the properties, waiting at most `timeout`
    /// milliseconds. A missing bus is not an error: it becomes every value's reason.
    public init(address: String? = nil, timeout: Int32 = 1000) throws(DeviceError) {
        thread = try PollThread(name: "bg-dbus")
        let address = address ?? DBusConnection.systemBusAddress
        let connection: DBusConnection
        do {
            connection = try DBusConnection(address: address)
        } catch {
            self.connection = nil
            state.withLock { $0.problem = "no D-Bus system bus (\(error))" }
            return
        }
        self.connection = connection
        do {
            try subscribe(connection)
            try settle(connection, timeout: timeout)
        } catch {
            state.withLock { $0.problem = "the D-Bus system bus at \(address) failed (\(error))" }
        }
    }

    deinit {
        thread.stop()
    }

    private func subscribe(_ connection: DBusConnection) throws(DeviceError) {
        let bus = DBusMessage.bus
        try connection.call(bus.name, bus.path, bus.name, "Hello")
        var rules = BusProperty.watched.map(\.changesRule)
        rules += BusProperty.watched.map(\.service).map(BusProperty.ownerRule)
        var seen: Set<String> = []
        for rule in rules where seen.insert(rule).inserted {  // in the fixed order above, each once
            try connection.call(bus.name, bus.path, bus.name, "AddMatch", [rule])
        }
        for property in BusProperty.watched { try get(property, connection) }
    }

    private func get(_ property: BusProperty, _ connection: DBusConnection) throws(DeviceError) {
        let serial = try connection.call(
            property.service,
            property.path,
            "org.freedesktop.DBus.Properties",
            "Get",
            [property.interface, property.name]
        )
        state.withLock { $0.pending[serial] = property }
    }

    /// Handles what arrives until every `Get` (and those they lead to) is answered, or `timeout`.
    private func settle(_ connection: DBusConnection, timeout: Int32) throws(DeviceError) {
        var waited: Int32 = 0
        while state.withLock({ !$0.pending.isEmpty }), waited < timeout {
            _ = try handle(connection.receive(timeout: 50), connection)
            waited += 50
        }
    }

    /// Applies replies and signals, sends the `Get`s they call for; whether a value changed.
    private func handle(_ messages: [DBusMessage], _ connection: DBusConnection) throws(DeviceError) -> Bool {
        let (changed, refetch) = state.withLock { $0.apply(messages) }
        for property in refetch {
            if property.name == "LockedHint" {
                let bus = DBusMessage.bus
                try connection.call(bus.name, bus.path, bus.name, "AddMatch", [property.changesRule])
            }
            try get(property, connection)
        }
        return changed
    }

    public func start(_ handler: @escaping @Sendable (WatchEvent) -> Void) throws(DeviceError) {
        guard let connection, state.withLock({ $0.problem == nil }) else { return }
        let source = PollThread.Source(descriptor: connection.descriptor, events: Int16(POLLIN)) { [weak self] _ in
            guard let self else { return }
            do throws(DeviceError) {
                if try self.handle(connection.drain(), connection) { handler(.changed) }
            } catch {
                self.state.withLock { state in
                    state.problem = "the D-Bus connection ended (\(error))"
                    state.values = [:]
                }
                handler(.changed)
                handler(.failed(error))
            }
        }
        try thread.start(.init(sources: { [source] }, failed: { handler(.failed($0)) }))
    }

    public func stop() {
        thread.stop()
    }

    /// Low Power Mode: power-profiles-daemon's `ActiveProfile` is `power-saver`.
    public func lowPowerMode() -> Probed<Bool> { state.withLock { $0.lowPowerMode } }

    /// Whether the user is away: logind's `IdleHint`.
    public func idleHint() -> Probed<Bool> { state.withLock { $0.idleHint } }

    /// Unlocked since boot: seat0's active session's `LockedHint` read false since the start.
    public func unlockedSinceBoot() -> Probed<Bool> { state.withLock { $0.unlockedSinceBoot } }

    /// Whether the network is metered: NetworkManager's `Metered`.
    public func metered() -> Probed<Bool> { state.withLock { $0.metered } }
}
