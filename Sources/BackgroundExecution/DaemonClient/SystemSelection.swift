import BackgroundCore
import BackgroundPaths
import Foundation

/// Which system `UIApplication.shared` connects to when nothing bootstrapped it: the
/// environment decides.
///
/// | `BACKGROUND_SYSTEM` | the system |
/// |---|---|
/// | unset | ``EmbeddedSystem/default``, unless the daemon started this process (`BACKGROUND_CONNECTION_FD` is set): then the daemon |
/// | `embedded` | ``EmbeddedSystem/default`` |
/// | `daemon` | a ``DaemonConnection``: the inherited socket (`BACKGROUND_CONNECTION_FD`), else the daemon's socket where `backgroundd` puts it (`$BACKGROUNDD_SOCKET`, `$XDG_RUNTIME_DIR/backgroundd/backgroundd.sock`, `<state>/run/backgroundd.sock`; as root `/run/backgroundd/backgroundd.sock`: `DaemonPaths`) |
///
/// The app's identity is `$BACKGROUND_APP` (the daemon sets it for the apps it starts), else
/// `local.<process name>`, as the embedded system's.
enum SystemSelection {
    /// The system for this process's environment.
    static func processDefault() -> any SystemConnection {
        let environment = ProcessInfo.processInfo.environment
        switch DaemonConnection.Configuration.fromEnvironment(environment) {
        case .success(let configuration?):
            return DaemonConnection(configuration: configuration)
        case .success(nil):
            return EmbeddedSystem.default
        case .failure(let problem):
            BackgroundFault.raise(BackgroundFault(api: "UIApplication.shared", message: problem.message))
            return EmbeddedSystem.default
        }
    }
}

/// A value in the environment that does not say which system to use.
struct SystemSelectionProblem: Error, Sendable, Hashable {
    let message: String
}

extension DaemonConnection.Configuration {
    /// The daemon connection the environment asks for; nil when it asks for the embedded system.
    ///
    /// - Returns: A failure naming the variable and what is wrong with its value.
    static func fromEnvironment(
        _ environment: [String: String]
    ) -> Result<DaemonConnection.Configuration?, SystemSelectionProblem> {
        let inherited = environment["BACKGROUND_CONNECTION_FD"]
        switch environment["BACKGROUND_SYSTEM"] {
        case nil, "":
            if inherited == nil { return .success(nil) }
        case "embedded":
            return .success(nil)
        case "daemon":
            break
        case let other?:
            return .failure(
                SystemSelectionProblem(
                    message: "BACKGROUND_SYSTEM=\(ControlCharacters.escaped(other)): expected embedded or daemon"
                )
            )
        }
        let app =
            environment["BACKGROUND_APP"].flatMap { $0.isEmpty ? nil : AppID($0) }
            ?? AppID("local." + ProcessInfo.processInfo.processName)
        let socket = DaemonPaths(environment: environment)?.socket
        if let inherited {
            guard let descriptor = Int32(inherited), descriptor >= 0 else {
                return .failure(
                    SystemSelectionProblem(
                        message:
                            "BACKGROUND_CONNECTION_FD=\(ControlCharacters.escaped(inherited)): not a descriptor number"
                    )
                )
            }
            return .success(.init(app: app, endpoint: .inherited(descriptor: descriptor), reconnectPath: socket))
        }
        guard let socket else {
            return .failure(
                SystemSelectionProblem(
                    message:
                        "BACKGROUND_SYSTEM=daemon: no socket path (set BACKGROUNDD_SOCKET, XDG_RUNTIME_DIR or HOME)"
                )
            )
        }
        return .success(.init(app: app, endpoint: .socket(path: socket)))
    }
}
