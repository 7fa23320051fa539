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

    @Test func formattingAnyDateAtAllWritesTheNearestInstantAFourDigitYearCanNameAndNeverTraps() {
        let latest = "9999-12-31T23:59:59Z"
        let earliest = "0000-01-01T00:00:00Z"
        let cases: [(Double, String)] = [
            (.greatestFiniteMagnitude, latest), (-.greatestFiniteMagnitude, earliest),
            (.infinity, latest), (-.infinity, earliest), (.nan, earliest),
            // What a provider's `ts` of Int64.max or Int64.min seconds becomes.
            (Double(Int64.max), latest), (Double(Int64.min), earliest),
            // The first second of the year 10000, and the last of the year 9999.
            (253_402_300_800, latest), (253_402_300_799, latest),
            (-62_167_219_200, earliest), (-62_167_219_201, earliest),
            (-1, "1969-12-31T23:59:59Z"),
        ]
        for (seconds, expected) in cases {
            #expect(RFC3339.format(Date(timeIntervalSince1970: seconds)) == expected, "\(seconds)")
        }
        #expect(RFC3339.parse(latest) == Date(timeIntervalSince1970: 253_402_300_799))
        #expect(RFC3339.parse(earliest) == Date(timeIntervalSince1970: -62_167_219_200))
    }
}
