import BackgroundCore

#if canImport(Glibc)
package import Glibc
#endif

/// The project's system calls, in one place, every result checked: the embedded system, the
/// control channel, process control, the device probes and the daemon all call through here.
///
/// In the style of swift-nio's `System.swift`: each wrapper retries `EINTR` (``retrying(_:_:_:)``
/// is the one loop that does), turns `-1` into a ``SystemCallError`` carrying the call's name and
/// `errno`, and sets `O_CLOEXEC` on every descriptor it creates. Modules add wrappers for calls
/// only they make as extensions built on ``retrying(_:_:_:)`` (process control's `clone3` and
/// `pidfd` calls, the probes' typed `DeviceError` form), so a reader checks this type to know
/// that no result is ignored and no `EINTR` is mishandled.
package enum SystemCall {
    /// Runs `body` until it does not fail with `EINTR`; `-1` becomes a ``SystemCallError``.
    @inline(__always)
    package static func retrying<Result: FixedWidthInteger>(
        _ call: String,
        _ subject: String? = nil,
        _ body: () -> Result
    ) throws(SystemCallError) -> Result {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SystemCallError(call: call, subject: subject, code: code)
        }
    }

    // MARK: Files and directories

    /// `openat(2)` with `O_CLOEXEC` added.
    package static func openAt(
        _ directory: Int32,
        _ name: String,
        _ flags: Int32,
        mode: mode_t = 0
    ) throws(SystemCallError) -> Int32 {
        try retrying("openat", name) { Glibc.openat(directory, name, flags | O_CLOEXEC, mode) }
    }

    /// `mkdirat(2)`.
    package static func makeDirectoryAt(_ directory: Int32, _ name: String, mode: mode_t) throws(SystemCallError) {
        _ = try retrying("mkdirat", name) { Glibc.mkdirat(directory, name, mode) }
    }

    /// `fstat(2)`.
    package static func status(of descriptor: Int32) throws(SystemCallError) -> stat {
        var result = stat()
        _ = try retrying("fstat") { Glibc.fstat(descriptor, &result) }
        return result
    }

    /// `fstatat(2)` without following a final symbolic link.
    package static func statusAt(_ directory: Int32, _ name: String) throws(SystemCallError) -> stat {
        var result = stat()
        _ = try retrying("fstatat", name) { Glibc.fstatat(directory, name, &result, AT_SYMLINK_NOFOLLOW) }
        return result
    }

    /// `fchmod(2)`: sets a mode exactly, whatever the umask was at creation.
    package static func changeMode(of descriptor: Int32, to mode: mode_t) throws(SystemCallError) {
        _ = try retrying("fchmod") { Glibc.fchmod(descriptor, mode) }
    }

    /// `fchmodat(2)` on an entry of a directory (a socket has no descriptor to `fchmod`).
    package static func changeModeAt(_ directory: Int32, _ name: String, to mode: mode_t) throws(SystemCallError) {
        _ = try retrying("fchmodat", name) { Glibc.fchmodat(directory, name, mode, 0) }
    }

    /// `unlinkat(2)` of a non-directory entry: never recursive, never follows a link.
    package static func unlinkAt(_ directory: Int32, _ name: String) throws(SystemCallError) {
        _ = try retrying("unlinkat", name) { Glibc.unlinkat(directory, name, 0) }
    }

    /// `renameat(2)` within one directory.
    package static func renameAt(_ directory: Int32, _ from: String, to: String) throws(SystemCallError) {
        _ = try retrying("renameat", to) { Glibc.renameat(directory, from, directory, to) }
    }

    /// `fsync(2)`.
    package static func synchronize(_ descriptor: Int32) throws(SystemCallError) {
        _ = try retrying("fsync") { Glibc.fsync(descriptor) }
    }

    /// `close(2)`. On Linux the descriptor is released even when `close` reports `EINTR`, so
    /// it is never retried (retrying could close a descriptor another thread just opened).
    package static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// The names in a directory (without `.` and `..`), read through a duplicate of
    /// `descriptor` so the caller's descriptor stays open and positioned.
    package static func entries(of descriptor: Int32) throws(SystemCallError) -> [String] {
        let duplicate = try retrying("fcntl(F_DUPFD_CLOEXEC)") { Glibc.fcntl(descriptor, F_DUPFD_CLOEXEC, 0) }
        guard let stream = Glibc.fdopendir(duplicate) else {
            let code = errno
            close(duplicate)
            throw SystemCallError(call: "fdopendir", code: code)
        }
        defer { Glibc.closedir(stream) }
        Glibc.rewinddir(stream)
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = Glibc.readdir(stream) else {
                if errno != 0 { throw SystemCallError(call: "readdir", code: errno) }
                return names.sorted()
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    // MARK: Reading and writing

    /// `read(2)` into `buffer`; 0 at end of file.
    package static func read(
        _ descriptor: Int32,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemCallError)
        -> Int
    {
        try retrying("read") { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// Writes every byte (`write(2)` until done).
    package static func writeAll(_ descriptor: Int32, _ bytes: some Collection<UInt8>) throws(SystemCallError) {
        let array = Array(bytes)
        var written = 0
        while written < array.count {
            let result = array.withUnsafeBytes { buffer in
                let rest = UnsafeRawBufferPointer(rebasing: buffer[written...])
                return Result { () throws(SystemCallError) -> Int in
                    try retrying("write") { Glibc.write(descriptor, rest.baseAddress, rest.count) }
                }
            }
            let count = try result.get()
            // A write that takes nothing of a non-empty buffer would loop forever.
            if count == 0 { throw SystemCallError(call: "write", code: EIO) }
            written += count
        }
    }

    // MARK: Processes and signals

    /// The effective user id.
    package static var effectiveUserID: uid_t { Glibc.geteuid() }

    /// The process id.
    package static var processID: pid_t { Glibc.getpid() }

    /// A pipe whose two ends are close-on-exec and non-blocking.
    package static func nonBlockingPipe() throws(SystemCallError) -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        _ = try retrying("pipe") { Glibc.pipe(&descriptors) }
        for descriptor in descriptors {
            try setFlags(descriptor, status: O_NONBLOCK, descriptor: FD_CLOEXEC)
        }
        return (descriptors[0], descriptors[1])
    }

    /// Adds status flags (`F_SETFL`) and descriptor flags (`F_SETFD`) to a descriptor.
    package static func setFlags(
        _ descriptor: Int32,
        status: Int32 = 0,
        descriptor flags: Int32 = 0
    )
        throws(SystemCallError)
    {
        if status != 0 {
            let current = try retrying("fcntl(F_GETFL)") { Glibc.fcntl(descriptor, F_GETFL) }
            _ = try retrying("fcntl(F_SETFL)") { Glibc.fcntl(descriptor, F_SETFL, current | status) }
        }
        if flags != 0 {
            let current = try retrying("fcntl(F_GETFD)") { Glibc.fcntl(descriptor, F_GETFD) }
            _ = try retrying("fcntl(F_SETFD)") { Glibc.fcntl(descriptor, F_SETFD, current | flags) }
        }
    }

    /// Installs `handler` for `signal` with `sigaction(2)` (`SA_RESTART`, nothing masked).
    package static func installHandler(
        for signal: Int32,
        _ handler: @convention(c) (Int32) -> Void
    ) throws(SystemCallError) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        action.sa_flags = SA_RESTART
        _ = try retrying("sigemptyset") { Glibc.sigemptyset(&action.sa_mask) }
        _ = try retrying("sigaction", "signal \(signal)") { sigaction(signal, &action, nil) }
    }
}
