import BackgroundPosix
import Glibc
import Synchronization

/// User activity from input devices: every `event*` node under `dev/input` is opened read-only
/// and drained as it becomes readable; any event is activity. No input for
/// ``IdleTimer/idleAfter`` makes the user idle (one `poll` timeout, not a polling loop).
/// Devices that come and go are followed with inotify on `dev/input`.
///
/// Only a person's devices count: each node's capabilities are read from
/// `sys/class/input/<node>/device/capabilities` (``InputCapabilities``) and a device that is not
/// a keyboard or a pointer (a lid switch, an accelerometer, a power button) is not opened; its
/// name is listed with "not a keyboard or pointer". A node whose capabilities cannot be read (no
/// sysfs, as in a container) is opened and counts, since nothing says it is not a person.
///
/// Without `dev/input`, or with no event device this process may open, ``idleness()`` is
/// unavailable with the reason, and the reading uses its default (idle: nobody can type on a
/// machine without input devices). Never guessed from the load average.
///
/// Event nodes are character devices; a FIFO is accepted too so tests can write "events" into a
/// fake tree.
public final class InputActivityWatcher: DeviceWatcher {
    /// The directory under the root.
    public static let directory = "dev/input"

    private struct State {
        var timer: IdleTimer
        var devices: [String: OwnedDescriptor] = [:]
        var problems: [String: String] = [:]
    }

    private let root: ProbeRoot
    private let thread: PollThread
    private let inotify: Inotify
    private let state: Mutex<State>

    /// A watcher of `root`'s input devices that calls the user idle after `idleAfter`.
    public init(root: ProbeRoot = .machine, idleAfter: Duration = IdleTimer.defaultIdleAfter) throws(DeviceError) {
        self.root = root
        thread = try PollThread(name: "bg-input")
        inotify = try Inotify()
        state = Mutex(State(timer: IdleTimer(idleAfter: idleAfter, start: Self.now())))
    }

    deinit {
        thread.stop()
    }

    /// CLOCK_MONOTONIC in nanoseconds.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Whether the user is idle, and from which devices; unavailable (with why) when no input
    /// device can be read.
    public func idleness() -> Probed<Bool> {
        state.withLock { state in
            if state.devices.isEmpty {
                let reasons = state.problems.keys.sorted().map { "\($0): \(state.problems[$0]!)" }
                let directory = root.resolve(Self.directory)
                if !root.exists(Self.directory) { return .unavailable(reason: "no \(directory)") }
                return .unavailable(
                    reason: reasons.isEmpty ? "no input device in \(directory)" : reasons.joined(separator: "; ")
                )
            }
            let names = state.devices.keys.sorted().joined(separator: ", ")
            return .read(state.timer.isIdle, from: "input from \(names)")
        }
    }

    public func start(_ handler: @escaping @Sendable (WatchEvent) -> Void) throws(DeviceError) {
        if root.exists(Self.directory) {
            try inotify.watch(
                root.resolve(Self.directory),
                mask: UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO)
            )
        }
        try rescan()
        let inotify = self.inotify
        let directoryWatch = PollThread.Source(descriptor: inotify.descriptor, events: Int16(POLLIN)) { [weak self] _ in
            do throws(DeviceError) {
                guard !(try inotify.drain()).isEmpty else { return }
                try self?.rescan()
                handler(.changed)
            } catch {
                handler(.failed(error))
            }
        }
        try thread.start(
            .init(
                sources: { [weak self] in [directoryWatch] + (self?.deviceSources(handler) ?? []) },
                timeout: { [weak self] in
                    // No device, nothing to time: wait for one to appear.
                    self?.state.withLock { $0.devices.isEmpty ? -1 : $0.timer.timeoutMilliseconds(at: Self.now()) }
                        ?? -1
                },
                timedOut: { [weak self] in
                    if self?.state.withLock({ $0.timer.check(at: Self.now()) }) == true { handler(.changed) }
                },
                failed: { handler(.failed($0)) }
            )
        )
    }

    public func stop() {
        thread.stop()
    }

    private func deviceSources(_ handler: @escaping @Sendable (WatchEvent) -> Void) -> [PollThread.Source] {
        let devices = state.withLock { state in state.devices.sorted { $0.key < $1.key } }
        return devices.map { name, device in
            PollThread.Source(descriptor: device.descriptor, events: Int16(POLLIN)) { [weak self] revents in
                self?.drain(name, device, revents: revents, handler)
            }
        }
    }

    /// Reads what the device has; drops it at end of file, hang-up or `ENODEV` (unplugged).
    private func drain(
        _ name: String,
        _ device: OwnedDescriptor,
        revents: Int16,
        _ handler: @Sendable (WatchEvent) -> Void
    ) {
        var buffer = [UInt8](repeating: 0, count: 24 * 64)
        var gotInput = false
        var gone = false
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(device.descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                gotInput = true
                continue
            }
            if count < 0 && errno == EINTR { continue }
            gone = count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
            break
        }
        if revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { gone = true }
        let changed = state.withLock { state in
            if gone { state.devices[name] = nil }
            return gotInput && state.timer.activity(at: Self.now())
        }
        if changed || gone { handler(.changed) }
    }

    /// Opens every `event*` node not open yet and forgets the ones that disappeared.
    private func rescan() throws(DeviceError) {
        let names = (try root.list(Self.directory) ?? []).filter { $0.hasPrefix("event") }
        state.withLock { state in
            for name in state.devices.keys where !names.contains(name) { state.devices[name] = nil }
            state.problems = [:]
            for name in names where state.devices[name] == nil {
                if capabilities(of: name)?.kind == .other {
                    state.problems[name] = "not a keyboard or pointer"
                    continue
                }
                switch open(name) {
                case .opened(let device): state.devices[name] = device
                case .refused(let why): state.problems[name] = why
                }
            }
        }
    }

    /// The sysfs directory holding a node's capability bitmaps.
    static func capabilitiesDirectory(of name: String) -> String {
        "sys/class/input/\(name)/device/capabilities/"
    }

    /// The node's capabilities, or `nil` when `ev` is missing or a bitmap unreadable (a missing
    /// `key`, `rel` or `abs` reads as empty: the kernel always writes all four).
    private func capabilities(of name: String) -> InputCapabilities? {
        let base = Self.capabilitiesDirectory(of: name)
        func text(_ file: String) -> String? { try? root.read(base + file) }
        guard let ev = text("ev") else { return nil }
        return InputCapabilities(ev: ev, key: text("key") ?? "0", rel: text("rel") ?? "0", abs: text("abs") ?? "0")
    }

    private enum Opening {
        case opened(OwnedDescriptor)
        case refused(String)
    }

    private func open(_ name: String) -> Opening {
        let path = root.resolve(Self.directory + "/" + name)
        let descriptor: Int32
        do {
            descriptor = try SystemCall.checked("open", path) {
                Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
            }
        } catch {
            return .refused(DeviceError.message(for: error.errno ?? EIO))
        }
        let device = OwnedDescriptor(descriptor)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .refused(DeviceError.message(for: errno)) }
        let type = info.st_mode & S_IFMT
        guard type == S_IFCHR || type == S_IFIFO else { return .refused("not a character device") }
        return .opened(device)
    }
}
