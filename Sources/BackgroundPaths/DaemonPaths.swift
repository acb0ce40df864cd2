#if canImport(Glibc)
public import Glibc
#endif

/// Where the daemon keeps its files, from the environment (the XDG base directory specification
/// for a user's daemon, the system's directories for root's).
///
/// | what | a user's daemon: first of | root's daemon: first of |
/// |---|---|---|
/// | state | `$BACKGROUNDD_STATE_DIR`, `$XDG_STATE_HOME/backgroundd`, `<home>/.local/state/backgroundd` | `$BACKGROUNDD_STATE_DIR`, `$XDG_STATE_HOME/backgroundd`, `/var/lib/backgroundd` |
/// | store | `<state>/store.sqlite` (SQLite, WAL) | the same |
/// | manifests | `$BACKGROUNDD_APPS_DIR`, `<state>/apps` | the same |
/// | reports | `<state>/reports` | the same |
/// | socket | `$BACKGROUNDD_SOCKET`, `$XDG_RUNTIME_DIR/backgroundd/backgroundd.sock`, `<state>/run/backgroundd.sock` | `$BACKGROUNDD_SOCKET`, `/run/backgroundd/backgroundd.sock` with the state in `/var/lib/backgroundd`, else `<state>/run/backgroundd.sock` |
///
/// `$XDG_RUNTIME_DIR` is unset where no login manager made one (containers, this project's CI
/// machines); the socket then lives in `<state>/run`, a `0700` directory in the user's own
/// state directory, never in a shared `/tmp`, where another user could take the name first.
/// Root's daemon starts each app under a uid of its own (SECURITY.md), and those apps must reach
/// the socket and their containers by path: root's home and root's `$XDG_RUNTIME_DIR`
/// (`/run/user/0`) are `0700`, so root's defaults are the system's directories (what systemd's
/// `StateDirectory=` and `RuntimeDirectory=` give a service), and a daemon with a state
/// directory of its own (tests, several daemons) keeps its socket in it.
/// Values that are empty, relative or hold a control character are ignored, as the
/// specification says, and the next source is used. Every directory is opened and checked with
/// `SecureDirectory` (owned by this user, no symbolic links).
public struct DaemonPaths: Sendable, Hashable {
    /// The state directory.
    public var state: String
    /// The SQLite store.
    public var store: String
    /// The manifests directory.
    public var manifests: String
    /// The termination reports directory.
    public var reports: String
    /// The socket's directory.
    public var socketDirectory: String
    /// The socket's file name in ``socketDirectory``.
    public var socketName: String

    /// The socket's path.
    public var socket: String { socketDirectory + "/" + socketName }

    /// Paths under an explicit state directory, with the socket in `socket` (default
    /// `<state>/run/backgroundd.sock`).
    public init(state: String, socket: String? = nil, manifests: String? = nil) {
        let state = Self.trimmed(state)
        self.state = state
        store = state + "/store.sqlite"
        self.manifests = manifests.map(Self.trimmed) ?? state + "/apps"
        reports = state + "/reports"
        let socket = socket ?? state + "/run/backgroundd.sock"
        let cut = socket.lastIndex(of: "/") ?? socket.startIndex
        socketDirectory = String(socket[..<cut])
        socketName = String(socket[socket.index(after: cut)...])
    }

    /// Root's state directory when nothing names another.
    public static let systemState = "/var/lib/backgroundd"
    /// Root's socket when the state directory is ``systemState``.
    public static let systemSocket = "/run/backgroundd/backgroundd.sock"

    /// The paths for `environment`, with explicit values (command-line options) first; nil when
    /// no usable home or state directory is known. `effectiveUID` 0 (root) chooses the system's
    /// directories (see the table above).
    public init?(
        environment: [String: String],
        state: String? = nil,
        socket: String? = nil,
        manifests: String? = nil,
        effectiveUID: UInt32 = UInt32(geteuid())
    ) {
        func usable(_ name: String) -> String? { environment[name].flatMap(StateDirectories.usablePath) }
        let named =
            state ?? usable("BACKGROUNDD_STATE_DIR")
            ?? usable("XDG_STATE_HOME").map { Self.trimmed($0) + "/backgroundd" }
        let socket = socket ?? usable("BACKGROUNDD_SOCKET")
        if effectiveUID == 0 {
            let state = named ?? Self.systemState
            self.init(
                state: state,
                socket: socket ?? (Self.trimmed(state) == Self.systemState ? Self.systemSocket : nil),
                manifests: manifests ?? usable("BACKGROUNDD_APPS_DIR")
            )
            return
        }
        let home = StateDirectories(environment: environment).stateHome.map { Self.trimmed($0) + "/backgroundd" }
        guard let state = named ?? home else { return nil }
        self.init(
            state: state,
            socket: socket ?? usable("XDG_RUNTIME_DIR").map { Self.trimmed($0) + "/backgroundd/backgroundd.sock" },
            manifests: manifests ?? usable("BACKGROUNDD_APPS_DIR")
        )
    }

    private static func trimmed(_ path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
