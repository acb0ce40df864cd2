public import BackgroundCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the embedded system keeps its files, as the environment says (the XDG base directory
/// specification).
///
/// | what | first of |
/// |---|---|
/// | home | `$HOME`, the passwd entry's home directory |
/// | state | `$XDG_STATE_HOME`, `<home>/.local/state` |
/// | termination reports | `$BACKGROUND_REPORTS_DIR`, `<state>/background-execution/reports` |
/// | control sockets | `$BACKGROUND_CONTROL_DIR/<bundle>`, `$XDG_RUNTIME_DIR/background-execution/control/<bundle>`, `<state>/background-execution/control/<bundle>` |
///
/// A value that is empty, relative (the specification says to ignore those) or holds a control
/// character is ignored, and the next source is used. `$HOME` comes before the passwd entry, so
/// a service running as `nobody` (home `/nonexistent`) can be given a home.
public struct StateDirectories: Sendable, Hashable {
    /// The home directory, or nil if neither `$HOME` nor the passwd entry gives a usable one.
    public var home: String?
    /// The state directory (`$XDG_STATE_HOME`).
    public var stateHome: String?
    /// Where termination reports go.
    public var reports: String?
    /// The directory that holds one control directory per app.
    public var controlBase: String?

    /// The directories for `environment`; `passwdHome` answers the user's home from the
    /// password database when `$HOME` is unusable.
    public init(environment: [String: String], passwdHome: () -> String? = StateDirectories.passwdHome) {
        func usable(_ name: String) -> String? { environment[name].flatMap(Self.usablePath) }
        home = usable("HOME") ?? passwdHome().flatMap(Self.usablePath)
        stateHome = usable("XDG_STATE_HOME") ?? home.map { Self.join($0, ".local/state") }
        reports = usable("BACKGROUND_REPORTS_DIR") ?? stateHome.map { Self.join($0, "background-execution/reports") }
        controlBase =
            usable("BACKGROUND_CONTROL_DIR")
            ?? usable("XDG_RUNTIME_DIR").map { Self.join($0, "background-execution/control") }
            ?? stateHome.map { Self.join($0, "background-execution/control") }
    }

    /// The directories for this process's environment.
    public static var current: StateDirectories {
        StateDirectories(environment: ProcessInfo.processInfo.environment)
    }

    /// The control directory of `app`: one directory per bundle identifier under
    /// ``controlBase``. A `/` in the identifier is written `%2F`, so it stays one component.
    public func controlDirectory(for app: AppID) -> String? {
        controlBase.map { Self.join($0, app.bundleIdentifier.replacingOccurrences(of: "/", with: "%2F")) }
    }

    /// `value` if it is an absolute path without control characters, else nil.
    public static func usablePath(_ value: String) -> String? {
        guard value.hasPrefix("/"), !value.unicodeScalars.contains(where: ControlCharacters.needsEscape) else {
            return nil
        }
        return value
    }

    /// The home directory of the effective user in the password database.
    public static func passwdHome() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let status = getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let directory = entry.pw_dir else { return nil }
        return String(cString: directory)
    }

    private static func join(_ base: String, _ rest: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/" + rest
    }
}
