import Foundation
import EarshotTestTraits
import Testing

@testable import EarshotServer

/// How many recognitions the service runs at once, and how many one app may hold (issue 47, item 5).
@Suite(.computing) struct CapacityTests {
    @Test func recognizersFollowTheCores() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(ServiceConfiguration.Defaults.recognizerCount == min(32, max(4, 4 * cores)))
    }

    /// One app alone may use every recognizer (a load test of your own service is not refused); with
    /// several apps, or API keys beside the credentials, one fewer, so none takes them all.
    @Test func thePerAppCapProtectsOtherAppsOnly() throws {
        var configuration = ServiceConfiguration(
            credentials: Credentials(secrets: ["app": "secret"]), recognizerCount: 8)
        #expect(configuration.recognitionsPerApp == 8)
        configuration.credentials = Credentials(secrets: ["app": "secret", "other": "secret2"])
        #expect(configuration.recognitionsPerApp == 7)
        configuration.credentials = Credentials(secrets: ["app": "secret"])
        configuration.apiKeys = try APIKeys(parsing: "sk-earshot-0123456789abcdef\n", origin: "keys")
        #expect(configuration.recognitionsPerApp == 7)
        configuration.maxRecognitionsPerApp = 3
        #expect(configuration.recognitionsPerApp == 3)
        configuration.recognizerCount = 1
        configuration.maxRecognitionsPerApp = nil
        #expect(configuration.recognitionsPerApp == 1)
    }
}
