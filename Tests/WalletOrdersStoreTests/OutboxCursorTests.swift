import Testing

@testable import WalletOrdersPostgres

/// Where PostgreSQL's claims start (see `OutboxCursor`): from the beginning first, then a margin before the last push
/// claimed, never behind a claim beside it that went further.
@Suite(.timeLimit(.minutes(5))) struct OutboxCursorTests {
    @Test func aClaimStartsFromTheBeginningThenAMarginBeforeTheLastPushClaimed() {
        var cursor = OutboxCursor()
        #expect(cursor.peek() == nil)
        #expect(cursor.start() == nil, "the first claim looks from the beginning")
        cursor.claimed(upTo: (at: 100, id: 7), fromStart: true)
        #expect(cursor.start().map { [$0.at, $0.id] } == [100 - OutboxCursor.margin, Int64.min])
        // Two claims under way at once: the one that went less far does not move the cursor back.
        cursor.claimed(upTo: (at: 103, id: 9), fromStart: false)
        cursor.claimed(upTo: (at: 101, id: 8), fromStart: false)
        #expect(cursor.peek().map { [$0.at, $0.id] } == [103 - OutboxCursor.margin, Int64.min])
        // A claim that took nothing leaves it where it was; one from the beginning sets it where it ended.
        cursor.claimed(upTo: nil, fromStart: false)
        #expect(cursor.start().map(\.at) == 103 - OutboxCursor.margin)
        cursor.claimed(upTo: (at: 50, id: 2), fromStart: true)
        #expect(cursor.start().map(\.at) == 50 - OutboxCursor.margin)
    }
}
