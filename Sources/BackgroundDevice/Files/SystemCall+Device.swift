import BackgroundPosix
import Glibc

/// The project's one ``SystemCall`` (BackgroundPosix: `EINTR` retried there, in one place), with
/// its failures as the probes' typed ``DeviceError`` naming the call and its target.
extension SystemCall {
    /// `SystemCall.retrying`, its failure as ``DeviceError/system(call:target:errno:)``.
    @discardableResult
    static func checked<Result: FixedWidthInteger>(
        _ call: String,
        _ target: String,
        _ body: () -> Result
    ) throws(DeviceError) -> Result {
        do {
            return try retrying(call, target, body)
        } catch {
            throw .system(call: error.call, target: target, errno: error.code)
        }
    }

    /// Writes all of `bytes` to `descriptor` (`SystemCall.writeAll`), its failure as a ``DeviceError``.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], target: String) throws(DeviceError) {
        do {
            try writeAll(descriptor, bytes)
        } catch {
            throw .system(call: error.call, target: target, errno: error.code)
        }
    }
}
