import EarshotCore
import EarshotTestTraits
import Foundation
import Synchronization
import Testing

/// The cores shared out among decodes: results one slot each in order of arrival, provisional work only
/// where a core stays free after it, told when a result comes to wait; a cancelled wait runs nothing.
@Suite(.waiting) struct ComputeSlotsTests {
    /// Runs `body` on a thread of its own; the semaphore is signalled when it has returned.
    static func spawn(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done
    }

    /// Waits (yielding the thread) until `condition` holds: an event, not a clock.
    static func waitUntil(_ condition: () -> Bool) {
        while !condition() { usleep(1_000) }
    }

    /// A slot held by a result until the returned semaphore is signalled; returns once it runs.
    static func hold(_ slots: ComputeSlots) -> (release: DispatchSemaphore, done: DispatchSemaphore) {
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = spawn {
            _ = slots.runResult {
                running.signal()
                release.wait()
            }
        }
        running.wait()
        return (release, done)
    }

    @Test func resultsTakeOneSlotEachInOrderOfArrival() {
        let slots = ComputeSlots(count: 1)
        let order = Locked<[String]>([])
        let held = Self.hold(slots)
        let b = Self.spawn { _ = slots.runResult { order.withLock { $0.append("b") } } }
        Self.waitUntil { slots.waitingResults == 1 }
        let c = Self.spawn { _ = slots.runResult { order.withLock { $0.append("c") } } }
        Self.waitUntil { slots.waitingResults == 2 }
        #expect(order.value.isEmpty, "nothing runs while the one slot is held")
        held.release.signal()
        for done in [held.done, b, c] { done.wait() }
        #expect(order.value == ["b", "c"])
        #expect(slots.tally.results == 3)
        #expect(slots.waitingResults == 0)
    }

    /// Provisional work starts only where it leaves a slot free for the rest of the service (or on an
    /// idle machine): beside one result on three slots, not beside one on two.
    @Test func provisionalWorkLeavesASlotFree() {
        let slots = ComputeSlots(count: 3)
        let first = Self.hold(slots)
        #expect(slots.runProvisional { _ in "ran" } == "ran", "two slots are free and no result waits")
        let second = Self.hold(slots)
        #expect(slots.runProvisional { _ in "ran" } == nil, "it would take the last free slot")
        #expect(slots.tally.provisional == 1 && slots.tally.provisionalSkipped == 1)
        for held in [first, second] {
            held.release.signal()
            held.done.wait()
        }
        let two = ComputeSlots(count: 2)
        #expect(two.runProvisional { _ in "idle" } == "idle", "nothing runs: the machine is idle")
        let held = Self.hold(two)
        #expect(two.runProvisional { _ in "ran" } == nil, "one result runs and one slot is free")
        held.release.signal()
        held.done.wait()
        #expect(ComputeSlots(count: 1).runProvisional { _ in "alone" } == "alone")
    }

    /// Provisional work holds at most half the slots: a second partial decode is skipped while one
    /// runs, and a result still finds a slot free at once.
    @Test func provisionalWorkHoldsAtMostHalfTheSlots() {
        let slots = ComputeSlots(count: 2)
        #expect(slots.provisionalLimit == 1)
        let started = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        let provisional = Self.spawn {
            _ = slots.runProvisional { _ in
                started.signal()
                finish.wait()
            }
        }
        started.wait()
        #expect(slots.runProvisional { _ in "second" } == nil)
        #expect(slots.runResult { "result" } == "result", "a slot is free for the result while the partial runs")
        finish.signal()
        provisional.wait()
        #expect(slots.runProvisional { _ in "again" } == "again")
        #expect(ComputeSlots(count: 8).provisionalLimit == 4 && ComputeSlots(count: 1).provisionalLimit == 1)
    }

    @Test func provisionalWorkIsToldWhenAResultComesToWait() {
        let slots = ComputeSlots(count: 1)
        let started = DispatchSemaphore(value: 0)
        let outcome = Locked<String?>(nil)
        let provisional = Self.spawn {
            let value = slots.runProvisional { resultWaiting in
                started.signal()
                while !resultWaiting() { usleep(1_000) }
                return "stopped for a result"
            }
            outcome.withLock { $0 = value }
        }
        started.wait()
        let result = slots.runResult { "result" }
        provisional.wait()
        #expect(result == "result")
        #expect(outcome.value == "stopped for a result")
        #expect(slots.tally.provisional == 1 && slots.tally.results == 1)
    }

    @Test func aResultCancelledWhileWaitingNeverRunsAndHoldsNoSlot() {
        let slots = ComputeSlots(count: 1)
        let held = Self.hold(slots)
        let cancelled = Atomic<Bool>(false)
        let ran = Atomic<Bool>(false)
        let returned = Locked<Bool?>(nil)
        let waiter = Self.spawn {
            let value = slots.runResult(unless: { cancelled.load(ordering: .relaxed) }) {
                ran.store(true, ordering: .relaxed)
            }
            returned.withLock { $0 = value != nil }
        }
        Self.waitUntil { slots.waitingResults == 1 }
        cancelled.store(true, ordering: .relaxed)
        waiter.wait()
        #expect(returned.value == false && !ran.load(ordering: .relaxed))
        #expect(slots.waitingResults == 0)
        held.release.signal()
        held.done.wait()
        #expect(slots.runProvisional { _ in true } == true, "the slot is free again")
    }

    @Test func theCPUOfEachKindIsCounted() {
        let slots = ComputeSlots(count: 1)
        func spin() -> Double {
            var x = 0.0
            for i in 0..<2_000_000 { x += Double(i).squareRoot() }
            return x
        }
        #expect(slots.runResult { spin() }! > 0)
        #expect(slots.runProvisional { _ in spin() }! > 0)
        let tally = slots.tally
        #expect(tally.resultCPU > .zero && tally.provisionalCPU > .zero)
    }
}
