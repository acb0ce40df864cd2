/// Who may hold how many of the daemon's connections, decided when a connection is accepted,
/// from its `SO_PEERCRED` uid, before a byte of it is read.
///
/// Anyone who can reach the socket (with per-app uids it is `0666`) can connect before any
/// credential is checked, so the slots are shared out by uid: each uid other than root and the
/// daemon's user holds at most ``Limits/maximumPerUser`` at once, and all of them together at
/// most ``Limits/maximumConnections``. Root and the daemon's user (`bgctl`, and every app when
/// apps share the daemon's uid) may use those too, plus ``Limits/reservedForPrivileged`` more
/// that nobody else can take: root's `bgctl daemon status` always gets through. A pure value:
/// the server keeps one under a lock.
///
/// ```swift
/// var quota = ConnectionQuota(limits: .init(maximumConnections: 4, maximumPerUser: 2, reservedForPrivileged: 1),
///                             privileged: [0])
/// quota.admit(uid: 1000)   // .admitted
/// quota.admit(uid: 1000)   // .admitted
/// quota.admit(uid: 1000)   // .refused: uid 1000 holds 2 connections, its most
/// quota.admit(uid: 0)      // .admitted
/// ```
struct ConnectionQuota: Sendable {
    /// The numbers.
    struct Limits: Sendable, Hashable {
        /// The most connections of every uid together, root's reserve aside.
        var maximumConnections: Int
        /// The most connections one uid other than root and the daemon's user holds.
        var maximumPerUser: Int
        /// Connections only root and the daemon's user may take, beyond ``maximumConnections``.
        var reservedForPrivileged: Int
    }

    /// What the quota said to a connection.
    enum Decision: Sendable, Hashable {
        case admitted
        /// Refused, with the reason for the log.
        case refused(String)
    }

    let limits: Limits
    /// Root and the daemon's user.
    let privileged: Set<UInt32>
    private var total = 0
    private var byUser: [UInt32: Int] = [:]

    init(limits: Limits, privileged: Set<UInt32>) {
        self.limits = limits
        self.privileged = privileged
    }

    /// How many connections are held.
    var count: Int { total }

    /// Admits a connection of `uid`, or refuses it; an admitted one is counted until
    /// ``release(uid:)``.
    mutating func admit(uid: UInt32) -> Decision {
        let held = byUser[uid, default: 0]
        if privileged.contains(uid) {
            guard total < limits.maximumConnections + limits.reservedForPrivileged else {
                return .refused("\(total) connections are open, every slot and the reserve")
            }
        } else {
            guard held < limits.maximumPerUser else {
                return .refused("uid \(uid) holds \(held) connections, the most one user may")
            }
            guard total < limits.maximumConnections else {
                return .refused("\(total) connections are open, the most (the rest are kept for root)")
            }
        }
        total += 1
        byUser[uid] = held + 1
        return .admitted
    }

    /// A connection of `uid` closed.
    mutating func release(uid: UInt32) {
        guard let held = byUser[uid], held > 0 else { return }
        total -= 1
        byUser[uid] = held == 1 ? nil : held - 1
    }
}

/// How often a refusal is logged: the 1st, 2nd, 4th, 8th, … of each uid, each line with the
/// count so far. A flood of connections costs a logarithmic number of lines, and no clock.
struct RefusalLog: Sendable {
    private var counts: [UInt32: Int] = [:]

    /// Counts a refusal of `uid`; the number to log it with, or nil to stay quiet.
    mutating func refused(uid: UInt32) -> Int? {
        let count = counts[uid, default: 0] + 1
        counts[uid] = count
        return count & (count - 1) == 0 ? count : nil
    }
}
