import BackgroundPosix
import CProcessSpawn
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The controller's cgroup v2 subtree: `<root>/<subtree name>`, one child cgroup per app.
///
/// The subtree and every app's cgroup are opened with ``SecureDirectory``: walked from `/`
/// without following links, every ancestor owned by root or the daemon's user and not writable
/// by others, the directory itself owned by the daemon's user and writable by nobody else. A
/// cgroup directory someone else could write (a delegation to the wrong user, a planted link)
/// is refused, and the controller falls back to signals with that reason.
final class CgroupTree: Sendable {
    /// What detection found.
    enum Detection {
        case available(CgroupTree)
        case unavailable(reason: String)
    }

    /// The subtree's absolute path.
    let path: String
    private let directory: SecureDirectory

    private init(path: String, directory: SecureDirectory) {
        self.path = path
        self.directory = directory
    }

    /// Finds the root (configured, or the daemon's own cgroup under the cgroup2 mount),
    /// creates the subtree, and proves it works: a probe cgroup is created, frozen, thawed,
    /// a process is started in it, and it is removed again.
    static func detect(_ configuration: ProcessControlConfiguration) -> Detection {
        let name = configuration.subtreeName
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..", !name.hasPrefix("cgroup.") else {
            return .unavailable(reason: "the subtree name '\(name)' is not one cgroup name")
        }
        let root: String
        if let configured = configuration.cgroupRoot {
            root = configured
        } else {
            switch CgroupLocation.ownCgroup() {
            case .success(let path): root = path
            case .failure(let problem): return .unavailable(reason: problem.reason)
            }
        }
        let path = (root.hasSuffix("/") ? String(root.dropLast()) : root) + "/" + name
        let directory: SecureDirectory
        do {
            directory = try SecureDirectory.open(path, access: .ownerWritable, creating: true)
        } catch {
            return .unavailable(reason: error.description)
        }
        let tree = CgroupTree(path: path, directory: directory)
        do {
            try tree.probe()
        } catch {
            return .unavailable(reason: error.description)
        }
        return .available(tree)
    }

    /// Creates, freezes, thaws, populates and removes a throwaway cgroup.
    private func probe() throws(ProcessControlError) {
        let leaf = try makeLeaf(named: LeafName(label: "probe", serial: ProcessSerial.next()).text)
        defer { try? leaf.remove() }
        try leaf.setFrozen(true)
        guard try leaf.waitUntilFrozen(timeout: .seconds(1)) else {
            throw ProcessControlError(.cgroupFailed, operation: "probe \(leaf.path)", reason: "never reported frozen")
        }
        try leaf.setFrozen(false)
        let error = cps_probe_cgroup(leaf.directory.descriptor, leaf.procs)
        guard error == 0 else {
            throw ProcessControlError(
                .cgroupFailed,
                operation: "probe \(leaf.path)",
                reason: "a process cannot be started in it: \(String(cString: strerror(error)))"
                    + (error == EACCES
                        ? " (to move processes into a delegated subtree, the daemon must itself run inside it)" : ""),
                errno: error
            )
        }
    }

    /// Creates (or opens) the cgroup for one start of an app, or for a process of an app the
    /// user started (`admitted`).
    func makeLeaf(label: String, serial: UInt64, admitted: Bool = false) throws(ProcessControlError) -> CgroupLeaf {
        try makeLeaf(named: LeafName(label: Self.safeName(label), serial: serial, admitted: admitted).text)
    }

    /// Opens an existing cgroup of the subtree (one a previous run of the daemon made), with
    /// the same checks as a new one.
    func openLeaf(named name: String) throws(ProcessControlError) -> CgroupLeaf {
        try makeLeaf(named: name, creating: false)
    }

    /// The names of the cgroups in the subtree (its directories), sorted.
    func leafNames() throws(ProcessControlError) -> [String] {
        do {
            return try directory.entries().filter { name in
                !name.hasPrefix("cgroup.")
                    && (try? directory.status(of: name)).map { $0.st_mode & S_IFMT == S_IFDIR } == true
            }
        } catch {
            throw ProcessControlError(.cgroupFailed, operation: "list \(path)", error)
        }
    }

    private func makeLeaf(named name: String, creating: Bool = true) throws(ProcessControlError) -> CgroupLeaf {
        do {
            let leaf = try SecureDirectory.open(path + "/" + name, access: .ownerWritable, creating: creating)
            do {
                return try CgroupLeaf(name: name, directory: leaf, parent: directory)
            } catch {
                if creating { try? SystemCall.removeDirectoryAt(directory.descriptor, name) }
                throw error
            }
        } catch let error as SecureDirectoryError {
            throw ProcessControlError(.cgroupFailed, operation: "cgroup \(name)", reason: error.description)
        } catch let error as ProcessControlError {
            throw error
        } catch {
            throw ProcessControlError(.cgroupFailed, operation: "cgroup \(name)", reason: "\(error)")
        }
    }

    /// A label as a cgroup name: letters, digits, `.`, `-` and `_` kept, anything else `_`,
    /// at most 100 characters, never a name the kernel reserves.
    static func safeName(_ label: String) -> String {
        let kept = label.unicodeScalars.prefix(100).map { scalar -> Character in
            let allowed = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
            return allowed || scalar == "." || scalar == "-" || scalar == "_" ? Character(scalar) : "_"
        }
        let name = String(kept)
        return name.isEmpty || name.hasPrefix("cgroup.") || name.hasPrefix(".") ? "app" + name : name
    }
}

/// Serial numbers for starts and probes: unique in this process, never reused.
enum ProcessSerial {
    private static let counter = Atomic<UInt64>(0)

    /// This run of the process, as 8 random hex digits: tells its cgroups from those of an
    /// earlier run that had the same pid (pids are reused: `pid_max` is 32768 here, and a
    /// daemon in a container is often pid 1 every time).
    static let run: String = {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt32
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }()

    static func next() -> UInt64 {
        counter.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
