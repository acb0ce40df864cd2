// libFuzzer target: HTTP responses fed to the transfer engine's response handling, as a hostile
// server sends them. Each input is one download: a stored checkpoint (what a restart restores:
// bytes held, the expected length, validators), a fake DNS, then the responses of up to
// `maximumAttempts` attempts, each with its status, header fields (`Content-Length`,
// `Content-Range`, `ETag`, `Location`… with numbers at the boundaries) and the sizes of its body's
// chunks; a redirect status is followed through the reach rule to the next response.
//
// What runs is the engine's own code below the HTTP client: `DownloadPlan` (what `DownloadAttempt`
// does with a status and fields, where every stated number enters), `HTTPDecimal` and
// `ContentRange`, `DownloadPlan.fits` (each chunk against the announced end),
// `DownloadPlan.ending` and `CompleteResponse` (a resumed download delivered as a `200`),
// `TransferHop.redirectTarget` (a `Location` resolved) and `RedirectReach` (where a redirect may
// lead) with a fake lookup. AsyncHTTPClient and NIO are not compiled in: `DownloadAttempt.perform`
// and `TransferRun.send` glue these calls to the client, and the header limits
// (`TransferRun.checkedHeaders`) are applied here as they are there.
//
// Properties beyond "no crash, no trap": a write starts at 0 or at the bytes held and never ends
// before it starts; no chunk is accepted past the announced end; a continued download holds
// fewer bytes than its expected length; a resumed download's `200` states its whole length once
// and no range; a followed redirect never leads more local than the server that sent it.

import Foundation

final class Box<Value>: @unchecked Sendable { var value: Value? }

