import Testing
import WalletOrdersModel

@testable import WalletOrdersShops

/// Fields from outside read safely: links only when https with a host, text cleaned and cut, identifiers and tracking
/// numbers whole or not at all, and order management links filled from the connection's template.
@Suite(.timeLimit(.minutes(5))) struct ShopFieldTests {
    @Test func onlyHTTPSLinksWithAHostAreTaken() {
        for url in ["https://track.example/1", "https://a.example:8443/x?y=1", "https://[2001:db8::1]/t"] {
            #expect(ShopField.isHTTPSURL(url), "\(url)")
        }
        for url in ["http://track.example/1", "https://", "https:///x", "https://a b.example/", "https://user@@host/", "https://h:port/", "ftp://x"] {
            #expect(!ShopField.isHTTPSURL(url), "\(url)")
        }
    }

    @Test func textIsCleanedAndCutAndTokensAreWholeOrNothing() {
        #expect(ShopField.text(.string("  Linen\ttea\n towel ")) == "Linen tea towel")
        #expect(ShopField.text(.string("\u{202E}evil")) == "evil")
        #expect(ShopField.text(.string(String(repeating: "é", count: 300)))?.unicodeScalars.count == 256)
        #expect(ShopField.text(.string("   ")) == nil)
        #expect(ShopField.token(.string("1Z999AA10123456784")) == "1Z999AA10123456784")
        #expect(ShopField.token(.string("a\u{0}b")) == nil)
        #expect(ShopField.token(.string(String(repeating: "1", count: 257))) == nil)
        #expect(ShopField.identifier(.string("order/1")) == nil)
        #expect(ShopField.identifier(.int(5_820_194_783_521)) == "5820194783521")
    }

    @Test func instantsOutsideTheirWindowsAreLeftOutWhateverTheNumber() {
        let now = ShopFixture.now
        #expect(ShopField.occurrence(unixSeconds: .string("1772532000"), now: now) == RFC3339.parseDateTime("2026-03-03T10:00:00Z"))
        for odd: JSONValue in [.int(Int.min), .int(Int.max), .int(0), .int(-1), .double(.infinity), .string("17725320000000")] {
            #expect(ShopField.occurrence(unixSeconds: odd, now: now) == nil, "\(odd)")
        }
        #expect(ShopField.occurrence(.string("1999-12-31T23:59:59Z"), now: now) == nil)
        #expect(ShopField.occurrence(.string("2026-03-09T00:00:01Z"), now: now) == nil)
        #expect(ShopField.expectedDelivery(.string("2026-12-24T12:00:00Z"), now: now) != nil)
        #expect(ShopField.expectedDelivery(.string("2028-01-01T00:00:00Z"), now: now) == nil)
    }

    @Test func orderManagementURLsComeFromTheTemplateEncoded() {
        let context = ShopMappingContext(now: ShopFixture.now, orderManagementURLTemplate: "https://shop.example/orders/{number}?id={id}")
        #expect(context.orderManagementURL(id: "12", number: "#1001") == "https://shop.example/orders/%231001?id=12")
        #expect(ShopMappingContext.isValidTemplate("https://shop.example/account/orders/{id}"))
        #expect(!ShopMappingContext.isValidTemplate("http://shop.example/account/orders/{id}"))
        #expect(!ShopMappingContext.isValidTemplate("{id}"))
    }
}
