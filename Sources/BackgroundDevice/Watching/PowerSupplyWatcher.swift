import Glibc

/// Wakes when a power supply changes: inotify on `sys/class/power_supply` and each supply's
/// directory (new or removed supplies, and attribute files written in a fake tree), plus, on the
/// real machine, the kernel's uevents for `SUBSYSTEM=power_supply` over netlink: sysfs does not
/// raise inotify events for attribute changes, the kernel announces them as `change` uevents
/// (`power_supply_changed()`).
public final class PowerSupplyWatcher: DeviceWatcher {
    private let root: ProbeRoot
    private let kernelEvents: Bool
    private let thread: PollThread
    private let inotify: Inotify

    /// A watcher of `root`'s power supplies; `kernelEvents` (default: only for the real machine)
    /// adds the uevent socket.
    public init(root: ProbeRoot = .machine, kernelEvents: Bool? = nil) throws(DeviceError) {
        self.root = root
        self.kernelEvents = kernelEvents ?? root.isMachine
        thread = try PollThread(name: "bg-power")
        inotify = try Inotify()
    }

    deinit {
        thread.stop()
    }

    private static let directoryMask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM)
    private static let supplyMask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_TO)

    public func start(_ handler: @escaping @Sendable (WatchEvent) -> Void) throws(DeviceError) {
        let directory = root.resolve(SysfsPowerProbe.directory)
        var sources: [PollThread.Source] = []
        if root.exists(SysfsPowerProbe.directory) {
            try inotify.watch(directory, mask: Self.directoryMask)
            try watchSupplies()
            let inotify = self.inotify
            sources.append(
                .init(descriptor: inotify.descriptor, events: Int16(POLLIN)) { [weak self] _ in
                    do throws(DeviceError) {
                        let events = try inotify.drain()
                        guard !events.isEmpty else { return }
                        try self?.watchSupplies()
                        handler(.changed)
                    } catch {
                        handler(.failed(error))
                    }
                }
            )
        }
        if kernelEvents {
            let socket = try NetlinkSocket(
                family: NetlinkSocket.kernelEvents,
                groups: NetlinkSocket.kernelUeventGroup,
                name: "uevent netlink"
            )
            sources.append(
                .init(descriptor: socket.descriptor, events: Int16(POLLIN)) { _ in
                    do throws(DeviceError) {
                        let datagrams = try socket.drain()
                        if datagrams.contains(where: {
                            $0.isEmpty || NetlinkSocket.isUevent($0, subsystem: "power_supply")
                        }) {
                            handler(.changed)
                        }
                    } catch {
                        handler(.failed(error))
                    }
                }
            )
        }
        if sources.isEmpty {
            throw .system(call: "inotify_add_watch", target: directory, errno: ENOENT)
        }
        let fixed = sources
        try thread.start(.init(sources: { fixed }, failed: { handler(.failed($0)) }))
    }

    /// Adds a watch on every supply directory (existing ones keep theirs).
    private func watchSupplies() throws(DeviceError) {
        for name in try root.list(SysfsPowerProbe.directory) ?? [] {
            do throws(DeviceError) {
                try inotify.watch(root.resolve(SysfsPowerProbe.directory + "/" + name), mask: Self.supplyMask)
            } catch {
                // A supply removed between the listing and the watch is not an error.
                if error.errno != ENOENT && error.errno != ENOTDIR { throw error }
            }
        }
    }

    public func stop() {
        thread.stop()
    }
}
