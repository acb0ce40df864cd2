/// What the loopback server answers on one path, and how it misbehaves.
public struct LoopbackRoute: Sendable {
    /// How a response lies about its body.
    public enum Lie: Sendable, Hashable {
        /// A 206 whose Content-Range starts `by` bytes after the requested offset.
        case rangeStartsLater(by: Int64)
        /// A 206 whose Content-Range starts at 0 whatever was asked.
        case rangeFromZero
        /// A Content-Length `by` bytes larger than the body sent (the connection then closes).
        case lengthLongerThanBody(by: Int64)
        /// A 206 that states this `Content-Range` text and no Content-Length (its body as
        /// sent), as a hostile server may: `bytes 10-9223372036854775807/*`.
        case statedRange(String)
    }

    /// The status of a successful answer.
    public var status: Int = 200
    /// The body's length; its bytes are ``LoopbackRoute/byte(at:version:)``.
    public var size: Int64
    /// The resource's version: changing it changes every byte, the ETag and Last-Modified.
    public var version: Int = 1
    /// Whether an ETag is sent.
    public var sendsEntityTag = true
    /// Whether Last-Modified is sent.
    public var sendsLastModified = true
    /// Whether `Range` is honoured (`Accept-Ranges: bytes`).
    public var supportsRanges = true
    /// Answer with a redirect (``redirectStatus``) to this path of the same server, or to this
    /// URL when it starts with `http://` or `https://`, instead.
    public var redirectTo: String?
    /// The status of a redirect.
    public var redirectStatus = 302
    /// Answer this many requests with a 503 before succeeding.
    public var failuresBeforeSuccess = 0
    /// Close the connection after this many body bytes, for the next ``drops`` responses.
    public var dropAfterBytes: Int64?
    /// How many responses are cut by ``dropAfterBytes``.
    public var drops = 1
    /// Every answer stops sending when it reaches this body offset, keeping its connection open,
    /// until the route changes: a client killed meanwhile was killed mid-body, and a client that
    /// times out and retries gets no further, however loaded the machine.
    public var stallAtOffset: Int64?
    /// Whether the resource changes (its version goes up) each time a response is cut.
    public var changesWhenDropped = false
    /// Send the body in chunks of this size with this pause between them (milliseconds).
    public var slowChunk: (bytes: Int, pauseMilliseconds: Int64)?
    /// Header fields added to every answer.
    public var extraHeaders: [(String, String)] = []
    /// Header fields added only to answers with the whole body (`200`): a server may leave
    /// them out of a `206`.
    public var wholeAnswerHeaders: [(String, String)] = []
    /// A `206` carries at most this many bytes (its `Content-Range` ends there), as a server
    /// that answers part of the range asked for does.
    public var maximumPartBytes: Int64?
    /// A lie told in every answer.
    public var lie: Lie?
    /// Answer an upload (POST or PUT) with the route's body of `size` bytes, not a short text.
    public var answersUploadsWithBody = false

    /// A route serving `size` bytes.
    public init(size: Int64) {
        self.size = size
    }

    /// The pattern's period: a prime, so that no power-of-two chunking lines up with it.
    public static let period: Int64 = 65521

    /// The body's byte at `offset` for `version`: a pattern that differs between versions.
    public static func byte(at offset: Int64, version: Int) -> UInt8 {
        let position = offset % period
        return UInt8(truncatingIfNeeded: (position &* 31) ^ (position >> 7) &+ Int64(version) &* 97)
    }

    /// The whole body (for small routes in tests).
    public func body() -> [UInt8] { (0..<size).map { Self.byte(at: $0, version: version) } }

    /// The strong ETag of this version.
    public var entityTag: String { "\"v\(version)-\(size)\"" }

    /// The Last-Modified date of this version.
    public var lastModified: String {
        "Mon, 0\(1 + version % 9) Jan 2024 00:00:00 GMT"
    }
}

/// What the server counted on one path.
public struct LoopbackCounters: Sendable, Hashable {
    /// Requests received.
    public var requests = 0
    /// Body bytes sent in answers.
    public var bytesSent: Int64 = 0
    /// Body bytes handed to the socket for each answer, in order (a cut connection loses those
    /// still in flight: the client may have received fewer).
    public var bytesPerAnswer: [Int64] = []
    /// The first byte asked for by each request with a Range (in order).
    public var rangeStarts: [Int64] = []
    /// Body bytes received (uploads).
    public var bytesReceived: Int64 = 0
    /// The last upload's body (at most 1 MiB kept) and its length.
    public var lastUpload: [UInt8] = []
    /// The last request's header fields, lowercased names.
    public var lastHeaders: [String: String] = [:]

    public init() {}
}
