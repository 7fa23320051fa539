import Foundation
import Testing

@testable import WalletOrdersHTTP

@Suite(.timeLimit(.minutes(5))) struct HTTPDateTests {
    /// Foundation's formatter, as the reference for ours.
    static func reference(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test func formatsAsFoundationDoesAndReadsBack() {
        // Every weekday and month, single-digit days and hours, the turn of a year and of a leap day.
        var dates = [0, 951_782_399, 951_868_800, 1_798_761_599, 1_798_761_600, 1_795_342_530].map {
            Date(timeIntervalSince1970: TimeInterval($0))
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let seconds = Int.random(in: 0..<4_102_444_800, using: &generator)
            dates.append(Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        for date in dates {
            let text = HTTPDate.format(date)
            #expect(text == Self.reference(date))
            #expect(HTTPDate.parse(text) == date)
        }
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1_795_342_530.9)) == "Sun, 22 Nov 2026 10:15:30 GMT")
    }
}
