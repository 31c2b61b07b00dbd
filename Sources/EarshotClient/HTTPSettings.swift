import AsyncHTTPClient
import NIOCore

extension HTTPClient.Configuration {
    /// How every Earshot client talks to a recognition service: the given connect and read timeouts
    /// (seconds), redirects refused (the user's audio goes only to the configured host), and a refused
    /// connection failing at once — AsyncHTTPClient would otherwise try again until the connect
    /// timeout (47 s per segment against a dead port); retries are the caller's, with its own back-off.
    static func recognitionService(connectionTimeout: Double, readTimeout: Double) -> Self {
        var settings = Self()
        settings.timeout = .init(
            connect: .milliseconds(Int64(connectionTimeout * 1000)), read: .milliseconds(Int64(readTimeout * 1000)))
        settings.redirectConfiguration = .disallow
        settings.connectionPool.retryConnectionEstablishment = false
        return settings
    }
}
