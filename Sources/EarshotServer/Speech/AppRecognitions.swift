import Synchronization

/// How many recognitions each app runs at once (`--max-recognitions-per-app`): one app's key, however
/// many connections it opens, cannot take every recognizer from the others. Beside
/// ``RecognitionSlots``, which bounds all apps together.
final class AppRecognitions: Sendable {
    let limit: Int
    private let running = Mutex<[String: Int]>([:])

    init(limit: Int) {
        precondition(limit > 0, "an app needs at least one recognition")
        self.limit = limit
    }

    /// Counts one more recognition for `app`, if it runs fewer than the limit.
    func take(_ app: String) -> Bool {
        running.withLock { running in
            let count = running[app, default: 0]
            guard count < limit else { return false }
            running[app] = count + 1
            return true
        }
    }

    func give(_ app: String) {
        running.withLock { running in
            let count = running[app, default: 1] - 1
            running[app] = count > 0 ? count : nil
        }
    }
}
