import Foundation
import Testing
import WalletOrdersModel

@Suite(.timeLimit(.minutes(5))) struct RFC3339Tests {
    @Test func parsesUTCOffsetsAndFractions() {
        #expect(RFC3339.parse("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339.parse("2026-11-22T10:15:30Z") == Date(timeIntervalSince1970: 1_795_342_530))
        #expect(RFC3339.parse("2026-11-22T11:15:30+01:00") == Date(timeIntervalSince1970: 1_795_342_530))
        #expect(RFC3339.parse("2026-11-22T10:15:30.5Z") == Date(timeIntervalSince1970: 1_795_342_530.5))
        #expect(RFC3339.parse("2024-02-29T00:00:00Z") != nil)
    }

    @Test func rejectsWhatIsNotRFC3339() {
        for text in [
            "2026-11-22", "2026-11-22T10:15:30", "2023-02-29T00:00:00Z", "2026-11-22T25:00:00Z",
            "2026-11-22T10:15:30.Z", "22/11/2026", "2026-11-22T10:15:30Zjunk", "",
        ] {
            #expect(RFC3339.parse(text) == nil, "\(text)")
        }
    }

    @Test func orderDatesFollowTheDateTimeGrammarWithATBetweenDateAndTime() {
        #expect(RFC3339.parseDateTime("2026-11-22T10:15:30Z") == Date(timeIntervalSince1970: 1_795_342_530))
        #expect(RFC3339.parseDateTime("2026-11-22t10:15:30z") == Date(timeIntervalSince1970: 1_795_342_530))
        #expect(RFC3339.parseDateTime("2026-11-22 10:15:30Z") == nil)
        #expect(RFC3339.parse("2026-11-22 10:15:30Z") == Date(timeIntervalSince1970: 1_795_342_530))
    }

    @Test func formatsWholeSecondsInUTC() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_342_530.9)) == "2026-11-22T10:15:30Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        let now = Date(timeIntervalSince1970: 1_795_342_530)
        #expect(RFC3339.parse(RFC3339.format(now)) == now)
    }
}