/// Runs an async call of the rule to its end. The fake lookup never suspends, so `Task.immediate`
/// runs the whole call on this thread before it returns (a plain `Task` waited for a thread of
/// the global pool at every call, seconds under this machine's load); the semaphore only covers
/// a call that does suspend.
func blocking<Value>(_ body: @escaping @Sendable () async -> Value) -> Value {
    let box = Box<Value>()
    let done = DispatchSemaphore(value: 0)
    Task.immediate {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

struct Response {
    var status: Int
    var headers: [TransferHeader]
    var chunks: [Int64]
}

extension FuzzInput {
    mutating func fieldValue() -> String {
        switch byte() % 6 {
        case 0: return text()
        case 1: return String(number())
        case 2:
            let total = bool() ? "*" : String(number())
            return "bytes \(number())-\(number())/\(total)"
        case 3: return "bytes " + text(limit: 40)
        case 4: return pick(tags)
        default: return pick(urls)
        }
    }

    mutating func response() -> Response {
        let status = byte() < 224 ? pick(statuses) : Int(uint16())
        var headers: [TransferHeader] = []
        for _ in 0..<(byte() % 12) { headers.append(TransferHeader(name: pick(fieldNames), value: fieldValue())) }
        var chunks: [Int64] = []
        for _ in 0..<(byte() % 8) {
            // A buffer's readableBytes: never negative, at most what one read holds.
            chunks.append(bool() ? Int64(byte()) : Int64(uint32() >> 8))
        }
        return Response(status: status, headers: headers, chunks: chunks)
    }
}

/// How local a hop that was followed reaches, when the hop says (nil: the connection looks the
/// name up itself, as it did before the redirect).
func reached(_ hop: TransferHop) -> AddressSpace? {
    switch hop.route {
    case .literal(let address), .pinned(let address): return AddressSpace.of(address, ownAddresses: ownAddresses)
    case .localhost: return .thisHost
    case .named(let known):
        guard let known, !known.isEmpty else { return nil }
        return known.map { AddressSpace.of($0, ownAddresses: ownAddresses) }.max()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTransferResponses(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    // The fake DNS: a few names, each with its addresses.
    var dns: [String: [IPAddress]] = [:]
    for _ in 0..<(input.byte() % 4) {
        let name = input.pick(names)
        dns[name] = (0..<(input.byte() % 4)).compactMap { _ in IPAddress(literal: input.pick(addresses)) }
    }
    let table = dns
    let reach = RedirectReach(
        lookUp: { host, _ in table[host.lowercased()] },
        ownAddresses: { ownAddresses }
    )
    // The stored checkpoint a restart restores.
    let url = input.pick(urls)
    var transfer = TransferCheckpoint(
        app: "a",
        session: "s",
        task: 1,
        kind: .download,
        method: "GET",
        url: url,
        partialFile: "Transfers/s/1.partial",
        bytesDone: input.number(),
        expectedLength: input.bool() ? input.number() : nil,
        entityTag: input.bool() ? input.pick(tags) : nil,
        lastModified: input.bool() ? input.pick(tags) : nil
    )
    if input.bool() { transfer.representationHeaders = [TransferHeader(name: "Content-Length", value: "5")] }
    transfer.clampCounts()  // as BackgroundStore reads a row back

    for attempt in 1...policy.maximumAttempts where !input.isExhausted {
        let isLast = attempt == policy.maximumAttempts
        let resuming = transfer.bytesDone > 0 && (transfer.entityTag != nil || transfer.lastModified != nil)
        if !resuming { transfer.bytesDone = 0 }
        let held = transfer.bytesDone
        var response = input.response()
        // Redirects, one at a time under the reach rule (TransferRun.send).
        let origin = transfer.url
        var hop = blocking { await reach.origin(origin) }
        var visited = [transfer.url]
        var refused = false
        while let current = hop,
            let target = TransferHop.redirectTarget(
                status: UInt(clamping: response.status),
                location: DownloadPlan.field("Location", in: response.headers),
                from: current.url
            )
        {
            guard visited.count <= policy.maximumRedirects, !visited.contains(target) else {
                refused = true
                break
            }
            visited.append(target)
            require(TransferURL.isAllowed(target), "a redirect to a URL transfers refuse: \(target)")
            let decision = blocking { await reach.decide(from: current, to: target) }
            switch decision {
            case .follow(let next):
                let source = blocking { await reach.space(of: current, ownAddresses: ownAddresses) }
                if source != .thisHost, let space = reached(next) {
                    require(space <= source, "a redirect from \(source) led to \(space): \(target)")
                }
                hop = next
                response = input.response()
            case .refused(let refusal):
                require(refusal.targetSpace > refusal.sourceSpace, "refused without cause: \(refusal)")
                refused = true
            case .unresolved:
                refused = true
            }
            if refused { break }
        }
        if refused { continue }
        // The header limits (TransferRun.checkedHeaders).
        let headers = response.headers
        guard headers.count <= policy.maximumHeaderFields,
            TransferHeader.bytes(of: headers) <= policy.maximumHeaderBytes
        else { return 0 }
        let status = response.status
        if (500...599).contains(status) && !isLast { continue }
        let start: Int64
        let end: Int64?
        switch DownloadPlan.plan(status: status, headers: headers, resuming: resuming, transfer: &transfer) {
        case .write(let from, let until):
            require(from == 0 || (resuming && from == held), "a write from \(from) with \(held) held")
            require(until.map { $0 >= from } ?? true, "a write from \(from) until \(until!)")
            require(transfer.expectedLength.map { $0 >= 0 } ?? true, "a negative expected length")
            (start, end) = (from, until)
        case .restart:
            transfer.bytesDone = 0
            transfer.entityTag = nil
            transfer.lastModified = nil
            transfer.representationHeaders = nil
            continue
        }
        // The body, chunk by chunk (DownloadAttempt.receive).
        var offset = start
        var overrun = false
        for count in response.chunks {
            guard DownloadPlan.fits(count, at: offset, end: end) else {
                overrun = true
                break
            }
            offset += count
            require(end.map { offset <= $0 } ?? true, "wrote past the announced end")
            transfer.bytesDone = offset
        }
        if overrun { continue }
        if let end, offset < end { continue }  // the connection closed early: resumed next attempt
        switch DownloadPlan.ending(
            status: status,
            headers: headers,
            start: start,
            transfer: transfer,
            minimumPartBytes: policy.minimumPartBytes
        ) {
        case .continued:
            require(transfer.bytesDone < transfer.expectedLength!, "continued past the expected length")
            require(transfer.bytesDone - start >= policy.minimumPartBytes, "continued after a short part")
        case .shortPart(let part):
            require(part >= 0 && part < policy.minimumPartBytes, "a short part of \(part) bytes")
        case .finished(let code, let fields):
            if status == 206 {
                require(code == 200, "a resumed download delivered as \(code)")
                let lengths = fields.filter { $0.name.lowercased() == "content-length" }
                require(lengths.map(\.value) == [String(transfer.bytesDone)], "lengths \(lengths)")
                require(!fields.contains { $0.name.lowercased() == "content-range" }, "a range delivered")
            } else {
                require(code == status, "status \(status) delivered as \(code)")
            }
            return 0
        }
    }
    return 0
}
