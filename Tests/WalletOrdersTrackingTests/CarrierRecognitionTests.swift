import Foundation
import Testing
import WalletOrdersTesting
import WalletOrdersTracking

/// A tracking number from a carrier's (or a standard's) published example, and where it came from. Carriers mostly
/// publish placeholders ("9400 1000 0000 0000 0000 00") whose last digit is no check digit; where an example here is
/// such a placeholder with its check digit computed by us, or built by us on a published structure, its source says so.
struct PublishedNumber: Sendable, CustomTestStringConvertible {
    let number: String
    let carrier: Carrier
    let source: String

    init(_ number: String, _ carrier: Carrier, _ source: String) {
        self.number = number
        self.carrier = carrier
        self.source = source
    }

    var testDescription: String { "\(number) (\(carrier.name))" }

    /// Numbers recognised, each with the carrier it is from.
    static let recognized: [PublishedNumber] = [
        PublishedNumber("1Z 999 AA1 01 2345 6784", .ups, "UPS's example, as wheremy.com's 'UPS Shipment Tracking' FAQ reproduces it"),
        PublishedNumber("1Z 591580 68 55587736", .ups, "metacpan, Algorithm::CheckDigits::M10_011 ('compute check digits UPS')"),
        PublishedNumber("123456789012", .fedEx, "the worked FedEx Express example in 'Is there an algorithm to detect … FedEx' (postalletter.com)"),
        PublishedNumber(
            "123456770100011",
            .fedEx,
            "built: a 7-digit Ground account, a serial from the range FedEx Ship Manager Server User Guide v7.6 starts at "
                + "(7010001) and the GS1 check digit the FedEx Ground Bar Code & Label Layout Specification computes"
        ),
        PublishedNumber("9611020123456770100011", .fedEx, "built: the 15-digit number above in FedEx Ground's 22-digit '96' barcode"),
        PublishedNumber(
            "9400 1000 0000 0000 0000 06",
            .usps,
            "USPS's 'USPS Tracking' sample 9400 1000 0000 0000 0000 00 with its check digit computed"
        ),
        PublishedNumber(
            "9205 5000 0000 0000 0000 01",
            .usps,
            "USPS's 'Priority Mail' sample 9205 5000 0000 0000 0000 00 with its check digit computed"
        ),
        PublishedNumber("7112 3456 7890 0000 0010", .usps, "built on USPS Publication 109, 2-8: service type, DUNS, serial, weighted MOD 10"),
        PublishedNumber("EA 000 000 005 US", .usps, "USPS's 'Priority Mail Express' sample EA 000 000 000 US with its S10 check digit computed"),
        PublishedNumber("EA 473 124 829 US", .usps, "the UPU S10 standard's worked serial 47312482, check digit 9"),
        PublishedNumber("1234567891", .dhlExpress, "dhl.com 'DHL Shipment Tracking Labels' example 1234567890 with its mod 7 check digit computed"),
        PublishedNumber("00340433836442636597", .dhlPaket, "paketda.de, 'Prüfziffern-Berechnung für Paketnummern', 20-stellig"),
        PublishedNumber("00340434161094042557", .dhlPaket, "AfterShip's documented tracking webhook (Tests/Fixtures/tracking)"),
        PublishedNumber("201298452283", .dhlPaket, "built: paketda.de's 12-digit example with another serial, Identcode check (4, 9)"),
        PublishedNumber("JJD0099999999", .dhl, "dhl.com 'DHL Shipment Tracking Labels', DHL Express"),
        PublishedNumber("JJD1410302937991", .dhl, "paketda.de, 'Prüfziffern-Berechnung für Paketnummern', 16-stellig"),
        PublishedNumber("JVGL9999999999", .dhl, "dhl.com 'DHL Shipment Tracking Labels', DHL Parcel"),
        PublishedNumber("GM99999999999", .dhl, "dhl.com 'DHL Shipment Tracking Labels', DHL eCommerce"),
        PublishedNumber("01015026003653c", .dpd, "paketda.de, 'Prüfziffern-Berechnung für Paketnummern', DPD 14-stellig with its check character"),
        PublishedNumber("RR 473 124 829 GB", .royalMail, "the UPU S10 standard's worked serial, issued in GB"),
        PublishedNumber("RN 473 124 829 CA", .canadaPost, "the UPU S10 worked serial with Canada Post's RN (registered) indicator"),
        PublishedNumber("AB 123 456 785 CA", .canadaPost, "Canada Post's sample AB 123 456 789 CA with its S10 check digit computed"),
        PublishedNumber("CP 473 124 829 AU", .australiaPost, "the UPU S10 standard's worked serial, issued in AU"),
        PublishedNumber("RR 473 124 829 NL", .postNL, "the UPU S10 standard's worked serial, issued in NL"),
        PublishedNumber("CP 473 124 829 FR", .laPoste, "the UPU S10 standard's worked serial, issued in FR"),
        PublishedNumber("8D00432154798", .laPoste, "colissimo.fr, 'FAQ on tracking & tracing a parcel'"),
        PublishedNumber("RR 473 124 829 DE", .deutschePost, "the UPU S10 standard's worked serial, issued in DE"),
        PublishedNumber("TBA123456789012", .amazonLogistics, "the TBA and 12 digits of Amazon's notices, as guides show it (winenfood.com)"),
    ]

