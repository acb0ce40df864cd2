import BackgroundDevice
import Glibc
import Logging

/// Watches the manifests directory with inotify and calls back after each change, so that an
/// app installed (or changed, or removed) while the daemon runs is in force without a restart.
///
/// The watch decides only *when* the daemon reads the directory again, never *what* it reads:
/// every reload opens the directory and each manifest with every check of the start
/// (``ManifestDirectory``: no link followed, owner, mode, size, the executable's trust). It
/// watches the directory's path without following a link (`IN_DONT_FOLLOW | IN_ONLYDIR`) for
/// the changes that complete a file: written and closed, moved in or out, deleted, its mode or
/// owner changed. A file being written is read when it is closed. A directory that is replaced
/// (moved or deleted) stops the watch, logged; `bgctl daemon reload` reads it again by hand.
final class ManifestWatcher: Sendable {
    private let thread: PollThread
    private let inotify: Inotify

    static let mask: UInt32 = [
        IN_CLOSE_WRITE, IN_MOVED_TO, IN_MOVED_FROM, IN_DELETE, IN_ATTRIB, IN_DELETE_SELF, IN_MOVE_SELF,
        IN_DONT_FOLLOW, IN_ONLYDIR,
    ].reduce(0) { $0 | UInt32($1) }

    private init(thread: PollThread, inotify: Inotify) {
        self.thread = thread
        self.inotify = inotify
    }

    /// Starts watching `path`; `changed` runs on the watcher's thread after each batch of events.
    static func start(
        watching path: String,
        logger: Logger,
        changed: @escaping @Sendable () -> Void
    ) throws(DeviceError) -> ManifestWatcher {
        let inotify = try Inotify()
        try inotify.watch(path, mask: mask)
        let thread = try PollThread(name: "bg-manifests")
        let source = PollThread.Source(descriptor: inotify.descriptor, events: Int16(POLLIN)) { _ in
            let events: [Inotify.Event]
            do {
                events = try inotify.drain()
            } catch {
                logger.error("the manifests directory's watch failed: \(error)")
                return
            }
            if events.contains(where: {
                $0.mask & (UInt32(IN_IGNORED) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)) != 0
            }) {
                logger.warning(
                    "the manifests directory \(path) was moved or deleted: no longer watched; bgctl daemon reload reads it again"
                )
            }
            guard events.contains(where: { $0.name.isEmpty || !$0.name.hasPrefix(".") }) else { return }
            changed()
        }
        try thread.start(
            .init(sources: { [source] }, failed: { logger.error("the manifests directory's watch failed: \($0)") })
        )
        return ManifestWatcher(thread: thread, inotify: inotify)
    }

    /// Stops the watch (waits for a reload in progress on the watcher's thread to end).
    func stop() {
        thread.stop()
    }
}
