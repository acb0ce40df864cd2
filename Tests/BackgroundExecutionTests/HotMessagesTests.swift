import BackgroundCore
import Testing

@testable import BackgroundProtocol

/// The hand-written path for a begin+end pair's frames (`HotMessages`) against the generic
/// `Codable` path it stands in for: the same bytes written, the same values read, and anything
/// that is not exactly a hot message left to the generic path, errors included.
struct HotMessagesTests {
    static let app: AppID = "com.example.hot"
    static let origins = [
        CallSite(),
        CallSite(fileIDText: "Módulo/Fichier ✓.swift", line: 0, functionText: "upload(_:)"),
        CallSite(fileIDText: "", line: UInt.max, functionText: "\u{0}\n\"x\""),
    ]

    static var hotEvents: [Event] {
        var events: [Event] = []
        for origin in origins {
            for name in ["Upload", "", String(repeating: "é", count: 300)] {
                events.append(.beginAssertion(app, name: name, origin: origin, hasExpirationHandler: true))
                events.append(.beginAssertion(app, name: name, origin: origin, hasExpirationHandler: false))
                events.append(
                    .assertionBegun(
                        app,
                        AssertionID(rawValue: 7),
                        name: name,
                        origin: origin,
                        hasExpirationHandler: name.isEmpty
                    )
                )
            }
        }
        for id in [1, 0, -1, Int.max, Int.min] {
            events.append(.endAssertion(app, AssertionID(rawValue: id)))
            events.append(.expirationHandlerReturned("", AssertionID(rawValue: id)))
        }
        return events
    }

    static var hotRequests: [DaemonRequest] {
        hotEvents.flatMap { [DaemonRequest.app(.event($0)), .app(.oneWay($0))] }
    }

    @Test("A hot request is written byte for byte as the generic encoder writes it, and read back equal by both paths")
    func requestsMatchTheGenericPath() throws {
        #expect(Self.hotRequests.count == 74)
        for request in Self.hotRequests {
            let generic = try ProtocolCodec.genericEncode(request)
            let hot = try #require(HotMessages.encode(request), "\(request) is a hot request")
            #expect(hot == generic, "\(request)")
            #expect(HotMessages.decode(generic, limits: .standard) == request)
            #expect(try ProtocolCodec.genericDecode(DaemonRequest.self, from: hot, limits: .standard) == request)
            #expect(try ProtocolCodec.encode(request) == generic)
            #expect(try ProtocolCodec.decode(DaemonRequest.self, from: generic) == request)
        }
    }

    @Test("The round-trip begin's answer is written and read by hand, the same bytes and value as the generic path")
    func grantedAnswer() throws {
        for id in [1, 42, Int.max, Int.min] {
            let response = DaemonResponse.system(.answer(.granted(AssertionID(rawValue: id)), []))
            let generic = try ProtocolCodec.genericEncode(response)
            #expect(HotMessages.encode(response) == generic)
            #expect(HotMessages.decodeResponse(generic, limits: .standard) == response)
            #expect(try ProtocolCodec.decode(DaemonResponse.self, from: generic) == response)
        }
        let others: [DaemonResponse] = [
            .system(.answer(nil, [])),
            .system(.answer(.granted(AssertionID(rawValue: 1)), [.suspend(Self.app)])),
            .system(.answer(.denied(reason: "no"), [])),
            .logLine("x"),
        ]
        for response in others {
            #expect(HotMessages.encode(response) == nil, "\(response)")
            let bytes = try ProtocolCodec.encode(response)
            #expect(bytes == (try ProtocolCodec.genericEncode(response)))
            #expect(HotMessages.decodeResponse(bytes, limits: .standard) == nil)
            #expect(try ProtocolCodec.decode(DaemonResponse.self, from: bytes) == response)
        }
    }

    @Test("Other requests go the generic way, unchanged")
    func otherRequestsAreLeftAlone() throws {
        let others: [DaemonRequest] = [
            .hello(ClientHello(role: .control)),
            .app(.event(.activate(Self.app))),
            .app(.oneWay(.tick)),
            .app(.query(.pendingTaskRequests)),
            .control(.status),
        ]
        for request in others {
            #expect(HotMessages.encode(request) == nil, "\(request)")
            let bytes = try ProtocolCodec.encode(request)
            #expect(bytes == (try ProtocolCodec.genericEncode(request)))
            #expect(HotMessages.decode(bytes, limits: .standard) == nil)
            #expect(try ProtocolCodec.decode(DaemonRequest.self, from: bytes) == request)
        }
    }

    @Test("Every prefix, every one-byte change and every extension of a hot frame reads the same on both paths")
    func damagedFramesAgree() throws {
        let request = DaemonRequest.app(
            .oneWay(
                .assertionBegun(
                    Self.app,
                    AssertionID(rawValue: 3),
                    name: "Sync",
                    origin: CallSite(fileIDText: "A/B.swift", line: 9, functionText: "f()"),
                    hasExpirationHandler: true
                )
            )
        )
        let bytes = try ProtocolCodec.encode(request)
        var variants: [[UInt8]] = []
        for length in 0..<bytes.count { variants.append(Array(bytes[..<length])) }
        for index in bytes.indices {
            for replacement: UInt8 in [0, 1, 2, 3, 5, 6, 7, 0x7F, 0xFF] where replacement != bytes[index] {
                var changed = bytes
                changed[index] = replacement
                variants.append(changed)
            }
        }
        variants.append(bytes + [0])
        var readByHand = 0
        for variant in variants {
            let generic = Result {
                try ProtocolCodec.genericDecode(DaemonRequest.self, from: variant, limits: .standard)
            }
            let chosen = Result { try ProtocolCodec.decode(DaemonRequest.self, from: variant) }
            switch (generic, chosen) {
            case (.success(let a), .success(let b)): #expect(a == b)
            case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)")
            default: Issue.record("the paths disagree on \(variant)")
            }
            if Self.version(variant), HotMessages.decode(variant, limits: .standard) != nil { readByHand += 1 }
        }
        // Some changes keep a hot message (a letter of a string, a number): those were read by hand.
        #expect(readByHand > 100)
        // Limits apply as on the generic path: the size counts the value, after magic and version.
        let exact = WireLimits(maximumMessageBytes: bytes.count - 4)
        #expect(try ProtocolCodec.decode(DaemonRequest.self, from: bytes, limits: exact) == request)
        let tight = WireLimits(maximumMessageBytes: bytes.count - 5)
        #expect(throws: WireError.tooLarge(bytes: bytes.count - 4, limit: bytes.count - 5)) {
            try ProtocolCodec.decode(DaemonRequest.self, from: bytes, limits: tight)
        }
        let shallow = WireLimits(maximumDepth: 3)
        #expect(throws: WireError.tooDeep(limit: 3)) {
            try ProtocolCodec.decode(DaemonRequest.self, from: bytes, limits: shallow)
        }
    }

    private static func version(_ bytes: [UInt8]) -> Bool { ProtocolCodec.version(of: bytes) == ProtocolCodec.version }
}
