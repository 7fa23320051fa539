import Testing
import WalletOrdersModel

@Suite(.timeLimit(.minutes(5))) struct ISO8601DurationTests {
    @Test func acceptsISO8601DurationsWithTheirComponentsInOrder() {
        for text in [
            "PT30M", "P1D", "PT2H", "P1DT12H", "PT1H30M", "PT0.5S", "PT1,5S", "P2W", "P1Y2M3DT4H5M6S", "P0D",
            "P1M", "PT1M", "P10Y",
        ] {
            #expect(ISO8601Duration.isValid(text), "\(text)")
        }
    }

    @Test func refusesWhatIsNotADuration() {
        for text in [
            "", "P", "PT", "P1DT", "T1H", "30 minutes", "pt30m", "P1.5D", "PT1H30", "P1W2D", "P1D1Y", "PT1S1M",
            "-PT1H", "P 1D", "PT1H ", "PT1H\n", "PT1.S", "P1", "１D",
        ] {
            #expect(!ISO8601Duration.isValid(text), "\(text)")
        }
    }
}
