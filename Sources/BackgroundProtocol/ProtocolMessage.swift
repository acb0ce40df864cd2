public import BackgroundCore

/// What an app's runtime sends the system across a process boundary.
public enum AppMessage: Sendable, Hashable, Codable {
    /// An app call or a callback's return, as the core's event, answered with
    /// ``SystemMessage/answer(_:_:)``: for the calls whose caller waits for the system's reply
    /// (``Event/awaitsAnswer``).
    case event(Event)
    /// An app call or a callback's return that nothing waits for (an end, an app-allocated
    /// begin, a handler's return, a cancel, a completion): not answered; the effects it causes
    /// for the app are pushed (``SystemMessage/pushed(_:)``), in order.
    case oneWay(Event)
    /// A question about the app's own requests; answered with ``SystemMessage/queryAnswer(_:)``.
    case query(AppQuery)
    /// A background `URLSession`'s call: the daemon runs the app's transfers (version 3).
    case transfer(TransferCall)
}

/// What an app may ask the system about its own requests (a round trip: Apple's API answers
/// these through XPC too).
public enum AppQuery: Sendable, Hashable, Codable {
    /// `BGTaskScheduler.getPendingTaskRequests`.
    case pendingTaskRequests
    /// Why the pending request with this identifier has not run.
    case eligibility(identifier: String)
    /// Everything about a request identifier (`bgctl why`).
    case explanation(identifier: String)
}

/// The system's answer to an ``AppQuery``.
public enum AppQueryAnswer: Sendable, Hashable, Codable {
    /// The app's pending requests, oldest first.
    case pendingTaskRequests([TaskRequest])
    /// The eligibility, or nil if no request with that identifier is pending.
    case eligibility(Eligibility?)
    /// The explanation, or nil if the identifier is neither pending nor in the history.
    case explanation(RequestExplanation?)
}

extension BackgroundSystem {
    /// The answer to an app's question about its own requests, at `now`: the one reading of a
    /// question, for every system that holds the core (in the app's process, the simulator's,
    /// the daemon's).
    public func answer(_ query: AppQuery, of app: AppID, at now: Instant) -> AppQueryAnswer {
        switch query {
        case .pendingTaskRequests:
            return .pendingTaskRequests(pendingRequests(of: app))
        case .eligibility(let identifier):
            return .eligibility(eligibility(of: app, identifier: identifier, at: now))
        case .explanation(let identifier):
            return .explanation(explanation(of: app, identifier: identifier, at: now))
        }
    }
}

extension Event {
    /// Whether the app's call waits for the system's reply: `beginAssertion` (the form that
    /// asks; the runtime allocates its own identifiers and sends ``assertionBegun(_:_:name:origin:hasExpirationHandler:)``
    /// one way), `registerTaskHandler` (its `Bool`), `submitTaskRequest` (its rejection) and
    /// `beginModeActivity` (whether the mode is held).
    /// Every other app event is sent one way (docs/core-contract.md, "No round trip").
    public var awaitsAnswer: Bool {
        switch self {
        case .beginAssertion, .registerTaskHandler, .submitTaskRequest, .beginModeActivity: return true
        default: return false
        }
    }
}

/// What the system sends an app's runtime.
public enum SystemMessage: Sendable, Hashable, Codable {
    /// The answer to the last ``AppMessage/event(_:)``: its reply and the effects addressed to
    /// the app, in order.
    case answer(Reply?, [Effect])
    /// Effects the system decided on its own (a deadline, another app's action), in order.
    case pushed([Effect])
    /// The app's grant state changed (lifecycle, budget, incarnation); sent before any other
    /// message about the change.
    case state(GrantState)
    /// The answer to the last ``AppMessage/query(_:)``.
    case queryAnswer(AppQueryAnswer)
    /// About the app's background transfers (version 3): the answer to an attach
    /// (its last part answers the round trip), or a push.
    case transfer(TransferNotice)
}

/// The protocol's byte form: 4 magic bytes (`BGX` and the version), then one ``WireValue``.
///
/// Version 4 (version 3 had no manifest reload, ``ControlRequest/reloadManifests``; version 2 no
/// background transfers; version 1 no one-way events, queries, pushed grant state in the welcome
/// or re-declaration in the hello). A reader refuses another version (a daemon answers it with
/// ``versionRefusal(toClientSpeaking:)``), bytes that are not a message, and anything over
/// its ``WireLimits`` with a ``WireError``; on a stream socket each message is one frame
/// (``Frame``, ``FrameDecoder``).
public enum ProtocolCodec {
    /// The version this code speaks.
    public static let version: UInt8 = 4
    static let magic: [UInt8] = [0x42, 0x47, 0x58]  // "BGX"

    /// A message's bytes.
    public static func encode<Message: Encodable>(_ message: Message) throws -> [UInt8] {
        try genericEncode(message)
    }

    /// A message's bytes through `Codable` (``WireEncoder``): every message's form.
    static func genericEncode<Message: Encodable>(_ message: Message) throws -> [UInt8] {
        var bytes = magic + [version]
        try WireEncoder().encode(message).write(into: &bytes)
        return bytes
    }

