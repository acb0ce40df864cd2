/// The part of an app's `Info.plist` that background execution depends on.
///
/// A manifest names the app, lists the task identifiers it may schedule
/// (`BGTaskSchedulerPermittedIdentifiers`) and the background modes it declares
/// (`UIBackgroundModes`). It is a plain value: `BackgroundExecution` loads one from a property
/// list or JSON file and checks every key; here nothing is validated.
///
/// ```swift
/// let manifest = AppManifest(
///     bundleIdentifier: "com.example.notes",
///     permittedTaskIdentifiers: ["com.example.notes.refresh", "com.example.notes.export.*"],
///     backgroundModes: [.fetch, .processing])
/// manifest.permits(taskIdentifier: "com.example.notes.export.7F3A")   // true
/// ```
///
/// It encodes with the `Info.plist` key names, so `PropertyListEncoder` produces a valid
/// fragment of an `Info.plist`. Background modes are encoded sorted, so encoding is stable.
public struct AppManifest: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundleIdentifier: AppID

    /// `BGTaskSchedulerPermittedIdentifiers`, in file order.
    ///
    /// An entry is a task identifier, or a wildcard `<prefix>.*` (see ``permits(taskIdentifier:)``).
    /// Setting a non-empty list also sets ``declaresTaskSchedulerIdentifiers``.
    public var permittedTaskIdentifiers: [String] {
        didSet { normalizeDeclaration() }
    }

    /// `UIBackgroundModes`, including strings this library does not know.
    public var backgroundModes: Set<BackgroundMode>

    /// Whether the manifest declares `BGTaskSchedulerPermittedIdentifiers` at all.
    ///
    /// True when the key is present, even with an empty array. In iOS 13 and later its presence
    /// disables legacy background fetch (`setMinimumBackgroundFetchInterval(_:)` and
    /// `application(_:performFetchWithCompletionHandler:)`). A manifest that lists identifiers
    /// always declares the key, so setting `false` then has no effect.
    ///
    /// ```swift
    /// var manifest = AppManifest(bundleIdentifier: "com.example.notes")
    /// manifest.declaresTaskSchedulerIdentifiers            // false: the key is absent
    /// manifest.declaresTaskSchedulerIdentifiers = true     // `<array/>`: present but empty
    /// ```
    public var declaresTaskSchedulerIdentifiers: Bool {
        didSet { normalizeDeclaration() }
    }

    /// `UIApplicationSceneManifest`: present for a scene-based app, whose transitions reach its
    /// scene delegate instead of its app delegate; nil for an app without scenes.
    public var sceneManifest: SceneManifest?

    /// Creates a manifest.
    ///
    /// `declaresTaskSchedulerIdentifiers` is true when given as true or when
    /// `permittedTaskIdentifiers` is not empty.
    ///
    /// ```swift
    /// let empty = AppManifest(bundleIdentifier: "com.example.notes", declaresTaskSchedulerIdentifiers: true)
    /// let refresh = AppManifest(
    ///     bundleIdentifier: "com.example.notes",
    ///     permittedTaskIdentifiers: ["com.example.notes.refresh"],
    ///     backgroundModes: [.fetch])
    /// ```
    public init(
        bundleIdentifier: AppID,
        permittedTaskIdentifiers: [String] = [],
        backgroundModes: Set<BackgroundMode> = [],
        declaresTaskSchedulerIdentifiers: Bool = false,
        sceneManifest: SceneManifest? = nil
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.permittedTaskIdentifiers = permittedTaskIdentifiers
        self.backgroundModes = backgroundModes
        self.sceneManifest = sceneManifest
        self.declaresTaskSchedulerIdentifiers = declaresTaskSchedulerIdentifiers || !permittedTaskIdentifiers.isEmpty
    }

    /// Whether the app may schedule a task with this identifier.
    ///
    /// It may when `identifier` is an entry of ``permittedTaskIdentifiers``, or when an entry is
    /// a wildcard `<prefix>.*` and `identifier` is `<prefix>.` followed by one or more non-empty
    /// components. Apple uses wildcards for continued-processing tasks
    /// (`<bundleID>.<context>.*`). An identifier containing `*` is a pattern, not a task, and is
    /// never permitted.
    ///
    /// ```swift
    /// let manifest = AppManifest(
    ///     bundleIdentifier: "com.foo.app", permittedTaskIdentifiers: ["com.foo.app.continued.*"])
    /// manifest.permits(taskIdentifier: "com.foo.app.continued.HD830D")   // true
    /// manifest.permits(taskIdentifier: "com.foo.app.continued")          // false
    /// manifest.permits(taskIdentifier: "com.foo.app.continuedX.1")       // false
    /// ```
    public func permits(taskIdentifier identifier: String) -> Bool {
        guard !identifier.isEmpty, !identifier.contains("*") else { return false }
        for entry in permittedTaskIdentifiers {
            if let prefix = Self.wildcardPrefix(of: entry) {
                if Self.identifier(identifier, extends: prefix) { return true }
            } else if entry == identifier {
                return true
            }
        }
        return false
    }

    /// The part of a wildcard entry before `.*`, or nil if the entry is not a wildcard.
    ///
    /// ```swift
    /// AppManifest.wildcardPrefix(of: "com.foo.app.continued.*")   // "com.foo.app.continued"
    /// AppManifest.wildcardPrefix(of: "com.foo.app.refresh")       // nil
    /// ```
    public static func wildcardPrefix(of entry: String) -> Substring? {
        guard entry.hasSuffix(".*") else { return nil }
        let prefix = entry.dropLast(2)
        return prefix.isEmpty ? nil : prefix
    }

    /// Whether `identifier` is `prefix.` followed by one or more components, none of them empty.
    private static func identifier(_ identifier: String, extends prefix: Substring) -> Bool {
        guard identifier.hasPrefix(prefix) else { return false }
        let rest = identifier.dropFirst(prefix.count)
        guard rest.first == "." else { return false }
        return rest.dropFirst().split(separator: ".", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty }
    }

    private mutating func normalizeDeclaration() {
        if !permittedTaskIdentifiers.isEmpty && !declaresTaskSchedulerIdentifiers {
            declaresTaskSchedulerIdentifiers = true
        }
    }
}

