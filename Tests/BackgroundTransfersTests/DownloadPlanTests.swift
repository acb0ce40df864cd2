import BackgroundCore
import Testing

@testable import BackgroundTransfers

/// What a download does with a response's status and fields, without a connection
/// (`DownloadPlan`, the part of `DownloadAttempt` the transfer-responses fuzz target drives).
@Suite("DownloadPlan: a response's status and fields decide where its body goes")
struct DownloadPlanTests {
    static func held(_ bytes: Int64, tag: String? = "\"v1\"", length: Int64? = nil) -> TransferCheckpoint {
        TransferCheckpoint(
            app: "com.example.plan",
            session: "s",
            task: 1,
            kind: .download,
            method: "GET",
            url: "http://127.0.0.1:9/a",
            bytesDone: bytes,
            expectedLength: length,
            entityTag: tag
        )
    }

    @Test("A 206 that continues what is held is written from there; one that does not, or past 18 digits, starts over")
    func ranges() {
        var transfer = Self.held(10, length: 1000)
        let fields = [TransferHeader(name: "content-RANGE", value: "bytes 10-999/1000")]
        #expect(
            DownloadPlan.plan(status: 206, headers: fields, resuming: true, transfer: &transfer)
                == .write(from: 10, until: 1000)
        )
        for range in ["bytes 11-999/1000", "bytes 10-9223372036854775807/*", "bytes 10-999/999", "bytes 10-9/*"] {
            var other = Self.held(10, length: 1000)
            let plan = DownloadPlan.plan(
                status: 206,
                headers: [TransferHeader(name: "Content-Range", value: range)],
                resuming: true,
                transfer: &other
            )
            guard case .restart = plan else {
                Issue.record("\(range) planned \(plan)")
                continue
            }
        }
    }

    @Test("A 200 starts over with its length and strong validator; field names match without case, ASCII only")
    func fullResponse() {
        var transfer = Self.held(10)
        let fields = [
            TransferHeader(name: "CONTENT-LENGTH", value: "5"), TransferHeader(name: "ETag", value: "W/\"weak\""),
            TransferHeader(name: "Content-Lengt\u{212A}", value: "7"),
        ]
        #expect(
            DownloadPlan.plan(status: 200, headers: fields, resuming: true, transfer: &transfer)
                == .write(from: 0, until: 5)
        )
        #expect(transfer.bytesDone == 0 && transfer.expectedLength == 5 && transfer.entityTag == nil)
        #expect(DownloadPlan.field("content-lengtk", in: fields) == nil, "the Kelvin sign is not a k")
    }

    @Test("Chunks past the announced end are refused; a resumed 206 ends as the whole resource's 200")
    func endings() {
        #expect(DownloadPlan.fits(5, at: 10, end: 15) && !DownloadPlan.fits(6, at: 10, end: 15))
        #expect(DownloadPlan.fits(.max, at: 0, end: nil))
        var transfer = Self.held(1000, length: 1000)
        transfer.representationHeaders = [TransferHeader(name: "Content-Length", value: "1000")]
        let ending = DownloadPlan.ending(
            status: 206,
            headers: [TransferHeader(name: "Content-Range", value: "bytes 10-999/1000")],
            start: 10,
            transfer: transfer,
            minimumPartBytes: 16
        )
        #expect(ending == .finished(statusCode: 200, headers: [TransferHeader(name: "Content-Length", value: "1000")]))
        transfer.bytesDone = 20
        #expect(
            DownloadPlan.ending(status: 206, headers: [], start: 10, transfer: transfer, minimumPartBytes: 16)
                == .shortPart(10)
        )
    }
}
