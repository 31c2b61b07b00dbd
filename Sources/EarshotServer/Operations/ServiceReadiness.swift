/// The service's one ``Readiness``, shared by the health route, the start-up and the drain.
public actor ServiceReadiness {
    public private(set) var state: Readiness = .starting

    public init() {}

    func recognizersLoaded() { state = state.recognizersLoaded() }

    func drain() { state = state.drain() }
}
