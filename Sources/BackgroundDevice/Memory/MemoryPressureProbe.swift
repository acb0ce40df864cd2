/// Memory pressure: the PSI figures and available memory.
public struct MemoryPressure: Sendable, Hashable {
    /// The PSI file's figures.
    public var stall: PressureStall
    /// The file they came from (a cgroup's `memory.pressure` or `/proc/pressure/memory`).
    public var stallSource: String
    /// `/proc/meminfo`, when readable.
    public var memory: MemoryInfo?

    /// The values given.
    public init(stall: PressureStall, stallSource: String, memory: MemoryInfo?) {
        self.stall = stall
        self.stallSource = stallSource
        self.memory = memory
    }
}

/// Reads memory pressure. The daemon uses ``ProcMemoryPressureProbe``; tests use
/// ``FixedMemoryPressureProbe`` or the proc probe over a fake tree.
public protocol MemoryPressureProbe: Sendable {
    /// The pressure now, or why it cannot be read.
    func pressure() -> Probed<MemoryPressure>
}

/// A cgroup's `memory.pressure` where cgroup v2 gives one, else `/proc/pressure/memory`; plus
/// `MemAvailable` and `MemTotal` from `/proc/meminfo`.
public struct ProcMemoryPressureProbe: MemoryPressureProbe {
    /// The system-wide PSI file under the root.
    public static let systemFile = "proc/pressure/memory"
    /// `/proc/meminfo` under the root.
    public static let meminfoFile = "proc/meminfo"
    /// Where the tree is.
    public let root: ProbeRoot
    /// The cgroup v2 directory whose `memory.pressure` to read, relative to the root
    /// (`sys/fs/cgroup/unified/backgroundd`), or `nil` for the system-wide file only.
    public let cgroup: String?

    /// A probe reading `root`, preferring `cgroup`'s own file.
    public init(root: ProbeRoot = .machine, cgroup: String? = nil) {
        self.root = root
        self.cgroup = cgroup
    }

    /// The PSI file this probe reads: the cgroup's when it exists, else the system's; `nil` when
    /// neither exists (a kernel without `CONFIG_PSI`, or booted with `psi=0`).
    public var stallFile: String? {
        if let cgroup, root.exists(cgroup + "/memory.pressure") { return cgroup + "/memory.pressure" }
        return root.exists(Self.systemFile) ? Self.systemFile : nil
    }

    public func pressure() -> Probed<MemoryPressure> {
        guard let file = stallFile else {
            return .unavailable(reason: "no \(root.resolve(Self.systemFile)) (a kernel without PSI)")
        }
        let path = root.resolve(file)
        let stall: PressureStall
        do {
            guard let text = try root.read(file) else { return .unavailable(reason: "\(path) vanished") }
            stall = try PressureStall(parsing: text)
        } catch let error as DeviceError {
            return .unavailable(reason: error.description)
        } catch let error as PressureStallError {
            return .unavailable(reason: "\(path): \(error)")
        } catch {
            return .unavailable(reason: "\(path): \(error)")
        }
        var memory: MemoryInfo?
        if case .success(let text?) = Result(catching: { () throws(DeviceError) in try root.read(Self.meminfoFile) }) {
            memory = try? MemoryInfo(parsing: text, path: root.resolve(Self.meminfoFile))
        }
        let reading = MemoryPressure(stall: stall, stallSource: path, memory: memory)
        return .read(reading, from: path)
    }
}

/// A memory probe that answers what it was given: for the daemon's tests.
public struct FixedMemoryPressureProbe: MemoryPressureProbe {
    /// The answer.
    public var answer: Probed<MemoryPressure>

    /// A probe that always answers `answer`.
    public init(_ answer: Probed<MemoryPressure>) {
        self.answer = answer
    }

    public func pressure() -> Probed<MemoryPressure> { answer }
}
