import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the service on SIGHUP until graceful shutdown begins.
///
/// Signals are coalesced: while a reload runs, any number of further SIGHUPs leave one reload
/// pending, which reads the configuration as it is when it starts. A burst of signals (a script
/// that sends one per changed key, or a flood) costs at most two reloads, not one per signal.
struct ReloadOnHangUp: Service {
    let service: SpeechService
    let level: LiveLogLevel
    let hangUps: UnixSignalsSequence
    let reload: @Sendable () async throws -> ServiceReload
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { [hangUps] in
            // Holds at most one signal not yet acted on: a newer one replaces it.
            let (pending, mark) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in hangUps { mark.yield() }
                    mark.finish()
                }
                for await _ in pending { await reloadOnce() }
                group.cancelAll()
            }
        }
    }

    private func reloadOnce() async {
        do {
            let reloaded = try await reload()
            var changed = service.reload(from: reloaded.configuration)
            if level.value != reloaded.logLevel {
                level.value = reloaded.logLevel
                changed.append("log-level")
            }
            logger.notice(
                "reloaded on SIGHUP",
                metadata: ["changed": .string(changed.isEmpty ? "nothing" : changed.joined(separator: ", "))])
            if !reloaded.needsRestart.isEmpty {
                logger.warning(
                    "settings changed that take a restart; the running values stay",
                    metadata: ["settings": .string(reloaded.needsRestart.joined(separator: ", "))])
            }
        } catch {
            logger.error("reload on SIGHUP failed; the running settings stay", metadata: ["error": "\(error)"])
        }
    }
}
