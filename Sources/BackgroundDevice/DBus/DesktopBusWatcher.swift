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
/// reads every property again; only then does `poll` wait without a timeout again.
///
/// A bus whose socket (`unix:path=`) does not exist, at creation or when an attempt to reconnect
/// finds it gone, is waited for without a timer: inotify on the socket's directory, and when a
/// file of the socket's name is created or moved there, the reconnect path above connects (a
/// socket that exists but does not listen yet is retried with the backoff). Meanwhile every
/// value is unavailable with "D-Bus system bus absent (<path> does not exist); waiting for it"
/// (or, after a loss, the loss). Where the directory itself does not exist (or the address is
/// abstract), nothing is waited for: the values say so and the daemon uses the defaults.
public final class DesktopBusWatcher: DeviceWatcher {
    private struct Link: Sendable {
        var connection: DBusConnection?
        var backoff: ReconnectBackoff
        /// Watching the absent socket's directory.
        var absent: Inotify?
    }

    private let address: String
    private let link: Mutex<Link>
    private let state = Mutex(DesktopBusState())
    /// The socket file's name in the watched directory while absent.
    private let socketName = Mutex("")
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
            if let problem = awaitSocket(after: error, problem: nil) { reset(problem: problem) }
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
        let watching = link.withLock { $0.connection != nil || $0.backoff.next != nil || $0.absent != nil }
        guard watching else { return }  // no bus and no directory to watch: nothing to watch
        try thread.start(
            .init(
                sources: { [weak self] in self?.sources(handler) ?? [] },
                timeout: { [weak self] in self?.link.withLock { $0.backoff.timeout(at: Self.now()) } ?? -1 },
                timedOut: { [weak self] in self?.reconnect(handler) },
                failed: { handler(.failed($0)) }
            )
        )
    }

    /// The connection's socket while connected; the socket's directory's inotify while it is
    /// absent; nothing while waiting to reconnect.
    private func sources(_ handler: @escaping @Sendable (WatchEvent) -> Void) -> [PollThread.Source] {
        let (connection, absent) = link.withLock { ($0.connection, $0.absent) }
        if let absent { return [appearance(absent)] }
        guard let connection else { return [] }
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
                link.absent = nil
                link.backoff.connected()
            }
            handler(.changed)
        } catch {
            reset(problem: loss)
            if awaitSocket(after: error, problem: loss) != nil { return }  // gone: wait for it to appear
            link.withLock { $0.backoff.failed(at: Self.now()) }
        }
    }

    /// After a failed connection: where the socket file does not exist but its directory does,
    /// watches the directory (no attempt is due until it appears) and returns `problem` or, when
    /// nil, "absent; waiting for it"; otherwise nothing is watched and it returns why (`nil`
    /// when the failure was something else and the caller's own handling applies, with a
    /// `problem` given).
    private func awaitSocket(after error: DeviceError, problem: String?) -> String? {
        let unwatched = problem == nil ? "no D-Bus system bus (\(error))" : nil
        guard error.errno == ENOENT, let bytes = DBusConnection.socketPath(of: address),
            bytes.first == UInt8(ascii: "/")
        else { return unwatched }
        let path = String(decoding: bytes, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return unwatched }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        let inotify: Inotify
        do {
            inotify = try Inotify()
            try inotify.watch(directory, mask: UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR))
        } catch {
            let why = error.errno == ENOENT ? "\(directory) does not exist" : "\(error)"
            return unwatched.map { "\($0); not waited for: \(why)" }
        }
        socketName.withLock { $0 = name }
        // Created between the failed connect and the watch, no event will come for it: try now.
        let appeared = access(path, F_OK) == 0
        link.withLock { link in
            link.absent = appeared ? nil : inotify
            if appeared { link.backoff.appeared(at: Self.now()) } else { link.backoff.awaiting() }
        }
        return problem ?? "D-Bus system bus absent (\(path) does not exist); waiting for it"
    }

    /// The absent socket's directory: when the socket's name is created or moved in (or the
    /// queue overflowed, or the watch ended), stop watching and let the reconnect path try now.
    private func appearance(_ inotify: Inotify) -> PollThread.Source {
        PollThread.Source(descriptor: inotify.descriptor, events: Int16(POLLIN)) { [weak self] _ in
            guard let self else { return }
            let name = self.socketName.withLock { $0 }
            let events = (try? inotify.drain()) ?? [Inotify.Event(watch: -1, mask: 0, name: "")]
            let appeared = events.contains { $0.name == name || $0.watch == -1 || $0.mask & UInt32(IN_IGNORED) != 0 }
            guard appeared else { return }
            self.link.withLock { link in
                guard link.absent === inotify else { return }
                link.absent = nil
                link.backoff.appeared(at: Self.now())
            }
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
