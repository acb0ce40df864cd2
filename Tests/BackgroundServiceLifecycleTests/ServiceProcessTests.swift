import BackgroundTestSupport
import Foundation
import Glibc
import Testing

/// The bridge in a real process ended by a real SIGTERM (`service-lifecycle-test-app`): a leak
/// ends in a written report and status 70, never a crash; and with an HTTP server in the same
/// group, in the documented order (the bridge first), the server refuses new requests after
/// SIGTERM while the export it started finishes, and the process exits 0.
///
/// Every step waits for an event (a line the process prints, its end), never for time; the
/// export ends when the test sends SIGUSR1.
@Suite("ServiceLifecycle: the bridge in a service process, ended by SIGTERM", .timeLimit(.minutes(5)))
struct ServiceProcessTests {
    static let app = builtExecutable("service-lifecycle-test-app")

    @Test("A background task never ended: the report is written, and the process exits 70 (no crash)")
    func leakWritesReportAndExits70() async throws {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: reports) }
        let child = try RunningChildProcess(
            Self.app,
            ["leak", "2"],
            environment: ["BACKGROUND_REPORTS_DIR": reports.path]
        )
        #expect(await child.waitForOutput(containing: "ready"))
        child.send(SIGTERM)
        let result = try await child.end()
        #expect(!result.timedOut)
        #expect(result.status == 70, "\(result.error)")
        #expect(result.error.contains("0x8badf00d"))
        #expect(result.error.contains("Nightly export"), "the report names the leaked task")
        #expect(!result.error.contains("Fatal error"), "\(result.error)")
        #expect(!result.output.contains("group returned"), "the process ends at the watchdog")
        let written = try FileManager.default.contentsOfDirectory(atPath: reports.path).sorted()
        #expect(written.count == 2, "\(written)")
        #expect(written.contains { $0.hasPrefix("com.example.exporter-") && $0.hasSuffix(".json") })
        #expect(written.contains { $0.hasPrefix("com.example.exporter-") && $0.hasSuffix(".txt") })
    }

    @Test("Bridge first, server after it: after SIGTERM new requests are refused, the export finishes, exit 0")
    func serverStopsAcceptingWhileExportFinishes() async throws {
        let child = try RunningChildProcess(Self.app, ["server"])
        #expect(await child.waitForOutput(containing: "listening on "))
        let port = try #require(
            child.output.split(separator: "\n").first { $0.hasPrefix("listening on ") }
                .flatMap { UInt16($0.dropFirst("listening on ".count)) }
        )
        let first = try await onDedicatedThread { try LoopbackHTTP.post("/export", port: port) }
        #expect(first.hasPrefix("HTTP/1.1 202"), "\(first)")
        child.send(SIGTERM)
        #expect(await child.waitForOutput(containing: "listener closed"))
        let second = await onDedicatedThread { Result { try LoopbackHTTP.post("/export", port: port) } }
        #expect(throws: LoopbackHTTP.Refused.self, "a request after SIGTERM is refused") { try second.get() }
        #expect(await child.waitForOutput(containing: "app entered the background"))
        #expect(!child.output.contains("export finished"), "the export waits for SIGUSR1")
        child.send(SIGUSR1)
        let result = try await child.end()
        #expect(!result.timedOut)
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "export started" }.count == 1, "one export only: \(lines)")
        // The server stopped before the app moved to the background, and the export after both.
        let positions = ["listener closed", "app entered the background", "export finished", "group returned"]
            .compactMap { lines.firstIndex(of: $0) }
        #expect(positions.count == 4 && positions == positions.sorted(), "\(lines)")
        #expect(!result.error.contains("0x8badf00d"))
    }
}

/// One HTTP/1.1 request over a blocking loopback socket (call it on a thread of its own).
enum LoopbackHTTP {
    /// The connection was refused: nothing listens on the port.
    struct Refused: Error {}
    struct Failed: Error { let errno: Int32 }

    /// Sends `POST path` with an empty body and returns the whole answer.
    static func post(_ path: String, port: UInt16) throws -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failed(errno: errno) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected != 0 { throw errno == ECONNREFUSED ? Refused() as any Error : Failed(errno: errno) }
        let request = Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n".utf8)
        guard send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            throw Failed(errno: errno)
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count < 0 { throw Failed(errno: errno) }
            if count == 0 { break }  // the server closes every connection after its answer
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
