import SwiftSyntax

/// Walks one parsed file and records the calls the doctor checks, each with its context.
final class SourceScanner: SyntaxVisitor {
    /// Callbacks iOS makes after launch: registering in them is too late.
    static let laterCallbacks: Set<String> = [
        "applicationDidBecomeActive", "applicationWillEnterForeground", "applicationDidEnterBackground",
        "applicationWillResignActive", "sceneDidBecomeActive", "sceneWillEnterForeground", "sceneDidEnterBackground",
        "sceneWillResignActive", "viewDidLoad", "viewWillAppear", "viewDidAppear", "loadView",
        "application(_:performFetchWithCompletionHandler:)", "application(_:open:options:)",
        "application(_:didReceiveRemoteNotification:fetchCompletionHandler:)",
        "scene(_:willConnectTo:options:)",
    ]
    /// Calls whose trailing or last closure runs later, on another task or queue.
    static let asynchronousCallees: Set<String> = ["Task", "detached", "async", "asyncAfter"]
    /// SwiftUI modifiers whose closure runs when the view appears or changes.
    static let viewModifiers: Set<String> = ["task", "onAppear", "onChange", "onReceive", "onOpenURL"]

    private struct TypeFrame {
        var name: String
        var isView: Bool
    }

    private struct Frame {
        var function: String?
        var deferral: Deferral?
        var awaited = false
    }

    private let file: String
    private let converter: SourceLocationConverter
    private(set) var facts: SourceFacts
    private var types: [TypeFrame] = []
    private var frames: [Frame] = [Frame()]

    init(file: String, tree: SourceFileSyntax, into facts: SourceFacts) {
        self.file = file
        self.converter = SourceLocationConverter(fileName: file, tree: tree)
        self.facts = facts
        super.init(viewMode: .sourceAccurate)
    }

    private var context: CallContext {
        let frame = frames[frames.count - 1]
        let deferral =
            frame.deferral ?? (frame.awaited ? .afterAwait(function: frame.function ?? "top-level code") : nil)
        return CallContext(types: types.map(\.name), function: frame.function, deferral: deferral)
    }

    private func position(of node: some SyntaxProtocol) -> SourcePosition {
        let location = node.startLocation(converter: converter)
        return SourcePosition(file: file, line: location.line, column: location.column)
    }

    // MARK: Types