    /// Look-alikes: one character off from a number above (the check digit, or one digit of what it checks).
    static let wrongCheckDigit: [String] = [
        "1Z999AA10123456785", "1Z999AA10123456774", "123456789013", "123456770100012", "9611020123456770100012",
        "9400100000000000000007", "9400100000000000000016", "71123456789000000011", "EA000000006US", "EA473124828US",
        "1234567892", "00340433836442636598", "00340434161094042567", "201298452284", "01015026003653D", "RR473124819GB",
        "RN473124828CA", "AB123456789CA", "CP473124820AU", "RR473124820NL", "CP473124828FR", "RR473124828DE",
    ]
}

@Suite(.timeLimit(.minutes(5))) struct CarrierRecognitionTests {
    @Test(arguments: PublishedNumber.recognized)
    func aPublishedNumberIsRecognisedWithItsCarrierAndTrackingPage(_ published: PublishedNumber) throws {
        let carrier = try #require(Carrier.recognizing(trackingNumber: published.number), "\(published.source)")
        #expect(carrier == published.carrier, "\(published.source)")
        let url = try #require(carrier.trackingURL(for: published.number))
        let normalized = published.number.replacingOccurrences(of: " ", with: "").uppercased()
        #expect(url.scheme == "https")
        #expect(url.absoluteString.hasSuffix(normalized))
        #expect(url.absoluteString.hasPrefix(trackingPages[carrier.identifier] ?? "none"))
    }

    /// Each carrier's own public tracking page, written out again here so that a change to one is a change a test sees.
    let trackingPages: [String: String] = [
        "ups": "https://www.ups.com/track?tracknum=", "fedex": "https://www.fedex.com/fedextrack/?trknbr=",
        "usps": "https://tools.usps.com/go/TrackConfirmAction?tLabels=",
        "dhl-express": "https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=",
        "dhl-paket": "https://www.dhl.de/en/privatkunden/pakete-empfangen/verfolgen.html?piececode=",
        "dhl": "https://www.dhl.com/global-en/home/tracking.html?submit=1&tracking-id=",
        "royal-mail": "https://www.royalmail.com/track-your-item#/tracking-results/", "dpd": "https://tracking.dpd.de/status/en_US/parcel/",
        "canada-post": "https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=",
        "amazon-logistics": "https://track.amazon.com/tracking/", "australia-post": "https://auspost.com.au/mypost/track/details/",
        "postnl": "https://jouw.postnl.nl/track-and-trace/", "la-poste": "https://www.laposte.fr/outils/suivre-vos-envois?code=",
        "deutsche-post": "https://www.dhl.de/en/privatkunden/pakete-empfangen/verfolgen.html?piececode=",
    ]

    @Test func everyCarrierHasAPublishedNumberAndItsOwnIdentifier() {
        #expect(Set(PublishedNumber.recognized.map(\.carrier)) == Set(Carrier.all))
        #expect(Set(Carrier.all.map(\.identifier)).count == Carrier.all.count)
        #expect(Set(Carrier.all.map(\.identifier)) == Set(trackingPages.keys))
    }

    /// docs/merchant-guide.md cannot drift from the table: its section names every carrier and every tracking page.
    @Test func theMerchantGuideNamesEveryCarrierAndItsTrackingPage() throws {
        let guide = try String(contentsOf: SampleOrder.repository.appendingPathComponent("docs/merchant-guide.md"), encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "### Carriers recognised from the tracking number").dropFirst().first)
        for carrier in Carrier.all {
            #expect(section.contains(carrier.name), "the merchant guide does not name \(carrier.name)")
            let page = try #require(carrier.trackingURL(for: "1Z999AA10123456784")).absoluteString
            let shown = page.replacingOccurrences(of: "1Z999AA10123456784", with: "…")
            #expect(section.contains(shown), "the merchant guide does not show \(carrier.name)'s page \(shown)")
        }
    }

    @Test(arguments: PublishedNumber.wrongCheckDigit)
    func aLookAlikeWithAWrongCheckDigitIsNotRecognised(_ number: String) {
        #expect(Carrier.recognizing(trackingNumber: number) == nil)
    }

    /// Placeholders and numbers whose format two carriers share: no carrier rather than a guess.
    @Test(
        arguments: [
            // Carriers' placeholders, whose last digit is not their check digit.
            "9400 1000 0000 0000 0000 00", "9205 5000 0000 0000 0000 00", "EA 000 000 000 US", "AB 123 456 789 CA", "1234567890",
            // EasyPost's documented example tracker: its last digit is not the IMpb check digit.
            "9400111206213859482101",
            // FedEx's own worked example (Google Answers 207899) is also a valid DHL Identcode, and paketda.de's DHL
            // Identcode a valid FedEx number: 12 digits that pass both checks are ambiguous.
            "0123 4567 8983", "201298452277",
            // The SSCC of the FedEx Ground label specification's worked example: an SSCC is any shipper's.
            "00000123450000000027",
            // DHL Parcel's 3S code (dhl.com): PostNL issues 3S codes too, and neither publishes a check digit for them.
            "3SBCC000123456",
            // DPD's 14-digit parcel number without its check character.
            "01015026003653",
            // S10 numbers of countries not in the table, and one with a reserved-looking country.
            "RR473124829JP", "RR473124829ZZ",
        ]
    )
    func aPlaceholderOrAnAmbiguousNumberIsNotRecognised(_ number: String) {
        #expect(Carrier.recognizing(trackingNumber: number) == nil)
    }

    @Test func spacesDashesAndLowercaseAreReadAsTheNumber() {
        for spelling in ["1z999aa10123456784", "1Z-999-AA1-01-2345-6784", " 1Z 999 AA1 01 2345 6784 ", "1Z--999 -AA10123456784"] {
            #expect(Carrier.recognizing(trackingNumber: spelling) == .ups, "\(spelling)")
        }
        #expect(Carrier.ups.trackingURL(for: "1z 999-aa1 01 2345 6784")?.absoluteString == "https://www.ups.com/track?tracknum=1Z999AA10123456784")
    }

    @Test(
        arguments: [
            "", " ", "-", "1Z", "1234", "1Z999AA1012345678", "1Z999AA101234567844",
            // Other whitespace and punctuation are not taken out: a tab, a newline, a dot, a slash, NUL.
            "1Z999AA1\t0123456784", "1Z999AA10123456784\n", "1Z999AA1.0123456784", "1Z999AA10123456784/", "1Z999AA10123456784\u{0}",
            // Unicode digits and letters that look like ASCII: Arabic-Indic, fullwidth, mathematical bold, a Turkish dotless ı.
            "\u{661}\u{662}\u{663}\u{664}\u{665}\u{666}\u{667}\u{668}\u{669}\u{661}", "１Ｚ９９９ＡＡ１０１２３４５６７８４",
            "\u{1D7CF}\u{1D7D0}\u{1D7D1}\u{1D7D2}\u{1D7D3}\u{1D7D4}\u{1D7D5}\u{1D7D6}\u{1D7D7}\u{1D7CF}", "TBA123456789012\u{131}",
            // Emoji, a zero-width space, a combining accent, a right-to-left mark.
            "📦1Z999AA10123456784", "1Z999AA10123456784🚚", "1Z999\u{200B}AA10123456784", "1Z999AA10123456784\u{301}",
            "\u{200F}1Z999AA10123456784",
        ]
    )
    func garbageIsNotRecognised(_ text: String) {
        #expect(Carrier.recognizing(trackingNumber: text) == nil)
    }

    /// Input from outside may be of any length: past a hundred bytes nothing more is read, so ten kilobytes cost what a
    /// hundred bytes do. A thousand of them, in a debug build on a loaded machine, take well under a second.
    @Test func tenKilobytesOfAnythingAreRefusedQuickly() {
        let long = [
            String(repeating: "1", count: 10_000), String(repeating: "1Z999AA10123456784", count: 600), String(repeating: " ", count: 10_000),
            String(repeating: "-", count: 10_240), String(repeating: "📦", count: 2_560), "1Z999AA10123456784" + String(repeating: " ", count: 10_000),
        ]
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<1_000 {
                for text in long { #expect(Carrier.recognizing(trackingNumber: text) == nil) }
            }
        }
        #expect(elapsed < .seconds(5))
        #expect(Carrier.ups.trackingURL(for: long[0]) == nil)
    }

    @Test func aShopsCarrierNameMatchesAsTrackingEventsMatchCarriers() {
        #expect(Carrier.dhlExpress.isNamed("dhl"))
        #expect(Carrier.dhlExpress.isNamed("DHL Express"))
        #expect(Carrier.dhlExpress.isNamed("dhl-express"))
        #expect(Carrier.ups.isNamed("United Parcel Service"))
        #expect(Carrier.ups.isNamed("UPS Ground"))
        #expect(Carrier.laPoste.isNamed("Colissimo"))
        #expect(!Carrier.dhlExpress.isNamed("DHL Paket"))
        #expect(!Carrier.fedEx.isNamed("UPS"))
        #expect(!Carrier.ups.isNamed(""))
        #expect(!Carrier.ups.isNamed("  -- "))
    }
}
