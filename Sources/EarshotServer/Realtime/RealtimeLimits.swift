import Foundation

/// What one Realtime session may take from the service (`earshot serve --realtime-…`). A session
/// holds one recognizer from its start to its end, and counts as one of its app's recognitions
/// (`--max-recognitions-per-app`), beside these bounds of its own.
public struct RealtimeLimits: Sendable, Hashable {
    public enum Defaults {
        /// As many as there are recognizers: each session holds one.
        public static var maxSessions: Int { ServiceConfiguration.Defaults.recognizerCount }
        /// Thirty minutes, half of OpenAI's hour: a session holds a recognizer all along.
        public static let maxSessionDuration: Duration = .seconds(1_800)
        /// A session from which no event arrives for this long is closed (a live microphone sends
        /// audio ten times a second).
        public static let idleTimeout: Duration = .seconds(30)
        /// 1 MiB: about 16 s of 24 kHz PCM16 in base64 in one `append`.
        public static let maxMessageBytes = 1 << 20
        /// Audio a client may send ahead of real time before the service stops reading it.
        public static let maxAudioAhead: Double = 10
        /// Server events waiting for a client that does not read them, before the session is closed.
        public static let maxQueuedEvents = 256
    }

    /// Sessions open at once over all apps; beyond, a new session gets an `error` and is closed.
    public var maxSessions = Defaults.maxSessions
    public var maxSessionDuration = Defaults.maxSessionDuration
    public var idleTimeout = Defaults.idleTimeout
    /// The largest client message (one frame, or a fragmented message whole): the connection is closed
    /// with 1009 beyond. The frame decoder's bound is the value at start.
    public var maxMessageBytes = Defaults.maxMessageBytes
    /// Seconds of audio a client may send ahead of the wall clock since its session began; beyond, the
    /// service reads no more until real time catches up (TCP back-pressure reaches the client).
    public var maxAudioAhead = Defaults.maxAudioAhead
    public var maxQueuedEvents = Defaults.maxQueuedEvents

    /// Client messages read but not yet handled, in bytes, before the service stops reading the
    /// socket: two of the largest messages (by default about 30 s of 24 kHz PCM16 in base64, more than
    /// a final decode takes on a loaded machine, so the socket's pings are answered meanwhile).
    var maxUnhandledBytes: Int { 2 * maxMessageBytes }

    public init() {}

    /// `limits` with another message bound (what a reload keeps).
    init(_ limits: RealtimeLimits, maxMessageBytes: Int) {
        self = limits
        self.maxMessageBytes = maxMessageBytes
    }
}
