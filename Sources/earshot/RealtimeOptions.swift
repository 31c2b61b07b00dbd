import ArgumentParser
import EarshotCore
import EarshotServer

/// `earshot serve`'s bounds on Realtime transcription sessions (`/v1/realtime`), each reloaded on
/// SIGHUP for the sessions opened after it but `--realtime-max-message-bytes` (the frame decoder of
/// every connection is built with it).
struct RealtimeOptions: ParsableArguments {
    @Option(help: "Realtime sessions open at once; beyond, a new one gets an error event and is closed (1013).")
    var realtimeMaxSessions = RealtimeLimits.Defaults.maxSessions

    @Option(help: "Seconds a Realtime session may last; then it gets an error event and is closed.")
    var realtimeMaxSessionDuration = RealtimeLimits.Defaults.maxSessionDuration.inSeconds

    @Option(help: "Seconds a Realtime session may send no event before it is closed (1008).")
    var realtimeIdleTimeout = RealtimeLimits.Defaults.idleTimeout.inSeconds

    @Option(help: "Largest Realtime client message or frame, in bytes; beyond, the connection is closed (1009).")
    var realtimeMaxMessageBytes = RealtimeLimits.Defaults.maxMessageBytes

    @Option(
        help: ArgumentHelp(
            "Seconds of audio a Realtime client may send ahead of real time before the service stops reading it.",
            discussion: "TCP back-pressure then slows a client that streams a file as fast as it can."))
    var realtimeMaxAudioAhead = RealtimeLimits.Defaults.maxAudioAhead

    @Option(help: "Server events queued for a Realtime client that does not read them before it is disconnected.")
    var realtimeMaxQueuedEvents = RealtimeLimits.Defaults.maxQueuedEvents

    func validate() throws {
        for (flag, value) in [
            ("--realtime-max-sessions", realtimeMaxSessions), ("--realtime-max-queued-events", realtimeMaxQueuedEvents),
        ] where value < 1 {
            throw ValidationError("\(flag) must be at least 1")
        }
        guard realtimeMaxMessageBytes >= 1_024 else {
            throw ValidationError("--realtime-max-message-bytes must be at least 1024")
        }
        for (flag, value) in [
            ("--realtime-max-session-duration", realtimeMaxSessionDuration),
            ("--realtime-idle-timeout", realtimeIdleTimeout), ("--realtime-max-audio-ahead", realtimeMaxAudioAhead),
        ] where !(value > 0 && value.isFinite) {
            throw ValidationError("\(flag) must be a positive number of seconds")
        }
    }

    var limits: RealtimeLimits {
        var limits = RealtimeLimits()
        limits.maxSessions = realtimeMaxSessions
        limits.maxSessionDuration = Serve.duration(realtimeMaxSessionDuration)
        limits.idleTimeout = Serve.duration(realtimeIdleTimeout)
        limits.maxMessageBytes = realtimeMaxMessageBytes
        limits.maxAudioAhead = realtimeMaxAudioAhead
        limits.maxQueuedEvents = realtimeMaxQueuedEvents
        return limits
    }
}
