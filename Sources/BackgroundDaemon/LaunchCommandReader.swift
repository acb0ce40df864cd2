import Foundation

/// Reads a manifest's `BackgroundLaunch` dictionary (``LaunchCommand``).
///
/// Called only after the package's manifest loader accepted the same bytes, so the document
/// has already passed its size and shape screens; this reads one more key, strictly.
enum LaunchCommandReader {
    static let key = "BackgroundLaunch"

    static func launchCommand(in data: Data) throws(DaemonError) -> LaunchCommand? {
        let root: Any
        do {
            if let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{") {
                root = try JSONSerialization.jsonObject(with: data)
            } else {
                root = try PropertyListSerialization.propertyList(from: data, format: nil)
            }
        } catch {
            throw DaemonError(.badManifest, "cannot be read again: \(error.localizedDescription)")
        }
        guard let dictionary = root as? [String: Any], let value = dictionary[key] else { return nil }
        guard let launch = value as? [String: Any] else { throw problem("must be a dictionary") }
        let known: Set = ["Arguments", "Environment", "WorkingDirectory", "SharedContainers", "UserID"]
        if let unknown = launch.keys.sorted().first(where: { !known.contains($0) }) {
            throw problem("unknown key \(unknown) (known: \(known.sorted().joined(separator: ", ")))")
        }
        guard let arguments = launch["Arguments"] as? [String], let executable = arguments.first else {
            throw problem("Arguments: expected a non-empty array of strings, the executable first")
        }
        try checkPath(executable, "Arguments[0]")
        var environment: [String: String] = [:]
        if let value = launch["Environment"] {
            guard let variables = value as? [String: String] else {
                throw problem("Environment: expected a dictionary of strings")
            }
            for name in variables.keys.sorted() where name.isEmpty || name.contains("=") || name.contains("\0") {
                throw problem("Environment: \(name.debugDescription) is not a variable name")
            }
            environment = variables
        }
        var workingDirectory: String?
        if let value = launch["WorkingDirectory"] {
            guard let path = value as? String else { throw problem("WorkingDirectory: expected a string") }
            try checkPath(path, "WorkingDirectory")
            workingDirectory = path
        }
        var shared: [String] = []
        if let value = launch["SharedContainers"] {
            guard let paths = value as? [String] else {
                throw problem("SharedContainers: expected an array of strings")
            }
            for path in paths { try checkPath(path, "SharedContainers") }
            shared = paths
        }
        return LaunchCommand(
            executable: executable,
            arguments: Array(arguments.dropFirst()),
            environment: environment,
            workingDirectory: workingDirectory,
            sharedContainers: shared,
            userID: try userID(launch["UserID"])
        )
    }

    /// `UserID`: an integer id above 0 (whether it lies in the daemon's range is checked when
    /// uids are assigned, by ``AppUserTable``).
    private static func userID(_ value: Any?) throws(DaemonError) -> UInt32? {
        guard let value else { return nil }
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c",
            let id = UInt32(exactly: number.doubleValue), Double(id) == number.doubleValue
        else {
            throw problem(
                "UserID: \(String(describing: value).debugDescription) is not a user id (an integer from 1 to 4294967294)"
            )
        }
        guard id != 0 else { throw problem("UserID: 0 is root, and an app never runs as root") }
        guard id != UInt32.max else { throw problem("UserID: 4294967295 is not a valid id") }
        return id
    }

    private static func checkPath(_ path: String, _ what: String) throws(DaemonError) {
        guard path.hasPrefix("/"), !path.contains("\0"), !path.split(separator: "/").contains("..") else {
            throw problem("\(what): \(path.debugDescription) is not an absolute path without '..'")
        }
    }

    private static func problem(_ what: String) -> DaemonError {
        DaemonError(.badManifest, "\(key): \(what)")
    }
}
