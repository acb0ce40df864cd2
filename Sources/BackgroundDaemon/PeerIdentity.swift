import BackgroundExecution

#if canImport(Glibc)
import Glibc
#endif

/// Who is at the other end of a connection, as the kernel recorded it when it connected
/// (`SO_PEERCRED`), and what its process runs.
public struct PeerIdentity: Sendable, Hashable {
    /// The peer's process id.
    public var pid: Int32
    /// The peer's effective user id.
    public var uid: UInt32
    /// What `/proc/<pid>/exe` resolves to, read when the connection was accepted; nil if
    /// unreadable (the process is gone, or belongs to another user and the daemon is not root).
    ///
    /// What it means: the program the connecting process ran when it was read. A process of the
    /// same uid can connect, write frames, then `execve` the app's executable before it is read,
    /// so this check keeps other programs from being taken for the app by mistake; it is not a
    /// boundary. The boundaries are the uid (``uid``, the kernel's record at `connect`), the
    /// inherited connection of an app the daemon started, and, for an adopted process, its
    /// ``processIdentity`` (SECURITY.md).
    public var executable: String?
    /// The connecting process's ``ProcessIdentity`` from `SO_PEERPIDFD`, or nil where the kernel
    /// gives none.
    public var processIdentity: UInt64?

    /// Creates an identity.
    public init(pid: Int32, uid: UInt32, executable: String?, processIdentity: UInt64? = nil) {
        self.pid = pid
        self.uid = uid
        self.executable = executable
        self.processIdentity = processIdentity
    }

    /// The identity of process `pid` with user `uid`, `identity` from its pidfd: reads its
    /// executable, and forgets it if `pid` is another process's by the time it was read (the
    /// peer ended and its pid was given again).
    static func reading(pid: Int32, uid: UInt32, identity: UInt64?) -> PeerIdentity {
        var executable = executable(of: pid)
        if let identity, ProcessIdentity.of(pid: pid) != identity { executable = nil }
        return PeerIdentity(pid: pid, uid: uid, executable: executable, processIdentity: identity)
    }

    /// `readlink("/proc/<pid>/exe")`: the kernel's record of the file the process runs, which
    /// the process cannot change (a deleted file reads with a " (deleted)" suffix, and never
    /// matches a manifest).
    static func executable(of pid: Int32) -> String? {
        guard pid > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The rules a connecting peer is checked against.
enum IdentityCheck {
    /// Whether `peer` may speak as `app`: the daemon's user, root, or (with per-app uids) the
    /// app's own uid and no other app's, and its process runs the manifest's executable. An app
    /// without a launch command in its manifest names no executable, so only its uid is checked
    /// (the manifest says so).
    static func refusal(of peer: PeerIdentity, as app: InstalledApp, daemonUID: UInt32) -> String? {
        guard mayClaim(app: app, peer: peer, daemonUID: daemonUID) else {
            return "uid \(peer.uid) may not connect as \(app.id)"  // names no uid of the app's
        }
        // With per-app uids an app's process runs as its own uid, whoever started it: root or
        // the daemon's user may not run it as themselves (it would run with their rights while
        // reported as the app's uid). The peer may claim the app, so it may learn its uid.
        if let user = app.user, peer.uid != user.uid {
            let groups =
                user.groups.isEmpty
                ? "--clear-groups" : "--groups=" + user.groups.map(String.init).joined(separator: ",")
            return "pid \(peer.pid) runs as uid \(peer.uid), but \(app.id) runs as its own uid \(user.uid): "
                + "start it as that user (setpriv --reuid=\(user.uid) --regid=\(user.gid) \(groups) …), "
                + "or let the daemon start it (bgctl daemon open \(app.id))"
        }
        guard let expected = app.launch?.executable else { return nil }
        guard let running = peer.executable else {
            return "the executable of pid \(peer.pid) cannot be read"
        }
        guard running == expected || running == resolved(expected) else {
            return
                "pid \(peer.pid) runs \(ControlCharacters.escaped(running)), not \(ControlCharacters.escaped(expected))"
        }
        return nil
    }

    /// Whether `peer`'s uid may speak as an app of this name: the daemon's user, root, or the
    /// installed app's own uid. With no installed app only the first two may, and they may learn
    /// that it is not installed; anyone else is told the same whether it is or not.
    static func mayClaim(app: InstalledApp?, peer: PeerIdentity, daemonUID: UInt32) -> Bool {
        peer.uid == daemonUID || peer.uid == 0 || (app?.user.map { peer.uid == $0.uid } ?? false)
    }

    /// Whether `peer` may be a control client: the daemon's user (or root), and not the process
    /// of an installed app (an app never controls the system, nor sees other apps through it).
    static func controlRefusal(of peer: PeerIdentity, apps: [InstalledApp], daemonUID: UInt32) -> String? {
        guard peer.uid == daemonUID || peer.uid == 0 else {
            return "uid \(peer.uid) is not the daemon's user (\(daemonUID))"
        }
        if let executable = peer.executable,
            let app = apps.first(where: {
                $0.launch.map { $0.executable == executable || resolved($0.executable) == executable } ?? false
            })
        {
            return "pid \(peer.pid) is the process of \(app.id), and apps are not control clients"
        }
        return nil
    }

    /// The path with its links resolved (manifests may name a link to the real executable).
    static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}
