/// An app's `UIApplicationSceneManifest`: the `Info.plist` key that makes an app scene-based.
///
/// An app whose manifest has one receives its foreground and background transitions through a
/// scene delegate (`sceneDidEnterBackground(_:)`, ...) instead of its app delegate's
/// `applicationDidEnterBackground(_:)` and the other three, as on iOS 13 and later. The core does
/// not read it: the app's runtime does, in the app's process, as UIKit reads `Info.plist`.
///
/// ```swift
/// let scenes = SceneManifest(
///     supportsMultipleScenes: false,
///     configurations: [
///         .init(
///             role: SceneManifest.windowApplicationRole,
///             name: "Default Configuration",
///             delegateClassName: "MyApp.SceneDelegate")
///     ])
/// scenes.configuration(forRole: SceneManifest.windowApplicationRole)?.delegateClassName   // "MyApp.SceneDelegate"
/// ```
///
/// It encodes with the `Info.plist` key names (`UIApplicationSupportsMultipleScenes`,
/// `UISceneConfigurations`, and per configuration `UISceneConfigurationName`,
/// `UISceneDelegateClassName`, `UISceneClassName`, `UISceneStoryboardFile`), roles sorted, so
/// encoding is stable.
public struct SceneManifest: Sendable, Hashable, Codable {
    /// `UIWindowSceneSessionRoleApplication`: the role of the scenes on the device's main screen.
    public static let windowApplicationRole = "UIWindowSceneSessionRoleApplication"

    /// One entry of `UISceneConfigurations`.
    public struct Configuration: Sendable, Hashable {
        /// The session role the entry is listed under, such as ``SceneManifest/windowApplicationRole``.
        public var role: String
        /// `UISceneConfigurationName`.
        public var name: String?
        /// `UISceneDelegateClassName`: `Module.ClassName` of the scene delegate.
        public var delegateClassName: String?
        /// `UISceneClassName` (`UIWindowScene`).
        public var sceneClassName: String?
        /// `UISceneStoryboardFile`; recorded, not used (there is no UI here).
        public var storyboardName: String?

        /// Creates an entry.
        public init(
            role: String,
            name: String? = nil,
            delegateClassName: String? = nil,
            sceneClassName: String? = nil,
            storyboardName: String? = nil
        ) {
            self.role = role
            self.name = name
            self.delegateClassName = delegateClassName
            self.sceneClassName = sceneClassName
            self.storyboardName = storyboardName
        }
    }

    /// `UIApplicationSupportsMultipleScenes`.
    public var supportsMultipleScenes: Bool

    /// `UISceneConfigurations`: every entry, roles in file order as loaded (sorted when encoded),
    /// entries of a role in file order (the first is the role's default).
    public var configurations: [Configuration]

    /// Creates a scene manifest.
    public init(supportsMultipleScenes: Bool = false, configurations: [Configuration] = []) {
        self.supportsMultipleScenes = supportsMultipleScenes
        self.configurations = configurations
    }

    /// The configuration UIKit uses for a new session of `role`: the entry named `name` when
    /// given and listed, else the role's first entry (Apple: "The first item in the array
    /// represents the default scene configuration for this role").
    public func configuration(forRole role: String, named name: String? = nil) -> Configuration? {
        let entries = configurations.filter { $0.role == role }
        if let name, let named = entries.first(where: { $0.name == name }) { return named }
        return name == nil ? entries.first : nil
    }
}

extension SceneManifest {
    private enum CodingKeys: String, CodingKey {
        case supportsMultipleScenes = "UIApplicationSupportsMultipleScenes"
        case configurations = "UISceneConfigurations"
    }

    private enum EntryKeys: String, CodingKey {
        case name = "UISceneConfigurationName"
        case delegateClassName = "UISceneDelegateClassName"
        case sceneClassName = "UISceneClassName"
        case storyboardName = "UISceneStoryboardFile"
    }

    private struct RoleKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes `UIApplicationSceneManifest`'s dictionary, without checking its values.
    ///
    /// - Throws: `DecodingError` if a key has the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var entries: [Configuration] = []
        if container.contains(.configurations) {
            let roles = try container.nestedContainer(keyedBy: RoleKey.self, forKey: .configurations)
            // The decoder's key order is its dictionary's: sorted, so nothing depends on it.
            for role in roles.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                var list = try roles.nestedUnkeyedContainer(forKey: role)
                while !list.isAtEnd {
                    let entry = try list.nestedContainer(keyedBy: EntryKeys.self)
                    entries.append(
                        Configuration(
                            role: role.stringValue,
                            name: try entry.decodeIfPresent(String.self, forKey: .name),
                            delegateClassName: try entry.decodeIfPresent(String.self, forKey: .delegateClassName),
                            sceneClassName: try entry.decodeIfPresent(String.self, forKey: .sceneClassName),
                            storyboardName: try entry.decodeIfPresent(String.self, forKey: .storyboardName)
                        )
                    )
                }
            }
        }
        self.init(
            supportsMultipleScenes: try container.decodeIfPresent(Bool.self, forKey: .supportsMultipleScenes) ?? false,
            configurations: entries
        )
    }

    /// Encodes the manifest as `Info.plist` keys, roles sorted; absent values are left out.
    ///
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(supportsMultipleScenes, forKey: .supportsMultipleScenes)
        guard !configurations.isEmpty else { return }
        var roles = container.nestedContainer(keyedBy: RoleKey.self, forKey: .configurations)
        let roleNames = configurations.map(\.role).reduce(into: [String]()) { names, role in
            if !names.contains(role) { names.append(role) }
        }
        for role in roleNames.sorted() {
            var list = roles.nestedUnkeyedContainer(forKey: RoleKey(stringValue: role))
            for entry in configurations where entry.role == role {
                var fields = list.nestedContainer(keyedBy: EntryKeys.self)
                try fields.encodeIfPresent(entry.name, forKey: .name)
                try fields.encodeIfPresent(entry.delegateClassName, forKey: .delegateClassName)
                try fields.encodeIfPresent(entry.sceneClassName, forKey: .sceneClassName)
                try fields.encodeIfPresent(entry.storyboardName, forKey: .storyboardName)
            }
        }
    }
}
