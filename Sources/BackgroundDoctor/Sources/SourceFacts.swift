/// Why code certainly runs after the app finished launching.
enum Deferral: Sendable, Hashable, CustomStringConvertible {
    /// Inside a closure that runs later: `Task { … }`, `Task.detached`, `DispatchQueue….async`.
    case asynchronous(String)
    /// After an `await` in the same function: launch has returned to the run loop by then.
    case afterAwait(function: String)
    /// In a SwiftUI view (its body or a view modifier such as `.task` or `.onAppear`).
    case view(String)
    /// In a callback that comes after launch (`sceneDidBecomeActive`, `viewDidLoad`, …).
    case laterCallback(String)

    var description: String {
        switch self {
        case .asynchronous(let what): "in a closure passed to \(what), which runs after launch"
        case .afterAwait(let function): "after an `await` in \(function), so after launch returned"
        case .view(let what): "in \(what), which runs when the view appears, after launch"
        case .laterCallback(let name): "in \(name), which iOS calls after launch"
        }
    }
}

/// The surroundings of a call: enclosing types and function, and whether it surely runs after launch.
struct CallContext: Sendable, Hashable {
    /// Enclosing type names, outermost first (an extension counts as its type).
    var types: [String]
    /// The enclosing function's full name (`application(_:didFinishLaunchingWithOptions:)`,
    /// `registerTasks()`), nil at top level.
    var function: String?
    /// Why it runs after launch, when it certainly does.
    var deferral: Deferral?
}

/// A place a task identifier is used.
struct IdentifierUse: Sendable, Hashable {
    enum Role: Sendable, Hashable {
        case register
        case request(RequestKind)
        case cancel
    }

    var role: Role
    var expression: IdentifierExpression
    var position: SourcePosition
    var context: CallContext
}

/// The three request classes, as sources spell them.
enum RequestKind: String, Sendable, Hashable, CaseIterable {
    case refresh = "BGAppRefreshTaskRequest"
    case processing = "BGProcessingTaskRequest"
    case continuedProcessing = "BGContinuedProcessingTaskRequest"
}

/// A call of a function by its base name, to follow registrations made in helpers.
struct FunctionCall: Sendable, Hashable {
    var callee: String
    var position: SourcePosition
    var context: CallContext
}

/// `beginBackgroundTask` or `endBackgroundTask`, with the variable that holds the identifier.
struct BackgroundTaskCall: Sendable, Hashable {
    /// The innermost enclosing type ("" at top level).
    var type: String
    /// The variable the identifier is stored in (begin) or read from (end); nil when discarded.
    var variable: String?
    var position: SourcePosition
}

/// Everything the doctor learned from an app's sources.
struct SourceFacts: Sendable {
    var constants = ConstantTable()
    var identifierUses: [IdentifierUse] = []
    var functionCalls: [FunctionCall] = []
    var fetchIntervalCalls: [SourcePosition] = []
    var backgroundTaskBegins: [BackgroundTaskCall] = []
    var backgroundTaskEnds: [BackgroundTaskCall] = []
    /// Files that could not be read or parsed, with why.
    var skippedFiles: [(file: String, reason: String)] = []
}
