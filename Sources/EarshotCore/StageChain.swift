/// Two stages run in sequence: every output of `first` is processed by `second`.
///
/// Events from both are passed on; for any one input, those `first` posted come before those
/// `second` posted. `finish` flushes `first`, feeds what that released to `second`, then flushes
/// `second`, so no sample held in a filter tail is lost. The intermediate output is reused, so a
/// chain adds no allocation per buffer.
public struct StageChain<First: AudioStage, Second: AudioStage>: AudioStage where First.Output == Second.Input {
    public typealias Input = First.Input
    public typealias Output = Second.Output

    public var first: First
    public var second: Second
    @usableFromInline var between = StageOutput<First.Output>()

    @inlinable
    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable
    public mutating func process(_ input: Input, into output: inout StageOutput<Output>) throws {
        between.removeAll()
        try first.process(input, into: &between)
        try forward(into: &output)
    }

    @inlinable
    public mutating func finish(into output: inout StageOutput<Output>) throws {
        between.removeAll()
        try first.finish(into: &between)
        try forward(into: &output)
        try second.finish(into: &output)
    }

    @inlinable
    mutating func forward(into output: inout StageOutput<Output>) throws {
        output.post(contentsOf: between.events)
        for item in between.items {
            try second.process(item, into: &output)
        }
        between.removeAll()
    }
}

extension StageChain: Sendable where First: Sendable, Second: Sendable, First.Output: Sendable {}