    private func pushType(_ name: String, _ inheritance: InheritanceClauseSyntax?) -> SyntaxVisitorContinueKind {
        let inherited = inheritance?.inheritedTypes.map(\.type.trimmedDescription) ?? []
        types.append(TypeFrame(name: name, isView: inherited.contains("View") || inherited.contains("SwiftUI.View")))
        return .visitChildren
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        pushType(node.name.text, node.inheritanceClause)
    }
    override func visitPost(_ node: StructDeclSyntax) { types.removeLast() }
    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        pushType(node.name.text, node.inheritanceClause)
    }
    override func visitPost(_ node: ClassDeclSyntax) { types.removeLast() }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        pushType(node.name.text, node.inheritanceClause)
    }
    override func visitPost(_ node: ActorDeclSyntax) { types.removeLast() }
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        pushType(node.name.text, node.inheritanceClause)
    }
    override func visitPost(_ node: EnumDeclSyntax) { types.removeLast() }
    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        pushType(node.extendedType.trimmedDescription, node.inheritanceClause)
    }
    override func visitPost(_ node: ExtensionDeclSyntax) { types.removeLast() }

    // MARK: Functions, closures, awaits

    private var viewDeferral: Deferral? {
        types.last(where: \.isView).map { .view("the SwiftUI view \($0.name)") }
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        let base = node.name.text
        let name = base + "(" + node.signature.parameterClause.parameters.map { $0.firstName.text + ":" }.joined() + ")"
        let later = Self.laterCallbacks.contains(base) || Self.laterCallbacks.contains(name)
        frames.append(Frame(function: name, deferral: viewDeferral ?? (later ? .laterCallback(name) : nil)))
        return .visitChildren
    }
    override func visitPost(_ node: FunctionDeclSyntax) { frames.removeLast() }

    override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind {
        frames.append(Frame(function: "init()", deferral: viewDeferral))
        return .visitChildren
    }
    override func visitPost(_ node: InitializerDeclSyntax) { frames.removeLast() }

    override func visit(_ node: AccessorBlockSyntax) -> SyntaxVisitorContinueKind {
        frames.append(Frame(function: frames.last?.function, deferral: viewDeferral))
        return .visitChildren
    }
    override func visitPost(_ node: AccessorBlockSyntax) { frames.removeLast() }

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        let parent = frames[frames.count - 1]
        let deferral =
            Self.deferral(ofClosure: node) ?? parent.deferral
            ?? (parent.awaited ? .afterAwait(function: parent.function ?? "top-level code") : nil)
        frames.append(Frame(function: parent.function, deferral: deferral))
        return .visitChildren
    }
    override func visitPost(_ node: ClosureExprSyntax) { frames.removeLast() }

    override func visitPost(_ node: AwaitExprSyntax) {
        frames[frames.count - 1].awaited = true
    }

    /// Whether a closure is handed to something that runs it later.
    private static func deferral(ofClosure closure: ClosureExprSyntax) -> Deferral? {
        var node = Syntax(closure).parent
        // A closure argument sits in a labeled expression inside the argument list.
        if node?.is(LabeledExprSyntax.self) == true { node = node?.parent?.parent }
        guard let call = node?.as(FunctionCallExprSyntax.self) else { return nil }
        let callee = call.calledExpression.trimmedDescription
        let name = callee.split(separator: ".").last.map(String.init) ?? callee
        if viewModifiers.contains(name), call.calledExpression.is(MemberAccessExprSyntax.self) {
            return .view("the view modifier .\(name)")
        }
        return asynchronousCallees.contains(name) ? .asynchronous("`\(callee)`") : nil
    }

    // MARK: Calls

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let callee = Self.calleeName(node.calledExpression)
        let labels = node.arguments.map { $0.label?.text }
        let first = node.arguments.first?.expression
        switch callee {
        case "register" where labels.first == "forTaskWithIdentifier":
            record(.register, first, node)
        case "cancel" where labels.first == "taskRequestWithIdentifier":
            record(.cancel, first, node)
        case let name? where labels.first == "identifier" && RequestKind(rawValue: name) != nil:
            record(RequestKind(rawValue: name).map(IdentifierUse.Role.request) ?? .cancel, first, node)
        case "setMinimumBackgroundFetchInterval":
            facts.fetchIntervalCalls.append(position(of: node))
        case "beginBackgroundTask":
            facts.backgroundTaskBegins.append(
                BackgroundTaskCall(
                    type: types.last?.name ?? "",
                    variable: Self.assignedVariable(of: node),
                    position: position(of: node)
                )
            )
        case "endBackgroundTask":
            let variable = first.flatMap { IdentifierExpression.path(of: $0)?.last }
            facts.backgroundTaskEnds.append(
                BackgroundTaskCall(type: types.last?.name ?? "", variable: variable, position: position(of: node))
            )
        default:
            break
        }
        if let callee {
            facts.functionCalls.append(FunctionCall(callee: callee, position: position(of: node), context: context))
        }
        return .visitChildren
    }

    private func record(_ role: IdentifierUse.Role, _ argument: ExprSyntax?, _ node: FunctionCallExprSyntax) {
        guard let argument else { return }
        facts.identifierUses.append(
            IdentifierUse(
                role: role,
                expression: IdentifierExpression(argument),
                position: position(of: node),
                context: context
            )
        )
    }

    /// `foo` for `foo(…)`, `x.foo(…)` and `.foo(…)`.
    static func calleeName(_ expression: ExprSyntax) -> String? {
        if let reference = expression.as(DeclReferenceExprSyntax.self) { return reference.baseName.text }
        if let member = expression.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
        return nil
    }

    /// The variable a call's result is stored in: `x = call`, `self.x = call`, `let x = call`.
    static func assignedVariable(of call: FunctionCallExprSyntax) -> String? {
        var node = Syntax(call)
        while let parent = node.parent, parent.is(TryExprSyntax.self) || parent.is(AwaitExprSyntax.self) {
            node = parent
        }
        if let initializer = node.parent?.as(InitializerClauseSyntax.self),
            let binding = initializer.parent?.as(PatternBindingSyntax.self)
        {
            return binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        }
        guard let list = node.parent?.as(ExprListSyntax.self), list.parent?.is(SequenceExprSyntax.self) == true else {
            return nil
        }
        let elements = Array(list)
        guard elements.count == 3, elements[1].is(AssignmentExprSyntax.self), elements[2].id == node.id else {
            return nil
        }
        return IdentifierExpression.path(of: elements[0])?.last
    }
}
