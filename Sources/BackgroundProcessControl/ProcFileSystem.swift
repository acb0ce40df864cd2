import BackgroundPosix

#if canImport(Glibc)
import Glibc
#endif

/// What `/proc` says about processes: their state, their process group, their open files.
enum ProcFileSystem {
    /// The fields of `/proc/<pid>/stat` this module reads.
    struct ProcessStatus: Sendable, Hashable {
        /// `R`, `S`, `D`, `T` (stopped by a signal), `t`, `Z`, `X`...
        var state: Character
        var parent: pid_t
        var processGroup: pid_t
        /// When it started, in clock ticks after boot (field 22): with the pid, names one process
        /// for good (a pid is reused, a pid and a start time are not). Nil in a short line.
        var startTime: UInt64?
    }

    /// Parses `/proc/<pid>/stat`. The command name is in parentheses and may itself contain
    /// spaces and parentheses, so the fields are counted from the last `)`.
    static func parseStatus(_ text: some Collection<UInt8>) -> ProcessStatus? {
        let bytes = Array(text)
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 3, let state = fields[0].first,
            let parent = pid_t(String(decoding: fields[1], as: UTF8.self)),
            let group = pid_t(String(decoding: fields[2], as: UTF8.self))
        else { return nil }
        let startTime = fields.count > 19 ? UInt64(String(decoding: fields[19], as: UTF8.self)) : nil
        return ProcessStatus(
            state: Character(Unicode.Scalar(state)),
            parent: parent,
            processGroup: group,
            startTime: startTime
        )
    }

    /// The status of `pid`, or nil if it no longer exists.
    static func status(of pid: pid_t) -> ProcessStatus? {
        status(of: pid, in: AT_FDCWD, "/proc/\(pid)/stat")
    }

    /// One read of a `stat` file into a small buffer (the group scan reads one per process, so
    /// it avoids growing buffers).
    private static func status(of pid: pid_t, in directory: Int32, _ name: String) -> ProcessStatus? {
        guard let file = try? SystemCall.openAt(directory, name, O_RDONLY) else { return nil }
        defer { SystemCall.close(file) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { bytes in
            try? SystemCall.read(file, into: bytes)
        }
        guard let count, count > 0 else { return nil }
        return parseStatus(buffer[..<count])
    }

    /// Every process listed in `/proc`, sorted.
    static func processes() throws(ProcessControlError) -> [pid_t] {
        let proc: Int32
        do {
            proc = try SystemCall.openAt(AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY)
        } catch {
            throw ProcessControlError(.procReadFailed, operation: "open /proc", error)
        }
        defer { SystemCall.close(proc) }
        do {
            return try SystemCall.entries(of: proc).compactMap { pid_t($0) }.sorted()
        } catch {
            throw ProcessControlError(.procReadFailed, operation: "list /proc", error)
        }
    }

    /// Every process whose process group is `group`, sorted: the pids listed in `/proc`, each
    /// asked `getpgid(2)` (a system call, far cheaper than reading its `stat`).
    static func members(ofGroup group: pid_t) throws(ProcessControlError) -> [pid_t] {
        try processes().filter { getpgid($0) == group }
    }

    /// Whether a process no longer runs: stopped by a signal (`T`), or gone (`Z`, `X`, or no
    /// longer in `/proc`).
    static func isStoppedOrGone(_ pid: pid_t) -> Bool {
        guard let state = status(of: pid)?.state else { return true }
        return state == "T" || state == "Z" || state == "X"
    }

    /// The descriptors `pid` has open: number, the path the kernel names, and the text of its
    /// `fdinfo` (which lists the locks held through that open file description).
    static func openFiles(of pid: pid_t) -> [(descriptor: Int32, path: String, info: String)] {
        let names: [String]
        do {
            let directory = try SystemCall.openAt(AT_FDCWD, "/proc/\(pid)/fd", O_RDONLY | O_DIRECTORY)
            defer { SystemCall.close(directory) }
            names = try SystemCall.entries(of: directory)
        } catch {
            return []  // gone, or not ours to read: nothing it holds can be seen
        }
        return names.compactMap { name in
            guard let descriptor = Int32(name),
                let path = try? SystemCall.readLink("/proc/\(pid)/fd/\(name)"),
                let info = try? SystemCall.readFile(AT_FDCWD, "/proc/\(pid)/fdinfo/\(name)")
            else { return nil }
            return (descriptor, path, info)
        }
    }
}
