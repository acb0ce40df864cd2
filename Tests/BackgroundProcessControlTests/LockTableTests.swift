import BackgroundReports
import Testing

@testable import BackgroundProcessControl

@Suite("/proc/locks: held locks parsed, waiters and unknown lines left out")
struct LockTableTests {
    @Test("every kind of held lock, with its device, inode, range and owner")
    func parsesHeldLocks() {
        let table = LockTable(
            parsing: """
                1: POSIX  ADVISORY  WRITE 4242 fe:00:5604690 1073741824 1073742335
                2: FLOCK  ADVISORY  READ  4242 08:1a:16223176 0 EOF
                3: OFDLCK ADVISORY  WRITE -1 fe:00:5308419 0 EOF
                4: LEASE  ACTIVE    READ  77 00:2d:12 0 EOF

                """
        )
        #expect(
            table.entries == [
                .init(
                    kind: .posix,
                    access: .write,
                    pid: 4242,
                    major: 0xfe,
                    minor: 0,
                    inode: 5_604_690,
                    start: 1_073_741_824,
                    end: 1_073_742_335
                ),
                .init(
                    kind: .flock,
                    access: .read,
                    pid: 4242,
                    major: 8,
                    minor: 0x1a,
                    inode: 16_223_176,
                    start: 0,
                    end: nil
                ),
                .init(
                    kind: .openFileDescription,
                    access: .write,
                    pid: nil,
                    major: 0xfe,
                    minor: 0,
                    inode: 5_308_419,
                    start: 0,
                    end: nil
                ),
                .init(kind: .lease, access: .read, pid: 77, major: 0, minor: 0x2d, inode: 12, start: 0, end: nil),
            ]
        )
    }

    @Test("a waiter ('->') holds nothing; delegations, breaking leases and garbage are skipped")
    func skipsWaitersAndUnknownLines() {
        let table = LockTable(
            parsing: """
                1: FLOCK  ADVISORY  WRITE 4242 fe:00:16223176 0 EOF
                1: -> FLOCK  ADVISORY  WRITE 4243 fe:00:16223176 0 EOF
                2: DELEG  ACTIVE    READ  12 00:2d:99 0 EOF
                3: LEASE  BREAKING  UNLCK 12 00:2d:98 0 EOF
                4: POSIX  ADVISORY  WRITE 12 zz:00:1 0 EOF
                5: POSIX  ADVISORY  WRITE 12 fe:00:1 0
                not a lock at all
                """
        )
        #expect(table.entries.map(\.pid) == [4242])
    }

    @Test("descriptions name the kind, the access, the file and the owner")
    func describesLocks() {
        let lock = HeldLock(
            path: "/srv/group/db.sqlite",
            kind: .openFileDescription,
            access: .write,
            start: 0,
            end: nil,
            pid: nil,
            inode: 1
        )
        #expect(lock.description == "OFDLCK WRITE lock on /srv/group/db.sqlite (bytes 0-EOF)")
        let posix = HeldLock(path: "/g/x", kind: .posix, access: .read, start: 5, end: 9, pid: 42, inode: 2)
        #expect(posix.description == "POSIX READ lock on /g/x (bytes 5-9, pid 42)")
        // One formatting: the report's entry (what the daemon writes) says the same line.
        #expect(posix.reportEntry == .init(path: "/g/x", kind: "POSIX", access: "READ", start: 5, end: 9, pid: 42))
        #expect(lock.reportEntry.description == lock.description)
    }
}

@Suite("/proc/<pid>/stat: state and process group, whatever the command name contains")
struct ProcessStatusTests {
    @Test("a command name with spaces and parentheses does not shift the fields")
    func hostileCommandName() {
        let text = "4242 (evil) T 1 (x) S 1 99 4242 0 -1 4194560 93 0 0 0 0 0 0 0 20 0 1 0\n"
        #expect(ProcFileSystem.parseStatus(Array(text.utf8)) == .init(state: "S", parent: 1, processGroup: 99))
        let plain = "17 (sleep) T 16 17 16 0 -1\n"
        #expect(ProcFileSystem.parseStatus(Array(plain.utf8)) == .init(state: "T", parent: 16, processGroup: 17))
        #expect(ProcFileSystem.parseStatus(Array("17 (sleep".utf8)) == nil)
    }
}
