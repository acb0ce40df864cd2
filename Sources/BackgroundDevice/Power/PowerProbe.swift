/// Reads the machine's power supplies. The daemon uses ``SysfsPowerProbe``; tests use
/// ``FixedPowerProbe`` or a sysfs probe over a fake tree.
public protocol PowerProbe: Sendable {
    /// The supplies now, sorted by name, or why they cannot be listed.
    func supplies() -> Probed<[PowerSupply]>
}

/// `/sys/class/power_supply` under a ``ProbeRoot``.
///
/// Reads `type`, `online`, `present`, `capacity`, `status` and `scope` of every entry. A missing
/// or garbage attribute is left `nil` and named in ``PowerSupply/problems``; an entry without a
/// readable `type` is skipped with a problem recorded on no supply (it cannot be classified).
public struct SysfsPowerProbe: PowerProbe {
    /// The directory under the root.
    public static let directory = "sys/class/power_supply"
    /// Where the tree is.
    public let root: ProbeRoot

    /// A probe reading `root`.
    public init(root: ProbeRoot = .machine) {
        self.root = root
    }

    public func supplies() -> Probed<[PowerSupply]> {
        let listing = root.entries(Self.directory)
        guard let names = listing.value else { return .unavailable(reason: listing.reason ?? "unreadable") }
        let supplies = names.compactMap(supply(named:))
        return .read(supplies, from: root.resolve(Self.directory))
    }

    /// One entry, or `nil` when its `type` cannot be read.
    func supply(named name: String) -> PowerSupply? {
        let base = Self.directory + "/" + name + "/"
        guard case .success(let type?) = root.attribute(base + "type"), !type.isEmpty else { return nil }
        var supply = PowerSupply(name: name, kind: .init(type))
        var problems: [String] = []
        supply.online = flag(base + "online", problems: &problems)
        supply.present = flag(base + "present", problems: &problems)
        if case .success("Device") = root.attribute(base + "scope") { supply.isDeviceScope = true }
        if supply.kind == .battery {
            supply.capacity = percent(base + "capacity", problems: &problems)
            switch root.attribute(base + "status") {
            case .success(let text?):
                supply.status = PowerSupply.Status(rawValue: text)
                if supply.status == nil { problems.append("status \"\(text.prefix(40))\" is not a known status") }
            case .success(nil): problems.append("no status")
            case .failure(let error): problems.append(error.description)
            }
        } else if supply.kind.isExternal, supply.online == nil {
            problems.append("no readable online")
        }
        supply.problems = problems
        return supply
    }

    private func flag(_ path: String, problems: inout [String]) -> Bool? {
        switch root.attribute(path) {
        case .success("1"): return true
        case .success("0"): return false
        case .success(nil): return nil
        case .success(let other?):
            problems.append("\(path.split(separator: "/").last!) \"\(other.prefix(40))\" is not 0 or 1")
            return nil
        case .failure(let error):
            problems.append(error.description)
            return nil
        }
    }

    private func percent(_ path: String, problems: inout [String]) -> Int? {
        switch root.attribute(path) {
        case .success(let text?):
            guard let value = Int(text), (0...100).contains(value) else {
                problems.append("capacity \"\(text.prefix(40))\" is not a percentage")
                return nil
            }
            return value
        case .success(nil):
            problems.append("no capacity")
            return nil
        case .failure(let error):
            problems.append(error.description)
            return nil
        }
    }
}

/// A power probe that answers what it was given: for the daemon's tests.
public struct FixedPowerProbe: PowerProbe {
    /// The answer.
    public var answer: Probed<[PowerSupply]>

    /// A probe that always answers `answer`.
    public init(_ answer: Probed<[PowerSupply]>) {
        self.answer = answer
    }

    public func supplies() -> Probed<[PowerSupply]> { answer }
}
