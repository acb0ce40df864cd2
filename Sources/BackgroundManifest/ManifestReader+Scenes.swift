import BackgroundCore

extension ManifestReader {
    static let sceneManifestKey = "UIApplicationSceneManifest"

    /// The most session roles `UISceneConfigurations` may list (iOS has a handful).
    static let maximumSceneRoles = 16
    /// The most configurations one role may list.
    static let maximumSceneConfigurationsPerRole = 64
    /// The longest class or configuration name accepted, in UTF-8 bytes.
    static let maximumSceneNameLength = 1024

    /// `UIApplicationSceneManifest`: optional; nil when absent. Checks every value's type, the
    /// limits above, and that no string is empty.
    func sceneManifest() throws(ManifestError) -> SceneManifest? {
        let key = Self.sceneManifestKey
        guard let value = dictionary[key] else { return nil }
        guard let manifest = value as? [AnyHashable: Any] else {
            throw Self.wrongType(key, expected: "a dictionary", found: value)
        }
        var supportsMultiple = false
        if let multiple = manifest["UIApplicationSupportsMultipleScenes"] {
            guard let flag = multiple as? Bool else {
                throw Self.wrongType(
                    "\(key).UIApplicationSupportsMultipleScenes",
                    expected: "a Boolean",
                    found: multiple
                )
            }
            supportsMultiple = flag
        }
        var entries: [SceneManifest.Configuration] = []
        if let roles = manifest["UISceneConfigurations"] {
            let path = "\(key).UISceneConfigurations"
            guard let roles = roles as? [AnyHashable: Any] else {
                throw Self.wrongType(path, expected: "a dictionary of session roles", found: roles)
            }
            guard roles.count <= Self.maximumSceneRoles else {
                throw ManifestError(
                    code: .invalidValue,
                    key: path,
                    problem: "lists \(roles.count) session roles; at most \(Self.maximumSceneRoles) are allowed"
                )
            }
            // Sorted: the dictionary's order never reaches the manifest.
            let named = try roles.map { (role, list) throws(ManifestError) -> (String, Any) in
                guard let role = role as? String, !role.isEmpty else {
                    throw ManifestError(
                        code: .invalidValue,
                        key: path,
                        problem: "a session role must be a non-empty string"
                    )
                }
                return (role, list)
            }
            for (role, list) in named.sorted(by: { $0.0 < $1.0 }) {
                entries += try sceneConfigurations(list, role: role, path: "\(path).\(role)")
            }
        }
        return SceneManifest(supportsMultipleScenes: supportsMultiple, configurations: entries)
    }

    /// One role's array of configuration dictionaries.
    private func sceneConfigurations(
        _ value: Any,
        role: String,
        path: String
    ) throws(ManifestError) -> [SceneManifest.Configuration] {
        guard let list = value as? [Any] else {
            throw Self.wrongType(path, expected: "an array of scene configurations", found: value)
        }
        guard list.count <= Self.maximumSceneConfigurationsPerRole else {
            throw ManifestError(
                code: .invalidValue,
                key: path,
                problem:
                    "lists \(list.count) configurations; at most \(Self.maximumSceneConfigurationsPerRole) are allowed"
            )
        }
        var entries: [SceneManifest.Configuration] = []
        for (index, element) in list.enumerated() {
            let entryPath = "\(path)[\(index)]"
            guard let entry = element as? [AnyHashable: Any] else {
                throw Self.wrongType(entryPath, expected: "a dictionary", found: element)
            }
            func string(_ name: String) throws(ManifestError) -> String? {
                guard let value = entry[name] else { return nil }
                guard let string = value as? String else {
                    throw Self.wrongType("\(entryPath).\(name)", expected: "a string", found: value)
                }
                guard !string.isEmpty, string.utf8.count <= Self.maximumSceneNameLength else {
                    throw ManifestError(
                        code: .invalidValue,
                        key: "\(entryPath).\(name)",
                        problem: "must be a non-empty string of at most \(Self.maximumSceneNameLength) bytes"
                    )
                }
                return string
            }
            let configuration = SceneManifest.Configuration(
                role: role,
                name: try string("UISceneConfigurationName"),
                delegateClassName: try string("UISceneDelegateClassName"),
                sceneClassName: try string("UISceneClassName"),
                storyboardName: try string("UISceneStoryboardFile")
            )
            if let name = configuration.name, let first = entries.firstIndex(where: { $0.name == name }) {
                throw ManifestError(
                    code: .duplicateValue,
                    key: "\(entryPath).UISceneConfigurationName",
                    problem: "\(Self.quoted(name)) is already the name of \(path)[\(first)]"
                )
            }
            entries.append(configuration)
        }
        return entries
    }
}
