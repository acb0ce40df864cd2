public import Foundation

/// UIKit's window, inert: here so that scene delegates that declare `var window: UIWindow?` and
/// create one (`UIWindow(windowScene:)`, `makeKeyAndVisible()`) compile unchanged. It draws
/// nothing and receives no events.
@MainActor
open class UIWindow: UIResponder {
    /// The scene the window belongs to.
    open weak var windowScene: UIWindowScene? {
        didSet { windowScene?.attach(self) }
    }

    /// The window's frame, recorded.
    open var frame: CGRect

    /// Whether the window is hidden; `true` until ``makeKeyAndVisible()``.
    open var isHidden = true

    /// Whether the window is its scene's key window.
    public internal(set) var isKeyWindow = false

    /// Creates a window for a scene.
    public init(windowScene: UIWindowScene) {
        frame = .zero
        super.init()
        self.windowScene = windowScene
        windowScene.attach(self)
    }

    /// Creates a window with a frame, attached to no scene.
    public init(frame: CGRect) {
        self.frame = frame
        super.init()
    }

    /// Creates a window with a zero frame, attached to no scene.
    public override convenience init() {
        self.init(frame: .zero)
    }

    /// Shows the window and makes it its scene's key window.
    open func makeKeyAndVisible() {
        isHidden = false
        isKeyWindow = true
        windowScene?.makeKey(self)
    }
}
