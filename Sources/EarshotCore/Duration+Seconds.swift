extension Duration {
    /// The duration in seconds, as options and reports state them.
    public var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
