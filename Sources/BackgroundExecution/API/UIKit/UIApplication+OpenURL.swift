public import Foundation

extension UIApplication {
    /// Keys of the options dictionary an app receives when it is asked to open a URL
    /// (`scene(_:openURLContexts:)`, `application(_:open:options:)`); UIKit's raw values.
    public struct OpenURLOptionsKey: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The bundle identifier of the app that asked to open the URL.
        public static let sourceApplication = OpenURLOptionsKey(
            rawValue: "UIApplicationOpenURLOptionsSourceApplicationKey"
        )
        /// The annotation the opening app passed.
        public static let annotation = OpenURLOptionsKey(rawValue: "UIApplicationOpenURLOptionsAnnotationKey")
        /// Whether the file must be opened in place.
        public static let openInPlace = OpenURLOptionsKey(rawValue: "UIApplicationOpenURLOptionsOpenInPlaceKey")
    }

    /// Keys of the options of ``open(_:options:completionHandler:)``; UIKit's raw values.
    public struct OpenExternalURLOptionsKey: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Open the URL only if it is a universal link an installed app handles.
        public static let universalLinksOnly = OpenExternalURLOptionsKey(
            rawValue: "UIApplicationOpenURLOptionUniversalLinksOnly"
        )
    }

    /// The URL of the app's page in Settings (`app-settings:`), which apps open after reading
    /// `backgroundRefreshStatus == .denied`. Linux has no Settings app: opening it succeeds only
    /// where a ``URLOpener`` handles it.
    public static let openSettingsURLString = "app-settings:"

    /// Asks the system to open a URL; `completion` is called on the main actor with whether it was.
    ///
    /// ```swift
    /// if UIApplication.shared.backgroundRefreshStatus == .denied,
    ///    let settings = URL(string: UIApplication.openSettingsURLString) {
    ///     UIApplication.shared.open(settings) { opened in … }
    /// }
    /// ```
    ///
    /// Linux behaviour: the URL goes to the connection's ``SystemConnection/urlOpener`` (an
    /// ``EmbeddedSystem`` or ``DaemonConnection`` configured with one); without one nothing can
    /// open URLs, and `completion` gets `false`, on the main actor, after this call returns.
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - options: ``OpenExternalURLOptionsKey`` options, passed to the opener.
    ///   - completion: Called on the main actor with whether the URL was opened.
    @preconcurrency
    public func open(
        _ url: URL,
        options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:],
        completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil
    ) {
        let universalOnly = options[.universalLinksOnly] as? Bool ?? false
        let finish: @Sendable (Bool) -> Void = { opened in
            guard let completion else { return }
            DispatchQueue.main.async { MainActor.assumeIsolated { completion(opened) } }
        }
        guard let opener = connection.urlOpener else { return finish(false) }
        opener.open(url, universalOnly, finish)
    }

    /// ``open(_:options:completionHandler:)`` for `async` code: whether the URL was opened.
    public func open(_ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:]) async -> Bool {
        let universalOnly = options[.universalLinksOnly] as? Bool ?? false
        guard let opener = connection.urlOpener else { return false }
        return await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            opener.open(url, universalOnly) { done.resume(returning: $0) }
        }
    }

    /// Whether some app (here: the connection's ``SystemConnection/urlOpener``) can open `url`;
    /// `false` without an opener.
    public func canOpenURL(_ url: URL) -> Bool {
        connection.urlOpener?.canOpen(url) ?? false
    }
}

/// What opens URLs for ``UIApplication/open(_:options:completionHandler:)`` on Linux, where no
/// system app does: a desktop session's `xdg-open`, a service's own handler, a test's recorder.
///
/// ```swift
/// let opener = URLOpener(canOpen: { $0.scheme == "https" }) { url, _, done in
///     done(launchBrowser(url))
/// }
/// var configuration = EmbeddedSystem.Configuration()
/// configuration.urlOpener = opener
/// UIApplication.bootstrap(EmbeddedSystem(configuration: configuration))
/// ```
public struct URLOpener: Sendable {
    /// Whether it can open a URL (`canOpenURL(_:)`).
    public let canOpen: @Sendable (URL) -> Bool
    /// Opens a URL: the URL, whether only universal links may be opened, and the completion,
    /// which it must call once, from any thread.
    public let open: @Sendable (URL, Bool, @escaping @Sendable (Bool) -> Void) -> Void

    /// Creates an opener.
    public init(
        canOpen: @escaping @Sendable (URL) -> Bool,
        open: @escaping @Sendable (URL, Bool, @escaping @Sendable (Bool) -> Void) -> Void
    ) {
        self.canOpen = canOpen
        self.open = open
    }
}
