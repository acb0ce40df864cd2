public import BackgroundReports

/// A file lock an app holds on a file in a shared container, as `/proc/locks` shows it.
public struct HeldLock: Sendable, Hashable, CustomStringConvertible {
    /// The family of lock, as `/proc/locks` names it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `fcntl(F_SETLK)`: a POSIX record lock, owned by a process (SQLite's locks).
        case posix = "POSIX"
        /// `flock(2)`: owned by an open file description.
        case flock = "FLOCK"
        /// `fcntl(F_OFD_SETLK)`: an open-file-description record lock (pid -1 in `/proc/locks`).
        case openFileDescription = "OFDLCK"
        /// `fcntl(F_SETLEASE)`: a lease.
        case lease = "LEASE"
    }

    /// Read (shared) or write (exclusive).
    public enum Access: String, Sendable, Hashable {
        case read = "READ"
        case write = "WRITE"
    }

    /// The path of the locked file, as the app's descriptor names it.
    public let path: String
    /// The family of lock.
    public let kind: Kind
    /// Shared or exclusive.
    public let access: Access
    /// The first byte locked.
    public let start: UInt64
    /// The last byte locked, or nil for "to the end of the file".
    public let end: UInt64?
    /// The process `/proc/locks` names as the owner, or nil where it names none (`-1`).
    public let pid: Int32?
    /// The file's inode; with the device, what the lock was matched by.
    public let inode: UInt64

    public init(
        path: String,
        kind: Kind,
        access: Access,
        start: UInt64,
        end: UInt64?,
        pid: Int32?,
        inode: UInt64
    ) {
        self.path = path
        self.kind = kind
        self.access = access
        self.start = start
        self.end = end
        self.pid = pid
        self.inode = inode
    }

    /// The lock as a termination report lists it (`0xdead10cc`).
    public var reportEntry: TerminationReportDocument.HeldLock {
        .init(path: path, kind: kind.rawValue, access: access.rawValue, start: start, end: end, pid: pid)
    }

    /// `POSIX WRITE lock on /srv/group/db.sqlite (bytes 0-EOF, pid 4242)`: the report's line
    /// (``TerminationReportDocument/HeldLock/description``), the one place it is formatted.
    public var description: String { reportEntry.description }
}
