extension UIApplication.LaunchOptionsKey {
    // UIKit's keys, with UIKit's raw values (`UIApplicationLaunchOptions…Key`), so code that
    // reads `launchOptions?[.remoteNotification]` compiles unchanged. Which keys a launch on this
    // system carries is the runtime's to decide: none yet (the dictionary is nil, as on iOS for
    // a launch by the user), so code that branches on them takes its ordinary launch path.

    /// The app was launched to open a URL.
    public static let url = Self(rawValue: "UIApplicationLaunchOptionsURLKey")
    /// Another app asked for the launch; its bundle identifier.
    public static let sourceApplication = Self(rawValue: "UIApplicationLaunchOptionsSourceApplicationKey")
    /// A remote notification is available for the app to process; its payload.
    public static let remoteNotification = Self(rawValue: "UIApplicationLaunchOptionsRemoteNotificationKey")
    /// The app was launched to handle a location event.
    public static let location = Self(rawValue: "UIApplicationLaunchOptionsLocationKey")
    /// The app was relaunched for Bluetooth central events; the restoration identifiers.
    public static let bluetoothCentrals = Self(rawValue: "UIApplicationLaunchOptionsBluetoothCentralsKey")
    /// The app was relaunched for Bluetooth peripheral events; the restoration identifiers.
    public static let bluetoothPeripherals = Self(rawValue: "UIApplicationLaunchOptionsBluetoothPeripheralsKey")
    /// The app was launched for a Home screen quick action.
    public static let shortcutItem = Self(rawValue: "UIApplicationLaunchOptionsShortcutItemKey")
    /// The app was launched to continue a user activity; its dictionary.
    public static let userActivityDictionary = Self(rawValue: "UIApplicationLaunchOptionsUserActivityDictionaryKey")
    /// The type of the user activity the app was launched to continue.
    public static let userActivityType = Self(rawValue: "UIApplicationLaunchOptionsUserActivityTypeKey")
    /// The app was launched for a CloudKit share invitation.
    public static let cloudKitShareMetadata = Self(rawValue: "UIApplicationLaunchOptionsCloudKitShareMetadataKey")
    /// The app was launched to process downloaded Newsstand assets (deprecated on iOS).
    public static let newsstandDownloads = Self(rawValue: "UIApplicationLaunchOptionsNewsstandDownloadsKey")
    /// The URL's annotation from the source application (deprecated on iOS).
    public static let annotation = Self(rawValue: "UIApplicationLaunchOptionsAnnotationKey")
    /// A local notification launched the app (deprecated on iOS).
    public static let localNotification = Self(rawValue: "UIApplicationLaunchOptionsLocalNotificationKey")
    /// The app was launched for an event attribution.
    public static let eventAttribution = Self(rawValue: "UIApplicationLaunchOptionsEventAttributionKey")
}
