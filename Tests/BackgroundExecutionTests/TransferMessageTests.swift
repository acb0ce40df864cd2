import BackgroundCore
import Foundation
import Testing

@testable import BackgroundProtocol

/// The transfer messages of protocol version 3: every one crosses the codec unchanged, the
/// daemon's bounds refuse what an app may not send, the largest allowed order fits one frame,
/// and the frame decoder's fuzz corpus holds a seed of each.
struct TransferMessageTests {
    static let app: AppID = "com.example.reader"
    static let session = "com.example.reader.downloads"

    static func order(_ change: (inout TransferOrder) -> Void = { _ in }) -> TransferOrder {
        var order = TransferOrder(
            transfer: TransferCheckpoint(
                app: app,
                session: session,
                task: 3,
                kind: .download,
                method: "GET",
                url: "https://example.com/book.epub",
                headers: [TransferHeader(name: "Accept", value: "application/epub+zip")],
                expectedSHA256: String(repeating: "ab", count: 32),
                taskDescription: "Book ✓",
                earliestBeginUnixSeconds: 1_790_000_000.5,
                requirements: TransferRequirements(isDiscretionary: true, createdInBackground: true, priority: 0.75)
            )
        )
        change(&order)
        return order
    }

    static func submit(_ order: TransferOrder) -> TransferCall {
        .submit(order.transfer, uploadPath: order.uploadPath, resumeData: order.resumeData.map(WireBytes.init))
    }

    static var completed: TransferCheckpoint {
        var transfer = order().transfer
        transfer.state = .completed
        transfer.bytesDone = 1 << 20
        transfer.partialFile = "Transfers/com.example.reader.downloads/3.partial"
        transfer.outcome = TransferOutcome(
            statusCode: 200,
            responseHeaders: [TransferHeader(name: "ETag", value: "\"v7\"")],
            responseURL: "https://cdn.example.com/book.epub",
            bodyFile: transfer.partialFile
        )
        return transfer
    }

    /// One message of every kind, as the seeds and the round trip use them.
    static var calls: [TransferCall] {
        [
            .attach(TransferSessionOptions(app: app, session: session, maximumConnectionsPerHost: 6)),
            .submit(order().transfer, uploadPath: nil, resumeData: nil),
            Self.submit(Self.order { $0.uploadPath = "/home/me/.local/share/reader/Container/notes.txt" }),
            Self.submit(Self.order { $0.resumeData = Array("{\"format\":\"background-execution.resume-data\"}".utf8) }),
            .cancel(session: session, task: 3, wantsResumeData: true),
            .delivered(session: session, task: 3),
            .detach(session: session, cancelling: true),
            .eventsHandled(session: session),
        ]
    }

    static var notices: [TransferNotice] {
        [
            .attached(session: session, transfers: [order().transfer], nextTask: 4, complete: false),
            .attached(session: session, transfers: [], nextTask: 4, complete: true),
            .wroteData(session: session, task: 3, bytesWritten: 65_536, totalWritten: 1 << 20, totalExpected: nil),
            .sentData(session: session, task: 4, bytesSent: 1, totalSent: 2, totalExpected: 3),
            .completed(
                session: session,
                completed,
                location: "/c/Transfers/x/3.partial",
                resumeData: WireBytes([1, 2]),
                responseBody: WireBytes([])
            ),
            .resumeData(session: session, task: 3, nil),
            .resumeData(session: session, task: 3, WireBytes([0x7B, 0x7D])),
            .handleEvents(session: session),
            .responseBodyPart(session: session, task: 4, WireBytes([0x6F, 0x6B])),
        ]
    }

    @Test("Every transfer call and notice comes back equal after a trip through the protocol's bytes")
    func roundTrip() throws {
        for call in Self.calls {
            let message = AppMessage.transfer(call)
            #expect(try ProtocolCodec.decode(AppMessage.self, from: ProtocolCodec.encode(message)) == message)
        }
        for notice in Self.notices {
            let message = SystemMessage.transfer(notice)
            #expect(try ProtocolCodec.decode(SystemMessage.self, from: ProtocolCodec.encode(message)) == message)
        }
        #expect(ProtocolCodec.version == 4, "version 3 added these messages; 4 added the manifest reload")
    }

