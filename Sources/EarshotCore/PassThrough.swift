/// A stage that emits each input unchanged: the tap beside another stage in a ``StageFork``, when a
/// caller wants a stream as well as what a stage makes of it (the lab keeps every smoothed decision
/// while the endpointer, which stops at the endpoint, takes them too).
public struct PassThrough<Item>: AudioStage {
    public typealias Input = Item
    public typealias Output = Item

    public init() {}

    public mutating func process(_ input: Item, into output: inout StageOutput<Item>) { output.emit(input) }

    public mutating func finish(into output: inout StageOutput<Item>) {}
}

extension PassThrough: Sendable {}
