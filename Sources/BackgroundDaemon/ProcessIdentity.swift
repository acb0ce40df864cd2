import CProcessSpawn

#if canImport(Glibc)
import Glibc
#endif

/// A process's identity that a reused pid never has: the inode of its pidfd in pidfs (Linux 6.9
/// and later give every process an inode of its own, never reused while the system runs, and
/// every pidfd of it has that inode).
///
/// `SO_PEERCRED`'s pid names whoever has that pid when it is read: the process that connected,
/// or, if it ended, a later one given the same pid. `SO_PEERPIDFD` (Linux 6.5) is a pidfd of the
/// process that connected, whatever happened since; its identity compared with the one recorded
/// for an adopted process decides whether the peer is that process, and no pid reuse can fool it.
/// Where pidfds have no inode of their own (before pidfs every pidfd shares one), there is no
/// identity: nil, and the checks fall back to the pid.
public enum ProcessIdentity {
    /// The identity of the process `pidfd` refers to, or nil.
    static func of(pidfd: Int32) -> UInt64? {
        guard isSupported else { return nil }
        return inode(of: pidfd)
    }

    /// The identity of the process with `pid` now, or nil if there is none or it cannot be known.
    public static func of(pid: Int32) -> UInt64? {
        guard isSupported else { return nil }
        return inode(ofPid: pid)
    }

    /// Whether pidfds have inodes of their own here: this process's and pid 1's differ.
    static let isSupported: Bool = {
        guard let own = inode(ofPid: getpid()), let first = inode(ofPid: 1) else { return false }
        return own != first
    }()

    private static func inode(ofPid pid: Int32) -> UInt64? {
        let pidfd = cps_pidfd_open(pid)
        guard pidfd >= 0 else { return nil }
        defer { close(pidfd) }
        return inode(of: pidfd)
    }

    private static func inode(of descriptor: Int32) -> UInt64? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return UInt64(status.st_ino)
    }
}