extension AppManifest {
    private enum CodingKeys: String, CodingKey {
        case bundleIdentifier = "CFBundleIdentifier"
        case permittedTaskIdentifiers = "BGTaskSchedulerPermittedIdentifiers"
        case backgroundModes = "UIBackgroundModes"
        case sceneManifest = "UIApplicationSceneManifest"
    }

    /// Decodes a manifest from `Info.plist` keys, without checking their values.
    ///
    /// ```swift
    /// let manifest = try PropertyListDecoder().decode(AppManifest.self, from: data)
    /// ```
    ///
    /// - Throws: `DecodingError` if `CFBundleIdentifier` is missing or a key has the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let identifiers = try container.decodeIfPresent([String].self, forKey: .permittedTaskIdentifiers)
        self.init(
            bundleIdentifier: try container.decode(AppID.self, forKey: .bundleIdentifier),
            permittedTaskIdentifiers: identifiers ?? [],
            backgroundModes: Set(try container.decodeIfPresent([BackgroundMode].self, forKey: .backgroundModes) ?? []),
            declaresTaskSchedulerIdentifiers: identifiers != nil,
            sceneManifest: try container.decodeIfPresent(SceneManifest.self, forKey: .sceneManifest)
        )
    }

    /// Encodes the manifest as `Info.plist` keys; absent keys are left out.
    ///
    /// ```swift
    /// let plist = try PropertyListEncoder().encode(manifest)
    /// ```
    ///
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bundleIdentifier, forKey: .bundleIdentifier)
        if declaresTaskSchedulerIdentifiers {
            try container.encode(permittedTaskIdentifiers, forKey: .permittedTaskIdentifiers)
        }
        if !backgroundModes.isEmpty {
            try container.encode(backgroundModes.map(\.rawValue).sorted(), forKey: .backgroundModes)
        }
        try container.encodeIfPresent(sceneManifest, forKey: .sceneManifest)
    }
}