    /// A request's bytes: a begin or an end by hand (``HotMessages``), the same bytes as the
    /// generic path, which writes every other request.
    public static func encode(_ request: DaemonRequest) throws -> [UInt8] {
        if let bytes = HotMessages.encode(request) { return bytes }
        return try genericEncode(request)
    }

    /// A response's bytes: a granted begin by hand (``HotMessages``), the same bytes as the
    /// generic path, which writes every other response.
    public static func encode(_ response: DaemonResponse) throws -> [UInt8] {
        if let bytes = HotMessages.encode(response) { return bytes }
        return try genericEncode(response)
    }

    /// The version a message says it is in (its fourth byte), or nil for bytes that are not a
    /// message of this protocol.
    public static func version(of bytes: [UInt8]) -> UInt8? {
        guard bytes.count >= 4, bytes[0] == magic[0], bytes[1] == magic[1], bytes[2] == magic[2] else { return nil }
        return bytes[3]
    }

    /// The answer to a hello in another version: `refused(unsupportedVersion)` naming both
    /// versions, in the client's version.
    ///
    /// A daemon serves one version. What every version's reader can decode is this one answer:
    /// a ``DaemonResponse/refused(_:)`` with a ``DaemonRefusal`` (`code`, `message`), whose form
    /// has not changed since version 1 and never will (`ProtocolVersionTests` pins its bytes).
    /// Stamped with the client's version byte, it reaches an older or newer client as a
    /// refusal it can read and show, where a frame of this version would be "not supported".
    public static func versionRefusal(toClientSpeaking clientVersion: UInt8) -> [UInt8] {
        let refusal = DaemonResponse.refused(
            DaemonRefusal(
                .unsupportedVersion,
                "this backgroundd speaks protocol version \(version), the client \(clientVersion): "
                    + "use a client (the app's BackgroundExecution, bgctl) built from the same release as the daemon"
            )
        )
        // swift-format-ignore: NeverUseForceTry
        var bytes = try! encode(refusal)  // a refusal of a few hundred bytes always encodes
        bytes[3] = clientVersion
        return bytes
    }

    /// A frame in another version than this one, read as the one message every version can
    /// decode (``versionRefusal(toClientSpeaking:)``): the refusal, or nil if it is not one.
    public static func refusalOfAnyVersion(_ bytes: [UInt8]) -> DaemonRefusal? {
        guard let theirs = Self.version(of: bytes), theirs != version else { return nil }
        var restamped = bytes
        restamped[3] = version
        guard case .refused(let refusal)? = try? decode(DaemonResponse.self, from: restamped) else { return nil }
        return refusal
    }

    /// A daemon's answer as a client reads it: a message of this version, or the refusal of a
    /// daemon of another release (``refusalOfAnyVersion(_:)``).
    public static func decodeAnswer(from bytes: [UInt8]) throws -> DaemonResponse {
        if let refusal = refusalOfAnyVersion(bytes) { return .refused(refusal) }
        return try decode(DaemonResponse.self, from: bytes)
    }

    /// The message in `bytes`, checked against `limits`.
    public static func decode<Message: Decodable>(
        _ type: Message.Type,
        from bytes: [UInt8],
        limits: WireLimits = .standard
    ) throws -> Message {
        try genericDecode(type, from: bytes, limits: limits)
    }

    /// The request in `bytes`, checked against `limits`: a begin or an end read by hand
    /// (``HotMessages``), every other request, and anything malformed, the generic way; the
    /// same value or error either way.
    public static func decode(
        _ type: DaemonRequest.Type,
        from bytes: [UInt8],
        limits: WireLimits = .standard
    ) throws -> DaemonRequest {
        if Self.version(of: bytes) == version, let request = HotMessages.decode(bytes, limits: limits) {
            return request
        }
        return try genericDecode(type, from: bytes, limits: limits)
    }

    /// The response in `bytes`, checked against `limits`: a granted begin read by hand
    /// (``HotMessages``), every other response the generic way; the same value or error either way.
    public static func decode(
        _ type: DaemonResponse.Type,
        from bytes: [UInt8],
        limits: WireLimits = .standard
    ) throws -> DaemonResponse {
        if Self.version(of: bytes) == version, let response = HotMessages.decodeResponse(bytes, limits: limits) {
            return response
        }
        return try genericDecode(type, from: bytes, limits: limits)
    }

    /// The message in `bytes` through `Codable` (``WireDecoder``): every message's form.
    static func genericDecode<Message: Decodable>(
        _ type: Message.Type,
        from bytes: [UInt8],
        limits: WireLimits
    ) throws -> Message {
        guard let theirs = Self.version(of: bytes) else { throw WireError.notAMessage }
        guard theirs == version else { throw WireError.unsupportedVersion(theirs) }
        let value = try WireValue.read(Array(bytes[4...]), limits: limits)
        do {
            return try WireDecoder().decode(type, from: value)
        } catch {
            throw WireError.shape("\(error)")
        }
    }
}
