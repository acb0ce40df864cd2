/// Where the daemon keeps its files, from the environment (the XDG base directory specification).
///
/// | what | first of |
/// |---|---|
/// | state | `$BACKGROUNDD_STATE_DIR`, `$XDG_STATE_HOME/backgroundd`, `<home>/.local/state/backgroundd` |
/// | store | `<state>/store.sqlite` (SQLite, WAL) |
/// | manifests | `$BACKGROUNDD_APPS_DIR`, `<state>/apps` |
/// | reports | `<state>/reports` |
/// | socket | `$BACKGROUNDD_SOCKET`, `$XDG_RUNTIME_DIR/backgroundd/backgroundd.sock`, `<state>/run/backgroundd.sock` |
///
/// `$XDG_RUNTIME_DIR` is unset where no login manager made one (containers, this project's CI
/// machines); the socket then lives in `<state>/run`, a `0700` directory in the user's own
/// state directory, never in a shared `/tmp`, where another user could take the name first.
/// Values that are empty, relative or hold a control character are ignored, as the
/// specification says, and the next source is used. Every directory is opened and checked with
/// `SecureDirectory` (owned by this user, mode `0700`, no symbolic links).
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

    /// The paths for `environment`, with explicit values (command-line options) first; nil when
    /// no usable home or state directory is known.
    public init?(environment: [String: String], state: String? = nil, socket: String? = nil, manifests: String? = nil) {
        func usable(_ name: String) -> String? { environment[name].flatMap(StateDirectories.usablePath) }
        let directories = StateDirectories(environment: environment)
        guard
            let state = state ?? usable("BACKGROUNDD_STATE_DIR") ?? directories.stateHome.map({ $0 + "/backgroundd" })
        else { return nil }
        let socket =
            socket ?? usable("BACKGROUNDD_SOCKET")
            ?? usable("XDG_RUNTIME_DIR").map { Self.trimmed($0) + "/backgroundd/backgroundd.sock" }
        self.init(state: state, socket: socket, manifests: manifests ?? usable("BACKGROUNDD_APPS_DIR"))
    }

    private static func trimmed(_ path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
