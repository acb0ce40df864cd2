// libFuzzer target: past the decoder. Every frame an installed app's connection sends is decoded
// into the protocol's typed messages (`WireDecoder`, where instants and durations are built), and
// each event an app may send about itself (`Event.appCallSubject`, the daemon's own filter) is
// handled by the core, as `backgroundd` does, with the system's ticks in between. Built with
// `swiftc -sanitize=fuzzer,address` from BackgroundCore, BackgroundProtocol and swift-collections'
// HeapModule in one module (scripts/fuzz.sh); the corpus is in ./corpus (made by MakeCorpus.swift).
//
// The input is a sequence of records: two bytes of length (big-endian), then that many bytes of a
// message's wire value (the codec's magic and version are added here, so the fuzzer spends no
// time finding them). Properties beyond "no crash, no leak, no trap": the system's invariants
// hold after every message, every instant it schedules lies on the timeline, and the hand-written
// path for a begin+end pair's frames (HotMessages) agrees with the generic codec on every input.

let app: AppID = "a"
let manifest = AppManifest(
    bundleIdentifier: app,
    permittedTaskIdentifiers: ["r", "p"],
    backgroundModes: [.fetch, .processing, .audio, .location, .remoteNotification]
)
let helloLimits = WireLimits(maximumMessageBytes: 64 << 10, maximumDepth: 32, maximumCount: 4096)

/// The app installed, launched in the foreground and active: what a user-started app is when its
/// first frames arrive.
func launchedSystem() -> BackgroundSystem {
    var system = BackgroundSystem(policy: .iOS)
    for event: Event in [.install(manifest), .launch(app, .foreground), .finishLaunching(app), .activate(app)] {
        _ = try? system.handle(event, at: .zero)
    }
    return system
}

/// The hand-written path for a begin+end pair's frames (`HotMessages`) against the generic one:
/// what it reads by hand, the generic decoder reads the same; what it writes, the generic encoder
/// writes byte for byte.
func checkHotMessages(_ request: DaemonRequest, _ payload: [UInt8], _ limits: WireLimits) {
    if let hot = HotMessages.decode(payload, limits: limits) {
        let generic = try? ProtocolCodec.genericDecode(DaemonRequest.self, from: payload, limits: limits)
        precondition(
            hot == generic && hot == request,
            "the hot path read \(hot), the generic one \(String(describing: generic))"
        )
    }
    if let bytes = HotMessages.encode(request) {
        precondition(
            bytes == (try? ProtocolCodec.genericEncode(request)),
            "the hot path wrote other bytes for \(request)"
        )
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppEvents(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var system = launchedSystem()
    var now = Instant.zero
    var index = 0
    var records = 0
    while index + 2 <= bytes.count, records < 64 {
        let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
        index += 2
        let end = min(bytes.count, index + length)
        let payload = ProtocolCodec.magic + [ProtocolCodec.version] + bytes[index..<end]
        index = end
        records += 1
        // Time moves by the record's length in seconds: long waits and short ones alike.
        now = now + .seconds(length % 4096)
        _ = try? system.handle(.tick, at: now)
        let limits = records == 1 ? helloLimits : .standard
        guard let request = try? ProtocolCodec.decode(DaemonRequest.self, from: payload, limits: limits) else {
            continue
        }
        checkHotMessages(request, payload, limits)
        switch request {
        case .app(.event(let event)), .app(.oneWay(let event)):
            guard event.appCallSubject == app else { continue }  // the daemon refuses it
            let effects = (try? system.handle(event, at: now)) ?? []
            for case .scheduleWakeup(let at) in effects {
                precondition(at <= .distantFuture && at >= .distantPast, "a wake-up off the timeline")
            }
        default:
            continue
        }
        let violations = system.checkInvariants()
        precondition(violations.isEmpty, "invariants: \(violations)")
    }
    return 0
}
