import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Another host, for transfer tests that need a server that is neither loopback nor this
/// machine: a network namespace of its own, joined to this one by a veth pair. Its address,
/// `198.18.x.2`, lies in the benchmarking block (RFC 2544, never routed on the internet); this end
/// is `198.18.x.1`. A connection to it leaves through the veth as one to another machine would.
///
/// Making one needs root (`CAP_NET_ADMIN`, `CAP_SYS_ADMIN`) and iproute2's `ip`; ``make()`` throws
/// ``Unavailable`` with the reason when it cannot. Each has a name with this process's id, so
/// concurrent runs do not meet; namespaces left by a process that no longer runs are removed first.
///
/// ```swift
/// let host = try await NamespacedHost.make()
/// let server = try await LoopbackServer.start(listeningSocket: try await host.listeningSocket(), host: host.address)
/// // … server.url("/x") is on the other host …
/// try await server.shutdown()
/// await host.remove()
/// ```
public final class NamespacedHost: Sendable {
    /// Why no namespace could be made here.
    public struct Unavailable: Error, CustomStringConvertible {
        /// What was missing or failed, with `ip`'s own words when it was `ip`.
        public let description: String
    }

    /// The namespace's name (`ip netns`).
    public let name: String
    /// The other host's address.
    public let address: String
    /// This end's address, an address of this machine.
    public let localAddress: String
    private let link: String

    private static let prefix = "bgt-reach-"
    private static let made = Mutex(0)

    private init(name: String, link: String, subnet: Int) {
        self.name = name
        self.link = link
        self.address = Self.address(subnet: subnet, host: 2)
        self.localAddress = Self.address(subnet: subnet, host: 1)
    }

    /// `ip`, where iproute2 installs it; `nil` when it is not installed.
    public static let ipTool: String? = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether one may be made here as far as can be told without trying: root, and `ip`.
    public static var mayBeMade: Bool { geteuid() == 0 && ipTool != nil }

    /// Makes a namespace, its veth pair and their addresses, with the namespace's loopback up.
    public static func make() async throws(Unavailable) -> NamespacedHost {
        guard geteuid() == 0 else { throw Unavailable(description: "needs root to make a network namespace") }
        guard let ip = ipTool else { throw Unavailable(description: "needs iproute2's ip (apt-get install iproute2)") }
        let result: Result<NamespacedHost, Unavailable> = await onThread {
            removeAbandoned(ip: ip)
            let count = made.withLock { count in
                count += 1
                return count
            }
            let pid = Int(getpid())
            let host = NamespacedHost(
                name: "\(prefix)\(pid)-\(count)",
                link: "bgt\(pid % 1_000_000)x\(count % 100)",
                subnet: (pid &* 64 &+ count) & 0x7FFF
            )
            let steps = [
                ["netns", "add", host.name],
                ["link", "add", host.link, "type", "veth", "peer", "name", "eth0", "netns", host.name],
                ["addr", "add", host.localAddress + "/30", "dev", host.link],
                ["link", "set", host.link, "up"],
                ["-n", host.name, "addr", "add", host.address + "/30", "dev", "eth0"],
                ["-n", host.name, "link", "set", "eth0", "up"],
                ["-n", host.name, "link", "set", "lo", "up"],
            ]
            for step in steps {
                if let failure = run(ip, step) {
                    _ = run(ip, ["netns", "del", host.name])
                    _ = run(ip, ["link", "del", host.link])
                    return .failure(Unavailable(description: "ip \(step.joined(separator: " ")): \(failure)"))
                }
            }
            return .success(host)
        }
        return try result.get()
    }

    /// A TCP socket of the other host, bound to its address and `port` (0: any free one) and
    /// listening, made by a thread that joins the namespace for the purpose (`setns`, which
    /// changes only the calling thread's namespace) and leaves it. The socket stays the
    /// namespace's wherever it is used from.
    public func listeningSocket(port: Int = 0) async throws -> Int32 {
        let path = "/run/netns/\(name)"
        let address = address
        let result: Result<Int32, Unavailable> = await Self.onThread {
            Self.socket(in: path, boundTo: address, port: port)
        }
        return try result.get()
    }

    /// Removes the namespace and with it both ends of the veth pair.
    public func remove() async {
        guard let ip = Self.ipTool else { return }
        let name = name
        await Self.onThread { _ = Self.run(ip, ["netns", "del", name]) }
    }

    private static func socket(in path: String, boundTo address: String, port: Int) -> Result<Int32, Unavailable> {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else {
            return .failure(Unavailable(description: "this C library has no setns"))
        }
        let setns = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        let newNetworkNamespace: Int32 = 0x4000_0000  // CLONE_NEWNET
        let own = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
        let other = open(path, O_RDONLY | O_CLOEXEC)
        defer {
            if own >= 0 { close(own) }
            if other >= 0 { close(other) }
        }
        guard own >= 0, other >= 0, setns(other, newNetworkNamespace) == 0 else {
            return .failure(Unavailable(description: "cannot join the namespace \(path): errno \(errno)"))
        }
        let made = listen(on: address, port: port)
        guard setns(own, newNetworkNamespace) == 0 else {
            // This thread ends here anyway; its namespace goes with it.
            return .failure(Unavailable(description: "cannot leave the namespace \(path): errno \(errno)"))
        }
        return made
    }

    private static func listen(on address: String, port: Int) -> Result<Int32, Unavailable> {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(Unavailable(description: "socket: errno \(errno)")) }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, address, &socketAddress.sin_addr)
        let bound = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(descriptor, 256) == 0 else {
            let error = errno
            close(descriptor)
            return .failure(Unavailable(description: "cannot listen on \(address):\(port): errno \(error)"))
        }
        return .success(descriptor)
    }

    /// Removes namespaces this helper made in processes that no longer run.
    private static func removeAbandoned(ip: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = name.dropFirst(prefix.count).split(separator: "-").first.flatMap({ Int32($0) }),
                kill(pid, 0) != 0 && errno == ESRCH
            else { continue }
            _ = run(ip, ["netns", "del", name])
        }
    }

    /// Runs `ip` with `arguments`; `nil` when it succeeds, else what it said.
    private static func run(_ ip: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ip)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { return "\(error)" }
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus != 0 else { return nil }
        let text = String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return "exit \(process.terminationStatus): \(text)"
    }

    private static func address(subnet: Int, host: Int) -> String {
        // 198.18.0.0/15 holds 32,768 blocks of 4 addresses.
        let offset = subnet * 4 + host
        return "198.\(18 + offset >> 16).\((offset >> 8) & 0xFF).\(offset & 0xFF)"
    }

    /// Runs `body`, which blocks, on a thread of its own, off the cooperative pool.
    private static func onThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }
}
