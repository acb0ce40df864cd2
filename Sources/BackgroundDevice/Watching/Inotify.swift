import BackgroundPosix
import Glibc

/// An inotify instance (non-blocking, close-on-exec) and the events drained from it.
package final class Inotify: Sendable {
    /// One event: the watch it came from, its mask and the name in a watched directory.
    package struct Event: Sendable, Hashable {
        package var watch: Int32
        package var mask: UInt32
        package var name: String
    }

    /// The descriptor to poll.
    package let descriptor: Int32

    package init() throws(DeviceError) {
        descriptor = try SystemCall.checked("inotify_init1", "inotify") {
            inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        }
    }

    deinit {
        SystemCall.close(descriptor)
    }

    /// Watches `path` for `mask`; returns the watch descriptor (the same one for a path watched
    /// twice).
    @discardableResult
    package func watch(_ path: String, mask: UInt32) throws(DeviceError) -> Int32 {
        try SystemCall.checked("inotify_add_watch", path) { inotify_add_watch(descriptor, path, mask) }
    }

    /// Every event queued now (until `EAGAIN`). `IN_Q_OVERFLOW` comes back as an event with
    /// watch -1: the caller re-reads everything.
    package func drain() throws(DeviceError) -> [Event] {
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count: Int
            do {
                count = try SystemCall.checked("read", "inotify") {
                    buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                }
            } catch {
                if error.errno == EAGAIN { return events }
                throw error
            }
            if count == 0 { return events }
            events += Self.parse(buffer[0..<count])
        }
    }

    /// Splits a read's bytes into `struct inotify_event`s (wd, mask, cookie, len, name[len]).
    static func parse(_ bytes: ArraySlice<UInt8>) -> [Event] {
        var events: [Event] = []
        var offset = bytes.startIndex
        let header = 16
        while offset + header <= bytes.endIndex {
            func word(_ at: Int) -> UInt32 {
                UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3])
                    << 24
            }
            let length = Int(word(offset + 12))
            guard offset + header + length <= bytes.endIndex else { break }
            let nameBytes = bytes[(offset + header)..<(offset + header + length)].prefix { $0 != 0 }
            events.append(
                Event(
                    watch: Int32(bitPattern: word(offset)),
                    mask: word(offset + 4),
                    name: String(decoding: nameBytes, as: UTF8.self)
                )
            )
            offset += header + length
        }
        return events
    }
}
