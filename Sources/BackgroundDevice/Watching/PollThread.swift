import BackgroundPosix
import Glibc
import Synchronization

/// One blocking thread per watcher: it waits in `poll(2)` on the watcher's descriptors and an
/// `eventfd` that ``stop()`` signals, so a watcher costs no CPU until the kernel has news.
package final class PollThread: Sendable {
    /// A descriptor to wait on and what to do when it is ready.
    package struct Source: Sendable {
        /// The descriptor.
        package var descriptor: Int32
        /// `POLLIN`, `POLLPRI`, …
        package var events: Int16
        /// Called on the thread with `revents`.
        package var ready: @Sendable (Int16) -> Void

        /// Creates a source.
        package init(descriptor: Int32, events: Int16, ready: @escaping @Sendable (Int16) -> Void) {
            self.descriptor = descriptor
            self.events = events
            self.ready = ready
        }
    }

    /// What the thread runs: the current sources (re-read every round, so a watcher can add and
    /// drop descriptors), the timeout in milliseconds (-1 for none) and what to do on timeout
    /// and on a failed `poll`.
    package struct Body: Sendable {
        package var sources: @Sendable () -> [Source]
        package var timeout: @Sendable () -> Int32
        package var timedOut: @Sendable () -> Void
        package var failed: @Sendable (DeviceError) -> Void

        /// Creates a body; by default with no timeout.
        package init(
            sources: @escaping @Sendable () -> [Source],
            timeout: @escaping @Sendable () -> Int32 = { -1 },
            timedOut: @escaping @Sendable () -> Void = {},
            failed: @escaping @Sendable (DeviceError) -> Void
        ) {
            self.sources = sources
            self.timeout = timeout
            self.timedOut = timedOut
            self.failed = failed
        }
    }

    private struct State {
        var thread: pthread_t?
        var stopped = false
    }

    private let name: String
    private let wake: Int32
    private let wakeWriter: Int32
    private let state = Mutex(State())

    /// A thread for the watcher called `name`: its name in `ps -L` and `/proc/<pid>/task/*/comm`
    /// (at most 15 bytes) and in errors; not started.
    package init(name: String) throws(DeviceError) {
        self.name = name
        // A socket pair rather than an eventfd or pipe2 (Glibc's Swift module exports neither):
        // created close-on-exec atomically, so a child spawned meanwhile never inherits it.
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        try SystemCall.checked("socketpair", name) { socketpair(AF_UNIX, type, 0, &ends) }
        wake = ends[0]
        wakeWriter = ends[1]
    }

    deinit {
        SystemCall.close(wake)
        SystemCall.close(wakeWriter)
    }

    /// Starts the thread running `body` until ``stop()``.
    package func start(_ body: Body) throws(DeviceError) {
        let box = Unmanaged.passRetained(Runner(body: body, wake: wake, name: name)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread,
            nil,
            { raw in
                Unmanaged<Runner>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            },
            box
        )
        guard result == 0 else {
            Unmanaged<Runner>.fromOpaque(box).release()
            throw .system(call: "pthread_create", target: name, errno: result)
        }
        state.withLock { $0.thread = thread }
    }

    /// Wakes the thread, waits for it to finish its round and end. Safe to call twice, and from
    /// any thread but its own (a watcher's callback must not stop its own watcher).
    package func stop() {
        let thread: pthread_t? = state.withLock { state in
            defer { state.thread = nil }
            state.stopped = true
            return state.thread
        }
        guard let thread else { return }
        var one: UInt8 = 1
        _ = try? SystemCall.checked("write", name) { Glibc.write(wakeWriter, &one, 1) }
        _ = pthread_join(thread, nil)
    }

    private final class Runner {
        let body: Body
        let wake: Int32
        let name: String

        init(body: Body, wake: Int32, name: String) {
            self.body = body
            self.wake = wake
            self.name = name
        }

        /// Names the calling thread through `/proc/thread-self/comm` (`pthread_setname_np` and
        /// `prctl` are not in Glibc's Swift module); best effort, a name is only for people.
        private func nameThread() {
            let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            _ = try? SystemCall.writeAll(descriptor, Array(name.utf8.prefix(15)), target: "comm")
            SystemCall.close(descriptor)
        }

        func run() {
            nameThread()
            while true {
                let sources = body.sources()
                var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
                descriptors += sources.map { pollfd(fd: $0.descriptor, events: $0.events, revents: 0) }
                let count = poll(&descriptors, nfds_t(descriptors.count), body.timeout())
                if count < 0 {
                    if errno == EINTR { continue }
                    body.failed(.system(call: "poll", target: "watcher", errno: errno))
                    return
                }
                if descriptors[0].revents != 0 { return }
                if count == 0 {
                    body.timedOut()
                    continue
                }
                for (source, polled) in zip(sources, descriptors.dropFirst()) where polled.revents != 0 {
                    source.ready(polled.revents)
                }
            }
        }
    }
}
