import EarshotCore
import EarshotTestTraits
import Testing

/// Records what reaches it: items as "item N", calls as "call NAME"; finishing adds "end".
private struct Recorder: ControllableStage {
    mutating func process(_ input: Int, into output: inout StageOutput<String>) throws { output.emit("item \(input)") }
    mutating func finish(into output: inout StageOutput<String>) throws { output.emit("end") }
    mutating func control(_ control: String, into output: inout StageOutput<String>) throws {
        output.emit("call \(control)")
    }
}

/// Doubles items, and takes no calls: a stage a call must pass by.
private struct Double: AudioStage {
    mutating func process(_ input: Int, into output: inout StageOutput<Int>) throws { output.emit(input * 2) }
    mutating func finish(into output: inout StageOutput<Int>) throws {}
}

private func run<Stage: AudioStage>(_ stage: inout Stage, _ inputs: [Stage.Input]) throws -> [Stage.Output] {
    var outputs: [Stage.Output] = []
    try Pipeline.run(inputs, through: &stage) { outputs.append(contentsOf: $0.items) }
    return outputs
}

@Suite(.computing) struct StageControlTests {
    @Test func aChainPassesCallsToItsLastStage() throws {
        var chain = Double().then(Double()).then(Recorder())
        var output = StageOutput<String>()
        try chain.process(1, into: &output)
        try chain.control("stop", into: &output)
        try chain.process(2, into: &output)
        #expect(output.items == ["item 4", "call stop", "item 8"])
    }

    @Test func aForkPassesCallsToItsSecondStage() throws {
        var fork = Double().fork(Recorder())
        var output = StageOutput<Forked<Int, String>>()
        try fork.process(3, into: &output)
        try fork.control("cancel", into: &output)
        #expect(output.items.compactMap(\.first) == [6])
        #expect(output.items.compactMap(\.second) == ["item 3", "call cancel"])
    }

    @Test func itemsAndCallsAsOneStream() throws {
        var stage = Recorder().takingControls()
        #expect(
            try run(&stage, [.item(1), .control("extend"), .item(2)]) == ["item 1", "call extend", "item 2", "end"])
    }

    @Test func aScheduleReleasesEachCallBeforeTheFirstItemAtOrAfterItsTime() throws {
        // Items are their own times in seconds. Calls out of order, two at one time (kept in order),
        // one after the last item (released at the end) and one after the end (never released).
        let calls: [(time: Swift.Double, control: String)] = [
            (2.5, "b"), (0.5, "a"), (2.5, "c"), (3.5, "d"), (9, "late"),
        ]
        var chain = ControlSchedule(calls, endingAt: 4) { Swift.Double($0) }.then(Recorder().takingControls())
        #expect(
            try run(&chain, [1, 2, 3])
                == ["call a", "item 1", "item 2", "call b", "call c", "item 3", "call d", "end"])
    }

    @Test func aPassThroughTapKeepsEveryItem() throws {
        var tap = PassThrough<Int>().fork(Recorder())
        let outputs = try run(&tap, [7, 8])
        #expect(outputs.compactMap(\.first) == [7, 8])
        #expect(outputs.compactMap(\.second) == ["item 7", "item 8", "end"])
    }
}
