import Testing

@testable import WalletOrdersHTTP

/// The file name a package download is offered under: the order's identifier with what a `Content-Disposition`
/// file name cannot hold made `-`, the same whether it is read byte by byte (ASCII) or character by character.
@Suite(.timeLimit(.minutes(5))) struct PackageFileNameTests {
    @Test func whatAFileNameCannotHoldBecomesADash() {
        #expect(PackageFileName.of("A-1001") == "A-1001")
        #expect(PackageFileName.of("acme:1001") == "acme-1001")
        #expect(PackageFileName.of("a/b\\c\"d;e\u{0}f\ng\rh\u{0B}i\u{0C}j") == "a-b-c-d-e-f-g-h-i-j")
        // Not ASCII: character by character, with the same rule, and Unicode's line breaks too.
        #expect(PackageFileName.of("café:1\u{2028}2\u{85}3") == "café-1-2-3")
        #expect(PackageFileName.of("\r\n") == "-", "one character, one dash")
    }
}
