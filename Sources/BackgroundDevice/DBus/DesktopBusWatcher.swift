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
///
/// When a connection that was working ends (the bus restarted, a malformed message), every value
/// is unavailable with "D-Bus system bus lost" and the watcher connects again with a backoff
/// (``ReconnectBackoff``: `reconnectAfter`, doubling up to `reconnectAtMost`), subscribes and
/// reads every property again; only then does `poll` wait without a timeout again. A bus that was
/// not there at creation is not waited for.
public final class DesktopBusWatcher: DeviceWatcher {
    private struct Link: Sendable {
        var connection: DBusConnection?
        var backoff: ReconnectBackoff
    }

    private let address: String
    private let link: Mutex<Link>
    private let state = Mutex(DesktopBusState())
    private let thread: PollThread

    /// Connects to the bus at `address` (the system bus by default: `DBUS_SYSTEM_BUS_ADDRESS`, else
    /// `/run/dbus/system_bus_socket`) and reads the properties, waiting at most `timeout`
    /// milliseconds. A missing bus is not an error: it becomes every value's reason. A lost
    /// connection is tried again `reconnectAfter` milliseconds later, then at twice the last wait,
    /// at most `reconnectAtMost`.
    public init(
        address: String? = nil,
        timeout: Int32 = 1000,
        reconnectAfter: Int64 = 500,
        reconnectAtMost: Int64 = 30_000
    ) throws(DeviceError) {
        thread = try PollThread(name: "bg-dbus")
        let address = address ?? DBusConnection.systemBusAddress
        self.address = address
        link = Mutex(Link(connection: nil, backoff: ReconnectBackoff(first: reconnectAfter, most: reconnectAtMost)))
        let connection: DBusConnection
        do {
            connection = try DBusConnection(address: address)
        } catch {
            state.withLock { $0.problem = "no D-Bus system bus (\(error))" }
            return
        }
        link.withLock { $0.connection = connection }
        do {
            try subscribe(connection)
            try settle(connection, timeout: timeout)
        } catch {
            lose(connection, error)
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
        let watching = link.withLock { $0.connection != nil || $0.backoff.next != nil }
        guard watching else { return }  // no bus at creation: nothing to watch
        try thread.start(
            .init(
                sources: { [weak self] in self?.sources(handler) ?? [] },
                timeout: { [weak self] in self?.link.withLock { $0.backoff.timeout(at: Self.now()) } ?? -1 },
                timedOut: { [weak self] in self?.reconnect(handler) },
                failed: { handler(.failed($0)) }
            )
        )
    }

    /// The connection's socket while connected; nothing while waiting to reconnect.
    private func sources(_ handler: @escaping @Sendable (WatchEvent) -> Void) -> [PollThread.Source] {
        guard let connection = link.withLock({ $0.connection }) else { return [] }
        let source = PollThread.Source(descriptor: connection.descriptor, events: Int16(POLLIN)) { [weak self] _ in
            guard let self else { return }
            do throws(DeviceError) {
                if try self.handle(connection.drain(), connection) { handler(.changed) }
            } catch {
                self.lose(connection, error)
                handler(.changed)
            }
        }
        return [source]
    }

    /// The connection ended: every value unavailable ("bus lost"), a reconnection scheduled.
    private func lose(_ connection: DBusConnection, _ error: DeviceError) {
        link.withLock { link in
            guard link.connection === connection else { return }
            link.connection = nil
            link.backoff.lost(at: Self.now())
        }
        reset(problem: "D-Bus system bus lost (\(error)); reconnecting")
    }

    /// Forgets every value, owner and pending call; "unlocked since boot" stays if it was true.
    private func reset(problem: String?) {
        state.withLock { state in
            var fresh = DesktopBusState()
            fresh.everUnlocked = state.everUnlocked
            fresh.problem = problem
            state = fresh
        }
    }

    /// Called when the backoff's wait ends: connect, subscribe, read every property again (the
    /// answers arrive through `poll`); on failure wait longer, and the loss stays the reason.
    private func reconnect(_ handler: @escaping @Sendable (WatchEvent) -> Void) {
        let now = Self.now()
        guard link.withLock({ $0.connection == nil && $0.backoff.isDue(at: now) }) else { return }
        let loss = state.withLock { $0.problem }
        do {
            let connection = try DBusConnection(address: address)
            reset(problem: nil)
            try subscribe(connection)
            link.withLock { link in
                link.connection = connection
                link.backoff.connected()
            }
            handler(.changed)
        } catch {
            reset(problem: loss)
            link.withLock { $0.backoff.failed(at: Self.now()) }
        }
    }

    /// CLOCK_MONOTONIC in milliseconds.
    static func now() -> Int64 {
        InputActivityWatcher.now() / 1_000_000
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
