import Testing

@testable import BackgroundDaemon

#if canImport(Glibc)
import Glibc
#endif

/// Issue 25, finding 3: anyone who could reach the socket took every connection slot before any
/// credential was checked (2,000 idle connections; root's `bgctl` got through 1 time in 39).
@Suite("Connection quota: limits by uid before identity")
struct ConnectionQuotaTests {
    static let limits = ConnectionQuota.Limits(maximumConnections: 6, maximumPerUser: 2, reservedForPrivileged: 2)

    @Test("one uid holds at most its share; others still get theirs")
    func perUser() {
        var quota = ConnectionQuota(limits: Self.limits, privileged: [0])
        #expect(quota.admit(uid: 1000) == .admitted)
        #expect(quota.admit(uid: 1000) == .admitted)
        #expect(quota.admit(uid: 1000) == .refused("uid 1000 holds 2 connections, the most one user may"))
        #expect(quota.admit(uid: 1001) == .admitted)
        quota.release(uid: 1000)
        #expect(quota.admit(uid: 1000) == .admitted, "a closed connection gives its slot back")
        #expect(quota.count == 3)
    }

    @Test("root and the daemon's user use every slot and a reserve nobody else can take")
    func reserve() {
        var quota = ConnectionQuota(limits: Self.limits, privileged: [0, 500])
        for uid: UInt32 in [1000, 1000, 1001, 1001, 1002, 1002] { #expect(quota.admit(uid: uid) == .admitted) }
        #expect(quota.admit(uid: 1003) == .refused("6 connections are open, the most (the rest are kept for root)"))
        #expect(quota.admit(uid: 0) == .admitted)
        #expect(quota.admit(uid: 500) == .admitted)
        #expect(quota.admit(uid: 0) == .refused("8 connections are open, every slot and the reserve"))
        quota.release(uid: 1000)
        #expect(quota.admit(uid: 1003) == .refused("7 connections are open, the most (the rest are kept for root)"))
        quota.release(uid: 0)
        quota.release(uid: 0)  // more releases than admissions change nothing
        #expect(quota.count == 6)
    }

    @Test("refusals are logged at the 1st, 2nd, 4th, 8th … of each uid")
    func sparseLog() {
        var log = RefusalLog()
        let logged = (1...20).compactMap { _ in log.refused(uid: 7) }
        #expect(logged == [1, 2, 4, 8, 16])
        #expect(log.refused(uid: 8) == 1)
    }

    /// With real connections: the test's own uid made unprivileged (`privilegedUserIDs: []`)
    /// holds its share of slots and is refused past it, and a hello larger than the hello limit
    /// is refused from its header.
    @Test("over a real socket: a uid past its share is closed at accept; a large first frame too")
    func overTheSocket() async throws {
        let limits = DaemonLimits(maximumHelloBytes: 1024, maximumConnectionsPerUser: 3, privilegedUserIDs: [])
        let (held, refused, bigHello) = try await SocketServerTests.withServer(limits: limits) { path, _ in
            // A first frame over the hello limit is refused from its header (the daemon closes
            // the connection, and its slot is free again when it does).
            let big = try SocketClient(path: path)
            try big.sendRaw([0, 0, 4, 1])  // 1,025 bytes announced
            let bigHello = big.waitForClose()
            let held = try (0..<3).map { _ in try SocketClient(path: path) }
            let welcomes = try held.map { try $0.hello(.control) }
            let refused = try SocketClient(path: path).waitForClose()
            return (welcomes.filter { $0?.isWelcome == true }.count, refused, bigHello)
        }
        #expect(held == 3)
        #expect(refused, "the fourth connection of one uid is closed at accept")
        #expect(bigHello)
    }
}

/// The identity `SO_PEERPIDFD` gives (``ProcessIdentity``): one per process, the same through
/// every pidfd of it, and what the socket server reads for each connection.
@Suite("Process identity from pidfds")
struct ProcessIdentityTests {
    @Test("the same process has one identity; another process another")
    func identities() throws {
        guard ProcessIdentity.isSupported else {
            return  // a kernel before pidfs: no identity, the pid alone (said in ProcessIdentity's doc)
        }
        let own = try #require(ProcessIdentity.of(pid: getpid()))
        #expect(ProcessIdentity.of(pid: getpid()) == own)
        #expect(ProcessIdentity.of(pid: 1) != own)
        #expect(ProcessIdentity.of(pid: 2_147_483_000) == nil, "no such process")
    }

    @Test("an executable read for a pid that is no longer the peer's process is forgotten")
    func executableOfAReusedPid() throws {
        guard let own = ProcessIdentity.of(pid: getpid()) else { return }  // no pidfs: nothing to compare
        let same = PeerIdentity.reading(pid: getpid(), uid: getuid(), identity: own)
        #expect(same.executable != nil && same.processIdentity == own)
        let other = PeerIdentity.reading(pid: getpid(), uid: getuid(), identity: own &+ 1)
        #expect(other.executable == nil, "the pid is another process's than the one that connected")
        #expect(PeerIdentity.reading(pid: getpid(), uid: getuid(), identity: nil).executable != nil)
    }
}
