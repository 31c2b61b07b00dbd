/// One output of a ``StageFork``: an item of its first stage or of its second.
public enum Forked<First, Second> {
    case first(First)
    case second(Second)

    /// The item, if the first stage made it.
    @inlinable
    public var first: First? { if case .first(let item) = self { item } else { nil } }

    /// The item, if the second stage made it.
    @inlinable
    public var second: Second? { if case .second(let item) = self { item } else { nil } }
}

extension Forked: Sendable where First: Sendable, Second: Sendable {}

/// Two stages fed the same input: the fan-out of a pipeline, such as the client's encoder beside its
/// voice activity detector.
///
/// For each input, `first` runs, then `second`; their outputs come out in that order (as
/// ``Forked/first(_:)`` then ``Forked/second(_:)``), and so do their events. `finish` finishes both,
/// in the same order. The intermediate outputs are reused, so a fork adds no allocation per input.
///
/// With `feedingFirstWhile`, the first stage takes an input only while the predicate, asked of the
/// second stage before each input, holds: how the encoder stops at the endpoint its sibling decided.
/// A first stage that stops being fed is still finished, so what it holds back is not lost.
public struct StageFork<First: AudioStage, Second: AudioStage>: AudioStage where First.Input == Second.Input {
    public typealias Input = First.Input
    public typealias Output = Forked<First.Output, Second.Output>

    public var first: First
    public var second: Second
    @usableFromInline let feedsFirst: ((Second) -> Bool)?
    @usableFromInline var firstOutput = StageOutput<First.Output>()
    @usableFromInline var secondOutput = StageOutput<Second.Output>()

    @inlinable
    public init(_ first: First, _ second: Second, feedingFirstWhile feedsFirst: ((Second) -> Bool)? = nil) {
        self.first = first
        self.second = second
        self.feedsFirst = feedsFirst
    }

    @inlinable
    public mutating func process(_ input: Input, into output: inout StageOutput<Output>) throws {
        firstOutput.removeAll()
        secondOutput.removeAll()
        if feedsFirst?(second) ?? true { try first.process(input, into: &firstOutput) }
        try second.process(input, into: &secondOutput)
        forward(into: &output)
    }

    @inlinable
    public mutating func finish(into output: inout StageOutput<Output>) throws {
        firstOutput.removeAll()
        secondOutput.removeAll()
        try first.finish(into: &firstOutput)
        try second.finish(into: &secondOutput)
        forward(into: &output)
    }

    @inlinable
    mutating func forward(into output: inout StageOutput<Output>) {
        output.post(contentsOf: firstOutput.events)
        output.post(contentsOf: secondOutput.events)
        for item in firstOutput.items { output.emit(.first(item)) }
        for item in secondOutput.items { output.emit(.second(item)) }
    }
}

/// A fork takes the calls of its second stage; their items come out as ``Forked/second(_:)``.
extension StageFork: ControllableStage where Second: ControllableStage {
    public typealias Control = Second.Control

    @inlinable
    public mutating func control(_ control: Control, into output: inout StageOutput<Output>) throws {
        firstOutput.removeAll()
        secondOutput.removeAll()
        try second.control(control, into: &secondOutput)
        forward(into: &output)
    }
}

extension AudioStage {
    /// Feeds every input of this stage's input to `other` as well (see ``StageFork``).
    @inlinable
    public func fork<Other: AudioStage>(
        _ other: Other, feedingSelfWhile feedsSelf: ((Other) -> Bool)? = nil
    ) -> StageFork<Self, Other> where Other.Input == Input {
        StageFork(self, other, feedingFirstWhile: feedsSelf)
    }
}
