import BackgroundPosix
import Glibc

/// Wakes when memory pressure crosses a ``PressureTrigger``: the trigger is written to the PSI
/// file (a cgroup's `memory.pressure` or `/proc/pressure/memory`) and the thread waits in
/// `poll()` for `POLLPRI`, as `Documentation/accounting/psi.rst` describes. The kernel then
/// wakes it at most once per window while the pressure lasts; `POLLERR` means the file went
/// away (its cgroup was removed) and ends the watcher with a failure.
public final class MemoryPressureWatcher: DeviceWatcher {
    /// The PSI file's path.
    public let path: String
    /// The trigger written to it.
    public let trigger: PressureTrigger
    private let thread: PollThread

    /// A watcher of the PSI file `relative` under `root` (``ProcMemoryPressureProbe/stallFile``
    /// gives the one the probe reads).
    public init(
        root: ProbeRoot = .machine,
        file relative: String,
        trigger: PressureTrigger = .default
    ) throws(DeviceError) {
        path = root.resolve(relative)
        self.trigger = trigger
        thread = try PollThread(name: "bg-memory")
    }

    deinit {
        thread.stop()
    }

    /// Opens the file, writes the trigger, starts the thread.
    /// - Throws: the `open` or `write` failure; `EINVAL` from `write` is the kernel refusing the
    ///   trigger (a window not a multiple of 2 s without `CAP_SYS_RESOURCE`), `EOPNOTSUPP`
    ///   a kernel booted with `psi=0`.
    public func start(_ handler: @escaping @Sendable (WatchEvent) -> Void) throws(DeviceError) {
        let path = self.path
        let descriptor = try SystemCall.checked("open", path) {
            open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        }
        let file = OwnedDescriptor(descriptor)
        try SystemCall.writeAll(descriptor, trigger.bytes, target: path)
        let source = PollThread.Source(descriptor: descriptor, events: Int16(POLLPRI)) { revents in
            if revents & Int16(POLLERR) != 0 {
                handler(.failed(.system(call: "poll", target: path, errno: ENODEV)))
            } else {
                handler(.changed)
            }
            _ = file
        }
        try thread.start(.init(sources: { [source] }, failed: { handler(.failed($0)) }))
    }

    public func stop() {
        thread.stop()
    }
}

/// A descriptor closed when the last reference goes (the watcher's source holds it).
final class OwnedDescriptor: Sendable {
    let descriptor: Int32

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        SystemCall.close(descriptor)
    }
}
