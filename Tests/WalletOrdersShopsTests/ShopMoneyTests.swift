import Testing
import WalletOrdersModel

@testable import WalletOrdersShops

/// Money in whole numbers only: decimal strings and minor units turned into each other exactly, every currency with
/// its own digits, and anything odd refused rather than rounded.
@Suite(.timeLimit(.minutes(5))) struct ShopMoneyTests {
    @Test func minorUnitsBecomeDecimalsWithTheCurrencysDigits() {
        #expect(ShopMoney.decimal(minorUnits: 17861, currency: "USD") == "178.61")
        #expect(ShopMoney.decimal(minorUnits: 5, currency: "USD") == "0.05")
        #expect(ShopMoney.decimal(minorUnits: 0, currency: "EUR") == "0.00")
        #expect(ShopMoney.decimal(minorUnits: 3000, currency: "JPY") == "3000")
        #expect(ShopMoney.decimal(minorUnits: 1234, currency: "KWD") == "1.234")
        #expect(ShopMoney.decimal(minorUnits: -1, currency: "USD") == nil)
        #expect(ShopMoney.decimal(minorUnits: Int.max, currency: "USD") == nil)
    }

    @Test func decimalsBecomeMinorUnitsOnlyWhenExact() {
        #expect(ShopMoney.minorUnits("199.65", currency: "USD") == 19965)
        #expect(ShopMoney.minorUnits("199.650", currency: "USD") == 19965)
        #expect(ShopMoney.minorUnits("7", currency: "USD") == 700)
        #expect(ShopMoney.minorUnits("0.001", currency: "USD") == nil)
        #expect(ShopMoney.minorUnits("480", currency: "JPY") == 480)
        #expect(ShopMoney.minorUnits("480.5", currency: "JPY") == nil)
        #expect(ShopMoney.minorUnits("1" + String(repeating: "0", count: 20), currency: "USD") == nil)
    }

    @Test func onlyPlainNonNegativeDecimalsAreAmounts() {
        for text in ["12.50", "0", "007.10"] { #expect(ShopMoney.decimal(.string(text)) == text) }
        for text in ["-1.00", "1e3", "1.", ".5", "1,50", " 1", "", String(repeating: "9", count: 33), "NaN"] {
            #expect(ShopMoney.decimal(.string(text)) == nil, "\(text)")
        }
        #expect(ShopMoney.decimal(.int(12)) == "12")
        #expect(ShopMoney.decimal(.double(12.5)) == nil)
        #expect(ShopMoney.decimal(.int(-3)) == nil)
    }

    @Test func unitPricesDivideExactlyOrNotAtAll() {
        #expect(ShopMoney.unitPrice(total: "20.00", quantity: 2, currency: "EUR") == "10.00")
        #expect(ShopMoney.unitPrice(total: "10.00", quantity: 3, currency: "EUR") == nil)
        #expect(ShopMoney.unitPrice(total: "10.00", quantity: 0, currency: "EUR") == nil)
        #expect(ShopMoney.sum("16.80", "3.20", currency: "EUR") == "20.00")
    }

    @Test func onlyCurrenciesInUseAreTaken() {
        #expect(ShopMoney.currency(.string("USD")) == "USD")
        for code in ["usd", "US", "USDD", "XXX", ""] { #expect(ShopMoney.currency(.string(code)) == nil, "\(code)") }
        #expect(ShopMoney.currency(.int(840)) == nil)
    }
}
