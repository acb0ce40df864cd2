import BackgroundPosix

#if canImport(Glibc)
import Glibc
#endif

/// The apps a controller on the SIGSTOP fallback started, recorded in a directory so that a
/// later run of the daemon finds them after a `kill -9`. With cgroups the cgroups' names do
/// this (``LinuxProcessController/adoptSurvivors()``); without them nothing else would.
///
/// One file per start, named as the app's cgroup would be (`<label>@<daemon pid>.<run>.<serial>`),
/// holding `<pid> <start time>`: the start time (field 22 of `/proc/<pid>/stat`, clock ticks
/// after boot) tells the recorded process from a later one that was given its pid. A record is
/// written (a temporary file renamed into place, `0600`) before ``ProcessController/spawn(_:)``
/// returns, and removed when the app's exit is reaped. An adopted survivor's record is renamed
/// to the adopting run's name: another live daemon never takes it, and the next restart finds it
/// again. The directory is the daemon's own (`0700`, reached and checked by ``SecureDirectory``);
/// a record is read only if it is a regular file of this user of at most 64 bytes, and one that
/// is not is removed.
final class PidRecords: Sendable {
    /// A record read back: whose start it was, and the process.
    struct Entry: Sendable, Hashable {
        var name: LeafName
        var pid: pid_t
        var startTime: UInt64
    }

    let directory: SecureDirectory

    /// Opens (creating it `0700` if missing) and checks the directory.
    init(path: String) throws(ProcessControlError) {
        do {
            directory = try SecureDirectory.open(path, access: .privateToOwner)
        } catch {
            throw ProcessControlError(.systemCallFailed, operation: "pid records \(path)", reason: "\(error)")
        }
    }

    /// Records a start: `name` holds `pid` and its start time.
    func record(_ name: LeafName, pid: pid_t, startTime: UInt64) throws(ProcessControlError) {
        let temporary = ".\(name.text).new"
        do {
            let file = try SystemCall.openAt(
                directory.descriptor,
                temporary,
                O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
                mode: 0o600
            )
            defer { SystemCall.close(file) }
            try SystemCall.changeMode(of: file, to: 0o600)
            try SystemCall.writeAll(file, Array("\(pid) \(startTime)\n".utf8))
            try SystemCall.renameAt(directory.descriptor, temporary, to: name.text)
        } catch {
            try? SystemCall.unlinkAt(directory.descriptor, temporary)
            throw ProcessControlError(.systemCallFailed, operation: "record \(name.label) (pid \(pid))", error)
        }
    }

    /// Removes a record; one already gone is not an error.
    func remove(_ name: LeafName) {
        try? SystemCall.unlinkAt(directory.descriptor, name.text)
    }

    /// Renames a record (an adopted survivor's, to the adopting run's name).
    func rename(_ name: LeafName, to new: LeafName) throws(ProcessControlError) {
        do {
            try SystemCall.renameAt(directory.descriptor, name.text, to: new.text)
        } catch {
            throw ProcessControlError(.systemCallFailed, operation: "record \(new.label)", error)
        }
    }

    /// Every record in the directory, by name; what is not a record is removed (a temporary file
    /// of a run that died while writing it, a file of another user, a malformed one).
    func entries() throws(ProcessControlError) -> [Entry] {
        let names: [String]
        do {
            names = try SystemCall.entries(of: directory.descriptor)
        } catch {
            throw ProcessControlError(.systemCallFailed, operation: "list pid records \(directory.path)", error)
        }
        var found: [Entry] = []
        for name in names.sorted() {
            if let leaf = LeafName(name), !name.hasPrefix("."), let entry = read(leaf) {
                found.append(entry)
            } else {
                try? SystemCall.unlinkAt(directory.descriptor, name)
            }
        }
        return found
    }

    /// One record, checked: a regular file of this user, at most 64 bytes, `<pid> <start time>`.
    private func read(_ name: LeafName) -> Entry? {
        guard let file = try? SystemCall.openAt(directory.descriptor, name.text, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        else { return nil }
        defer { SystemCall.close(file) }
        guard let status = try? SystemCall.status(of: file), status.st_mode & S_IFMT == S_IFREG,
            status.st_uid == SystemCall.effectiveUserID, status.st_size <= 64,
            let bytes = try? SystemCall.readToEnd(file, limit: 64)
        else { return nil }
        return Self.parse(String(decoding: bytes, as: UTF8.self)).map {
            Entry(name: name, pid: $0.pid, startTime: $0.startTime)
        }
    }

    /// `<pid> <start time>\n`: a pid above 0 and a start time.
    static func parse(_ text: String) -> (pid: pid_t, startTime: UInt64)? {
        guard text.hasSuffix("\n") else { return nil }
        let fields = text.dropLast().split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 2, let pid = pid_t(fields[0]), pid > 0, let startTime = UInt64(fields[1]) else {
            return nil
        }
        return (pid, startTime)
    }
}
