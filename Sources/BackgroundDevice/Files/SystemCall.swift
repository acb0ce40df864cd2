import Glibc

/// System calls with the project's rules: `EINTR` is retried, every other failure becomes a
/// typed ``DeviceError`` naming the call and its target.
enum SystemCall {
    /// Runs `body` until it does not fail with `EINTR`; a negative result throws.
    @discardableResult
    static func retrying<Result: BinaryInteger>(
        _ call: String,
        _ target: String,
        _ body: () -> Result
    ) throws(DeviceError) -> Result {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw .system(call: call, target: target, errno: code)
        }
    }

    /// Closes a descriptor the caller owns; `close` is never retried on Linux (the descriptor is
    /// released even when it reports `EINTR`).
    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// Writes all of `bytes` to `descriptor`.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], target: String) throws(DeviceError) {
        var offset = 0
        while offset < bytes.count {
            let written = try retrying("write", target) {
                bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            }
            if written == 0 { throw .system(call: "write", target: target, errno: EIO) }
            offset += written
        }
    }
}
