/// The two `/proc/meminfo` figures the reclaim policy needs.
public struct MemoryInfo: Sendable, Hashable {
    /// `MemTotal` in bytes.
    public var totalBytes: UInt64
    /// `MemAvailable` in bytes: the kernel's estimate of what can be allocated without swapping.
    public var availableBytes: UInt64

    /// The values given.
    public init(totalBytes: UInt64, availableBytes: UInt64) {
        self.totalBytes = totalBytes
        self.availableBytes = availableBytes
    }

    /// `availableBytes / totalBytes`, 0...1.
    public var availableFraction: Double {
        totalBytes == 0 ? 0 : Double(min(availableBytes, totalBytes)) / Double(totalBytes)
    }

    /// Reads `MemTotal:` and `MemAvailable:` lines (`Key:   12345 kB`); other lines are ignored.
    /// Missing keys, a unit other than `kB` or a value that is not a number throw
    /// ``DeviceError/malformed(path:reason:)`` naming `path`.
    public init(parsing text: String, path: String) throws(DeviceError) {
        var total: UInt64?
        var available: UInt64?
        for line in text.split(separator: "\n") {
            guard line.hasPrefix("MemTotal:") || line.hasPrefix("MemAvailable:") else { continue }
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[2] == "kB", let kibibytes = UInt64(fields[1]),
                kibibytes <= UInt64.max / 1024
            else {
                throw .malformed(path: path, reason: "\"\(line.prefix(60))\" is not 'Key: N kB'")
            }
            if fields[0] == "MemTotal:" { total = kibibytes * 1024 } else { available = kibibytes * 1024 }
        }
        guard let total else { throw .malformed(path: path, reason: "no MemTotal line") }
        guard let available else {
            throw .malformed(path: path, reason: "no MemAvailable line (a kernel older than 3.14)")
        }
        self.init(totalBytes: total, availableBytes: available)
    }
}
