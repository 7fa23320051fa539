import Testing

@testable import WalletOrdersService

/// The window of an import's lines on its own: results taken in the lines' order whatever order they finish in, no
/// more than its capacity under way, never two lines naming one order at once.
@Suite(.timeLimit(.minutes(5))) struct ImportWindowTests {
    @Test func resultsAreTakenInTheOrderTheLinesStartedWhateverOrderTheyFinishIn() async {
        let window = ImportWindow<String>(capacity: 8)
        for expected in 0..<3 { #expect(await window.start(key: nil) == expected) }
        window.finish(2, key: nil, "third")
        window.finish(0, key: nil, "first")
        #expect(await window.next() == ["first"], "the second is not in: the third waits for it")
        window.finish(1, key: nil, "second")
        #expect(await window.next() == ["second", "third"])
        window.close()
        #expect(await window.next() == nil)
    }

    @Test func aFullWindowStartsTheNextLineOnlyOnceTheFirstResultIsTaken() async {
        let window = ImportWindow<Int>(capacity: 2)
        #expect(await window.start(key: nil) == 0)
        #expect(await window.start(key: nil) == 1)
        let third = Task { await window.start(key: nil) }
        window.finish(0, key: nil, 0)
        window.finish(1, key: nil, 1)
        // Finished is not enough: results waiting to be taken hold their places, so memory stays bounded.
        #expect(window.counts.started == 2)
        #expect(await window.next() == [0, 1])
        #expect(await third.value == 2)
        #expect(window.counts.started == 3 && window.counts.taken == 2)
    }

    @Test func aLineNamingAnOrderUnderWayStartsOnlyOnceThatOneFinishes() async {
        let window = ImportWindow<Int>(capacity: 8)
        #expect(await window.start(key: "type A-1") == 0)
        #expect(await window.start(key: "type B-1") == 1)
        let again = Task { await window.start(key: "type A-1") }
        window.finish(1, key: "type B-1", 1)
        #expect(window.counts.started == 2, "another order finishing lets nothing in")
        window.finish(0, key: "type A-1", 0)
        #expect(await again.value == 2)
        #expect(await window.start(key: "type B-1") == 3, "a finished order's key is free")
    }

    @Test func cancellingAnswersTheWaitingReaderAndTakerWithNothing() async {
        let window = ImportWindow<Int>(capacity: 1)
        #expect(await window.start(key: nil) == 0)
        let reader = Task { await window.start(key: nil) }
        window.cancel()
        #expect(await reader.value == nil)
        #expect(await window.next() == nil)
        #expect(await window.start(key: nil) == nil)
    }

    @Test func aCancelledReaderTaskStopsWaiting() async {
        let window = ImportWindow<Int>(capacity: 1)
        #expect(await window.start(key: nil) == 0)
        let reader = Task { await window.start(key: nil) }
        reader.cancel()
        #expect(await reader.value == nil)
    }
}