    @Test("The daemon's bounds accept what a session sends and refuse everything an app may not send")
    func bounds() {
        for call in Self.calls { #expect(call.problem(from: Self.app) == nil, "\(call)") }
        let cases: [(String, TransferCall)] = [
            ("a transfer of com.example.other", Self.submit(Self.order { $0.transfer.app = "com.example.other" })),
            ("a session of com.example.other", .attach(TransferSessionOptions(app: "com.example.other", session: "s"))),
            ("an empty session identifier", .cancel(session: "", task: 1, wantsResumeData: false)),
            (
                "a session identifier longer than 256 bytes",
                .detach(session: String(repeating: "s", count: 257), cancelling: false)
            ),
            ("a session identifier with control characters", .eventsHandled(session: "a\u{7}b")),
            ("task identifier 0 is out of range", .delivered(session: "s", task: 0)),
            ("task identifier -5 is out of range", Self.submit(Self.order { $0.transfer.task = -5 })),
            (
                "an order names the engine's own fields (state, outcome, bytes or files)",
                Self.submit(Self.order { $0.transfer.partialFile = "../../other.app/Container/secret" })
            ),
            (
                "an order names the engine's own fields (state, outcome, bytes or files)",
                Self.submit(Self.order { $0.transfer.bytesDone = 10 })
            ),
            (
                "an order names the engine's own fields (state, outcome, bytes or files)",
                Self.submit(Self.order { $0.transfer.outcome = TransferOutcome(statusCode: 200) })
            ),
            (
                "a URL over 8 KiB",
                Self.submit(Self.order { $0.transfer.url = "https://e.com/" + String(repeating: "a", count: 8192) })
            ),
            ("a method that is not 1 to 16 capital letters", Self.submit(Self.order { $0.transfer.method = "get" })),
            (
                "more than 100 header fields",
                Self.submit(
                    Self.order {
                        $0.transfer.headers = Array(repeating: TransferHeader(name: "A", value: "b"), count: 101)
                    }
                )
            ),
            (
                "header fields over 64 KiB",
                Self.submit(
                    Self.order {
                        $0.transfer.headers = [TransferHeader(name: "A", value: String(repeating: "b", count: 65_536))]
                    }
                )
            ),
            (
                "a taskDescription over 4 KiB",
                Self.submit(Self.order { $0.transfer.taskDescription = String(repeating: "d", count: 4097) })
            ),
            (
                "an expected SHA-256 that is not 64 lowercase hexadecimal digits",
                Self.submit(Self.order { $0.transfer.expectedSHA256 = String(repeating: "AB", count: 32) })
            ),
            (
                "an earliestBeginDate not finite",
                Self.submit(Self.order { $0.transfer.earliestBeginUnixSeconds = .infinity })
            ),
            ("an upload path that is empty or over 4 KiB", Self.submit(Self.order { $0.uploadPath = "" })),
            (
                "resume data over 64 KiB",
                Self.submit(Self.order { $0.resumeData = [UInt8](repeating: 1, count: 65_537) })
            ),
            (
                "httpMaximumConnectionsPerHost 0 is not within 1...1000",
                .attach(TransferSessionOptions(app: Self.app, session: "s", maximumConnectionsPerHost: 0))
            ),
            (
                "timeoutIntervalForRequest nan is not a positive number of seconds",
                .attach(TransferSessionOptions(app: Self.app, session: "s", requestTimeoutSeconds: .nan))
            ),
            (
                "timeoutIntervalForResource -1.0 is not a positive number of seconds",
                .attach(TransferSessionOptions(app: Self.app, session: "s", resourceTimeoutSeconds: -1))
            ),
        ]
        for (expected, call) in cases { #expect(call.problem(from: Self.app) == expected) }
    }

    @Test("The largest order the bounds allow fits one frame, well under the 1 MiB limit")
    func largestOrderFitsAFrame() throws {
        let largest = Self.order { order in
            order.transfer.url = "https://e.com/" + String(repeating: "a", count: 8192 - 14)
            order.transfer.headers = (0..<100).map {
                TransferHeader(name: "H\($0)", value: String(repeating: "v", count: 650))
            }
            order.transfer.taskDescription = String(repeating: "d", count: 4096)
            order.uploadPath = "/" + String(repeating: "p", count: 4095)
            order.resumeData = [UInt8](repeating: 0x41, count: 65_536)
        }
        #expect(Self.submit(largest).problem(from: Self.app) == nil)
        let frame = try Frame.encode(ProtocolCodec.encode(DaemonRequest.app(.transfer(Self.submit(largest)))))
        #expect(frame.count < FrameDecoder.defaultMaximumFrameBytes / 4, "\(frame.count) bytes")
    }

    /// Each seed is the fuzz target's input: a first byte choosing the read size, then one frame.
    static func seeds() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for (index, call) in calls.enumerated() {
            seeds.append(
                [UInt8(index % 16)] + (try Frame.encode(ProtocolCodec.encode(DaemonRequest.app(.transfer(call)))))
            )
        }
        for (index, notice) in notices.enumerated() {
            seeds.append(
                [UInt8((index + 5) % 16)]
                    + (try Frame.encode(ProtocolCodec.encode(DaemonResponse.system(.transfer(notice)))))
            )
        }
        return seeds
    }

    @Test("The frame decoder's fuzz corpus holds a seed of every transfer message (WRITE_FUZZ_SEEDS=1 writes them)")
    func corpusSeeds() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/FrameDecoder/corpus")
        let present = Set(
            try FileManager.default.contentsOfDirectory(atPath: corpus.path).compactMap { name in
                FileManager.default.contents(atPath: corpus.appendingPathComponent(name).path).map { [UInt8]($0) }
            }
        )
        for (index, seed) in try Self.seeds().enumerated() where !present.contains(seed) {
            if ProcessInfo.processInfo.environment["WRITE_FUZZ_SEEDS"] == "1" {
                try Data(seed).write(to: corpus.appendingPathComponent("transfer-message-\(index)"))
            } else {
                Issue.record("seed \(index) is missing from Fuzz/FrameDecoder/corpus: run with WRITE_FUZZ_SEEDS=1")
            }
        }
    }

    @Test("Bytes cross as canonical base64: every length round-trips, and text that is not canonical is refused")
    func wireBytes() throws {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let message = SystemMessage.transfer(.resumeData(session: "s", task: 1, WireBytes(bytes)))
            #expect(try ProtocolCodec.decode(SystemMessage.self, from: ProtocolCodec.encode(message)) == message)
        }
        #expect(WireBytes.encode(Array("any carnal pleas".utf8)) == "YW55IGNhcm5hbCBwbGVhcw==")
        #expect(WireBytes.decode("YW55IGNhcm5hbCBwbGVhcw==") == Array("any carnal pleas".utf8))
        for bad in ["YW5", "YW55IGNhcm5hbCBwbGVhcx==", "YW=5", "====", "YW55\n", "YW55IGNhcm5hbCBwbGVhcw=A"] {
            #expect(WireBytes.decode(bad) == nil, "\(bad)")
        }
    }
}
