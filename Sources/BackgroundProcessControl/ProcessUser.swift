/// The user and groups an app process runs as, set in the child before exec (a daemon running
/// as root starts each app under its own uid): `setgroups(groups)`, then `setgid(gid)`, then
/// `setuid(uid)`, each checked, so a failure is a spawn error and the app never runs as root by
/// accident.
public struct ProcessUser: Sendable, Hashable, CustomStringConvertible {
    /// The real, effective and saved user id.
    public var uid: UInt32
    /// The real, effective and saved group id.
    public var gid: UInt32
    /// The supplementary groups (the shared containers' groups); empty drops every group the
    /// daemon had.
    public var groups: [UInt32]

    /// Creates one. Neither id may be 0: the spawner refuses to "drop" to root.
    public init(uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// `uid 200000 gid 200000 groups 200007`.
    public var description: String {
        "uid \(uid) gid \(gid)" + (groups.isEmpty ? "" : " groups " + groups.map(String.init).joined(separator: ","))
    }
}
