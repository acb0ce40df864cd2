public import Foundation
public import FoundationNetworking

/// A session's options, with Apple's names, including the background ones FoundationNetworking
/// lacks on Linux (`background(withIdentifier:)`, `sessionSendsLaunchEvents`, a settable
/// `sharedContainerIdentifier`).
///
/// ```swift
/// let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.uploads")
/// configuration.isDiscretionary = true
/// configuration.sessionSendsLaunchEvents = true
/// let session = URLSession(configuration: configuration, delegate: uploader, delegateQueue: nil)
/// ```
///
/// A default or ephemeral configuration is carried over to FoundationNetworking's own session;
/// a background one runs its transfers through the system (``URLSession/bootstrap(_:)``).
open class URLSessionConfiguration: NSObject, NSCopying, @unchecked Sendable {
    /// A session that runs in this process, with the default cache and cookie storage.
    open class var `default`: URLSessionConfiguration { URLSessionConfiguration(kind: .default) }
    /// A session that keeps no cache, cookies or credentials on disk.
    open class var ephemeral: URLSessionConfiguration { URLSessionConfiguration(kind: .ephemeral) }

    /// A session whose uploads and downloads the system carries on while the app is suspended
    /// or gone (reference §5.1). The identifier must be unique within the app.
    open class func background(withIdentifier identifier: String) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration(kind: .background)
        configuration.identifier = identifier
        return configuration
    }

    /// Apple's deprecated spelling of ``background(withIdentifier:)``.
    @available(*, deprecated, renamed: "background(withIdentifier:)")
    open class func backgroundSessionConfiguration(_ identifier: String) -> URLSessionConfiguration {
        background(withIdentifier: identifier)
    }

    enum Kind: Sendable { case `default`, ephemeral, background }
    let kind: Kind

    init(kind: Kind) {
        self.kind = kind
        super.init()
    }

    /// The background session's identifier; `nil` for other sessions.
    open internal(set) var identifier: String?
    /// The cache policy of the session's requests.
    open var requestCachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy
    /// The longest wait for more data, in seconds (60 by default); a background transfer that
    /// waits longer is retried.
    open var timeoutIntervalForRequest: TimeInterval = 60
    /// The longest a transfer may take, retries included, in seconds (7 days by default).
    open var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
    /// The kind of traffic (`.background` for deferrable work).
    open var networkServiceType: URLRequest.NetworkServiceType = .default
    /// Whether transfers may use a cellular network (`true` by default).
    open var allowsCellularAccess = true
    /// Whether transfers may use an expensive network (`true` by default).
    open var allowsExpensiveNetworkAccess = true
    /// Whether transfers may use a constrained (Low Data Mode) network (`true` by default).
    open var allowsConstrainedNetworkAccess = true
    /// Whether a task waits for connectivity instead of failing at once.
    open var waitsForConnectivity = false
    /// Whether the system may defer the session's transfers until the device is charging and on
    /// an unmetered network (`false` by default; transfers created in the background are always
    /// discretionary on iOS).
    open var isDiscretionary = false
    /// The app group whose container the background session's files live in.
    open var sharedContainerIdentifier: String?
    /// Whether the app is launched or resumed in the background when the session's transfers
    /// finish (`true` by default).
    open var sessionSendsLaunchEvents = true
    /// Whether TCP connections stay open while the app is in the background.
    open var shouldUseExtendedBackgroundIdleMode = false
    /// Header fields added to every request of the session.
    open var httpAdditionalHeaders: [AnyHashable: Any]?
    /// The most simultaneous connections to one host (6 by default).
    open var httpMaximumConnectionsPerHost = 6
    /// Whether requests carry cookies from the cookie storage.
    open var httpShouldSetCookies = true
    /// Which cookies are accepted.
    open var httpCookieAcceptPolicy: HTTPCookie.AcceptPolicy = .onlyFromMainDocumentDomain
    /// Whether requests may use HTTP pipelining.
    open var httpShouldUsePipelining = false
    /// The cookie storage; `nil` stores none.
    open var httpCookieStorage: HTTPCookieStorage? = .shared
    /// The response cache; `nil` caches nothing.
    open var urlCache: URLCache? = .shared
    /// The credential storage.
    open var urlCredentialStorage: URLCredentialStorage? = .shared
    /// Proxy settings.
    open var connectionProxyDictionary: [AnyHashable: Any]?

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = URLSessionConfiguration(kind: kind)
        copy.identifier = identifier
        copy.requestCachePolicy = requestCachePolicy
        copy.timeoutIntervalForRequest = timeoutIntervalForRequest
        copy.timeoutIntervalForResource = timeoutIntervalForResource
        copy.networkServiceType = networkServiceType
        copy.allowsCellularAccess = allowsCellularAccess
        copy.allowsExpensiveNetworkAccess = allowsExpensiveNetworkAccess
        copy.allowsConstrainedNetworkAccess = allowsConstrainedNetworkAccess
        copy.waitsForConnectivity = waitsForConnectivity
        copy.isDiscretionary = isDiscretionary
        copy.sharedContainerIdentifier = sharedContainerIdentifier
        copy.sessionSendsLaunchEvents = sessionSendsLaunchEvents
        copy.shouldUseExtendedBackgroundIdleMode = shouldUseExtendedBackgroundIdleMode
        copy.httpAdditionalHeaders = httpAdditionalHeaders
        copy.httpMaximumConnectionsPerHost = httpMaximumConnectionsPerHost
        copy.httpShouldSetCookies = httpShouldSetCookies
        copy.httpCookieAcceptPolicy = httpCookieAcceptPolicy
        copy.httpShouldUsePipelining = httpShouldUsePipelining
        copy.httpCookieStorage = httpCookieStorage
        copy.urlCache = urlCache
        copy.urlCredentialStorage = urlCredentialStorage
        copy.connectionProxyDictionary = connectionProxyDictionary
        return copy
    }

    /// The same options for FoundationNetworking's in-process session.
    func foundationConfiguration() -> FoundationNetworking.URLSessionConfiguration {
        let foundation: FoundationNetworking.URLSessionConfiguration = kind == .ephemeral ? .ephemeral : .default
        foundation.requestCachePolicy = requestCachePolicy
        foundation.timeoutIntervalForRequest = timeoutIntervalForRequest
        foundation.timeoutIntervalForResource = timeoutIntervalForResource
        foundation.networkServiceType = networkServiceType
        foundation.allowsCellularAccess = allowsCellularAccess
        foundation.httpAdditionalHeaders = httpAdditionalHeaders
        foundation.httpMaximumConnectionsPerHost = httpMaximumConnectionsPerHost
        foundation.httpShouldSetCookies = httpShouldSetCookies
        foundation.httpCookieAcceptPolicy = httpCookieAcceptPolicy
        foundation.httpCookieStorage = httpCookieStorage
        foundation.urlCache = urlCache
        foundation.urlCredentialStorage = urlCredentialStorage
        foundation.connectionProxyDictionary = connectionProxyDictionary
        return foundation
    }

    /// The session's additional header fields as text, sorted by name (for a background session).
    func additionalHeaderFields() -> [(String, String)] {
        (httpAdditionalHeaders ?? [:]).compactMap { key, value in
            guard let name = key.base as? String else { return nil }
            return (name, "\(value)")
        }.sorted { $0.0 < $1.0 }
    }
}
