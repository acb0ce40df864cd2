/// The framing of messages on a stream socket: a 4-byte big-endian length, then that many bytes
/// of payload (one ``ProtocolCodec`` message).
///
/// Pure and self-contained (no I/O, no other module): the daemon's socket server, the app's
/// client and the fuzz target (`Fuzz/FrameDecoder`) share it. The length is checked against the
/// receiver's limit as soon as the 4 header bytes are in, before any payload is buffered, so a
/// peer can never make the other side hold more than ``maximumFrameBytes`` plus one header.
///
/// ```swift
/// var decoder = FrameDecoder(maximumFrameBytes: 1024)
/// decoder.append(Frame.encode([1, 2, 3]))
/// try decoder.nextFrame()   // [1, 2, 3]
/// try decoder.nextFrame()   // nil: nothing more buffered
/// ```
public struct FrameDecoder: Sendable {
    /// The largest payload accepted by default: 1 MiB, ``WireLimits/standard``'s message size.
    public static let defaultMaximumFrameBytes = 1 << 20

    /// The largest payload this decoder accepts.
    /// The largest payload accepted; it may be raised once a peer is known (a small limit for
    /// its first frame, the usual one after).
    public var maximumFrameBytes: Int {
        didSet { maximumFrameBytes = max(0, maximumFrameBytes) }
    }
    private var buffer: [UInt8] = []
    private var start = 0

    /// Creates a decoder that refuses payloads larger than `maximumFrameBytes`.
    public init(maximumFrameBytes: Int = FrameDecoder.defaultMaximumFrameBytes) {
        self.maximumFrameBytes = max(0, maximumFrameBytes)
    }

    /// How many received bytes are not yet part of a returned frame.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds bytes read from the stream.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame's payload, or `nil` if more bytes are needed.
    ///
    /// - Throws: ``FrameError/tooLarge(length:limit:)`` as soon as a header announces more than
    ///   ``maximumFrameBytes``; the stream cannot be resynchronised after that, so the caller
    ///   closes it.
    public mutating func nextFrame() throws(FrameError) -> [UInt8]? {
        let available = buffer.count - start
        guard available >= Frame.headerSize else { return nil }
        var length = 0
        for index in 0..<Frame.headerSize { length = length << 8 | Int(buffer[start + index]) }
        guard length <= maximumFrameBytes else { throw .tooLarge(length: length, limit: maximumFrameBytes) }
        guard available - Frame.headerSize >= length else { return nil }
        let payloadStart = start + Frame.headerSize
        let payload = Array(buffer[payloadStart..<(payloadStart + length)])
        start = payloadStart + length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            start = 0
        }
        return payload
    }
}

/// Frame encoding: the header and the payload.
public enum Frame {
    /// The size of the length header, in bytes.
    public static let headerSize = 4

    /// A frame carrying `payload`.
    ///
    /// - Throws: ``FrameError/tooLarge(length:limit:)`` if the payload does not fit the 32-bit
    ///   header or is larger than `limit`.
    public static func encode(
        _ payload: some Collection<UInt8>,
        limit: Int = FrameDecoder.defaultMaximumFrameBytes
    ) throws(FrameError) -> [UInt8] {
        guard payload.count <= limit, payload.count <= Int(UInt32.max) else {
            throw .tooLarge(length: payload.count, limit: limit)
        }
        let length = UInt32(payload.count)
        var bytes: [UInt8] = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) }
        bytes.reserveCapacity(headerSize + payload.count)
        bytes.append(contentsOf: payload)
        return bytes
    }
}

/// A frame that breaks the framing's rules; the connection it came on is closed.
public enum FrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The header announces a payload larger than the receiver accepts.
    case tooLarge(length: Int, limit: Int)

    public var description: String {
        switch self {
        case .tooLarge(let length, let limit):
            return "a frame of \(length) bytes is larger than the \(limit) allowed"
        }
    }
}
