/// The kernel's table of file locks, `/proc/locks`, parsed.
///
/// Each line is one lock held (or, after `->`, one waiting, which holds nothing and is left
/// out):
///
/// ```text
/// 1: POSIX  ADVISORY  WRITE 4242 fe:00:5604690 0 EOF
/// 2: FLOCK  ADVISORY  WRITE 4242 fe:00:16223176 0 EOF
/// 3: OFDLCK ADVISORY  READ  -1 fe:00:5308419 100 199
/// 4: -> FLOCK  ADVISORY  WRITE 4243 fe:00:16223176 0 EOF
/// ```
///
/// The device is `major:minor` in hexadecimal, the inode decimal (`fs/locks.c`,
/// `lock_get_status`). Lines of kinds this project does not report (NFS delegations) and
/// lines that do not parse are skipped: the table is the kernel's, and a later kernel may add
/// columns, never a reason to fail a freeze.
struct LockTable: Sendable, Hashable {
    /// One held lock.
    struct Entry: Sendable, Hashable {
        var kind: HeldLock.Kind
        var access: HeldLock.Access
        /// The owner's pid, nil for `-1` (open-file-description locks).
        var pid: Int32?
        var major: UInt32
        var minor: UInt32
        var inode: UInt64
        var start: UInt64
        var end: UInt64?
    }

    /// The held locks, in the table's order.
    var entries: [Entry]

    /// Parses the text of `/proc/locks`.
    init(parsing text: String) {
        entries = text.split(separator: "\n").compactMap(Self.entry)
    }

    private static func entry(_ line: Substring) -> Entry? {
        var fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 8, fields[0].hasSuffix(":") else { return nil }
        fields.removeFirst()
        if fields.first == "->" { return nil }  // waiting for the lock, not holding it
        guard fields.count >= 7,
            let kind = HeldLock.Kind(rawValue: String(fields[0])),
            let access = HeldLock.Access(rawValue: String(fields[2])),
            let pid = Int32(fields[3])
        else { return nil }
        let file = fields[4].split(separator: ":")
        guard file.count == 3,
            let major = UInt32(file[0], radix: 16),
            let minor = UInt32(file[1], radix: 16),
            let inode = UInt64(file[2]),
            let start = UInt64(fields[5])
        else { return nil }
        let end: UInt64?
        if fields[6] == "EOF" {
            end = nil
        } else if let last = UInt64(fields[6]) {
            end = last
        } else {
            return nil
        }
        return Entry(
            kind: kind,
            access: access,
            pid: pid > 0 ? pid : nil,
            major: major,
            minor: minor,
            inode: inode,
            start: start,
            end: end
        )
    }
}
