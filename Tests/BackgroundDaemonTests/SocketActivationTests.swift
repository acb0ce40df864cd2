import BackgroundDaemon
import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 26: what a service manager passes the daemon (`LISTEN_FDS`, `LISTEN_PID`,
/// `LISTEN_FDNAMES`, `WATCHDOG_USEC`, `WATCHDOG_PID`, `NOTIFY_SOCKET`), read as systemd's
/// `sd_listen_fds(3)`, `sd_watchdog_enabled(3)` and `sd_notify(3)` describe, in this process.
@Suite("Socket activation, watchdog and notification variables")
struct SocketActivationTests {
    @Test("LISTEN_FDS is for this process only when LISTEN_PID is its pid; descriptors from 3, with their names")
    func passedVariables() throws {
        #expect(try SocketActivation.passed(environment: [:], processID: 40) == nil)
        #expect(
            try SocketActivation.passed(environment: ["LISTEN_FDS": "1", "LISTEN_PID": "41"], processID: 40) == nil
        )
        #expect(try SocketActivation.passed(environment: ["LISTEN_FDS": "1"], processID: 40) == nil)
        let two = try #require(
            try SocketActivation.passed(
                environment: ["LISTEN_FDS": "2", "LISTEN_PID": "40", "LISTEN_FDNAMES": "other:backgroundd"],
                processID: 40
            )
        )
        #expect(two.map(\.descriptor) == [3, 4])
        #expect(two.map(\.name) == ["other", "backgroundd"])
        let unnamed = try #require(
            try SocketActivation.passed(environment: ["LISTEN_FDS": "1", "LISTEN_PID": "40"], processID: 40)
        )
        #expect(unnamed.count == 1 && unnamed[0].descriptor == 3 && unnamed[0].name == nil)
        for broken in [
            ["LISTEN_FDS": "1", "LISTEN_PID": "me"], ["LISTEN_FDS": "x", "LISTEN_PID": "40"],
            ["LISTEN_FDS": "-1", "LISTEN_PID": "40"],
            ["LISTEN_FDS": "2", "LISTEN_PID": "40", "LISTEN_FDNAMES": "backgroundd"],
        ] {
            #expect(throws: DaemonError.self, "\(broken)") {
                try SocketActivation.passed(environment: broken, processID: 40)
            }
        }
    }

    @Test("the daemon's descriptor: named backgroundd or backgroundd.socket, else the only one; never a guess")
    func choice() throws {
        #expect(try SocketActivation.choose(from: [(3, "x"), (4, "backgroundd")]).descriptor == 4)
        #expect(try SocketActivation.choose(from: [(3, "backgroundd.socket"), (4, "x")]).descriptor == 3)
        #expect(try SocketActivation.choose(from: [(3, nil)]).descriptor == 3)
        #expect(try SocketActivation.choose(from: [(3, "unknown")]).descriptor == 3)
        for ambiguous: [(descriptor: Int32, name: String?)] in [[], [(3, nil), (4, nil)], [(3, "a"), (4, "b")]] {
            #expect(throws: DaemonError.self) { try SocketActivation.choose(from: ambiguous) }
        }
    }

    @Test("a passed descriptor is served only if it is a listening Unix stream socket bound to a path")
    func descriptorChecks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func unixSocket(_ type: Int32, boundTo name: String, listening: Bool) throws -> Int32 {
            let descriptor = socket(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0)
            try #require(descriptor >= 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes: [UInt8] = name.hasPrefix("@") ? [0] + Array(name.utf8.dropFirst()) : Array(name.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
            }
            try #require(bound == 0, "bind \(name): \(errno)")
            if listening { try #require(listen(descriptor, 4) == 0) }
            return descriptor
        }
        let stream = Int32(SOCK_STREAM.rawValue)
        let path = directory.path + "/good.sock"
        let good = try unixSocket(stream, boundTo: path, listening: true)
        defer { close(good) }
        #expect(try SocketActivation.check(good).get() == path)

        let file = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let notListening = try unixSocket(stream, boundTo: directory.path + "/idle.sock", listening: false)
        let datagram = try unixSocket(
            Int32(SOCK_DGRAM.rawValue),
            boundTo: directory.path + "/dgram.sock",
            listening: false
        )
        let abstract = try unixSocket(stream, boundTo: "@backgroundd-test-\(getpid())-\(UUID())", listening: true)
        // A connected socket (a socketpair's end): neither listening nor bound (a socket cannot
        // listen unbound: the kernel refuses, or names it in the abstract namespace).
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, stream | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let connected = pair[0]
        let tcp = socket(AF_INET, stream | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { for descriptor in [file, notListening, datagram, abstract, tcp] + pair { close(descriptor) } }
        let cases: [(Int32, String)] = [
            (file, "is not a socket"), (tcp, "is not a Unix-domain socket"),
            (datagram, "is not a stream socket"), (notListening, "is not listening"),
            (abstract, "is not bound to a path"), (connected, "is not listening"),
        ]
        for (descriptor, why) in cases {
            guard case .failure(let error) = SocketActivation.check(descriptor) else {
                Issue.record("descriptor for '\(why)' was accepted")
                continue
            }
            #expect(error.code == .badConfiguration)
            #expect(error.message.hasPrefix("socket activation: descriptor \(descriptor) \(why)"), "\(error.message)")
        }
    }

    @Test("the watchdog is pinged at half WATCHDOG_USEC, only when asked and only of this process")
    func watchdogInterval() {
        let pid: Int32 = 40
        #expect(ServiceWatchdog.interval(environment: [:], processID: pid) == nil)
        #expect(ServiceWatchdog.interval(environment: ["WATCHDOG_USEC": "30000000"], processID: pid) == .seconds(15))
        #expect(
            ServiceWatchdog.interval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "40"], processID: pid)
                == .seconds(15)
        )
        for ignored in [
            ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "41"], ["WATCHDOG_USEC": "0"], ["WATCHDOG_USEC": "soon"],
            ["WATCHDOG_USEC": "-5"],
        ] {
            #expect(ServiceWatchdog.interval(environment: ignored, processID: pid) == nil, "\(ignored)")
        }
        #expect(ServiceWatchdog.interval(environment: ["WATCHDOG_USEC": "1"], processID: pid) == .milliseconds(1))
    }

    @Test("NOTIFY_SOCKET: a path or @abstract; one datagram of lines, a line break in a value sent as a space")
    func notifications() async throws {
        #expect(try NotifySocket(environment: [:]) == nil)
        #expect(try NotifySocket(environment: ["NOTIFY_SOCKET": ""]) == nil)
        for unsupported in ["relative/path", "@", "vsock:2:1234"] {
            #expect(throws: DaemonError.self) { try NotifySocket(address: unsupported) }
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for address in [directory.path + "/notify.sock", "@backgroundd-test-\(getpid())-\(UUID())"] {
            let listener = try NotifyListener(address: address)
            defer { listener.close() }
            let notifier = try #require(try NotifySocket(environment: ["NOTIFY_SOCKET": address]))
            try notifier.send(["READY=1", "STATUS=two\nlines"])
            #expect(await waitUntil(timeout: .seconds(30)) { !listener.notifications.isEmpty })
            #expect(listener.notifications == [["READY=1", "STATUS=two lines"]])
        }
        let nobody = try NotifySocket(address: directory.path + "/nobody.sock")
        #expect(throws: DaemonError.self) { try nobody.send(["READY=1"]) }
    }
}
