import Testing

@testable import WalletOrdersHTTP

/// Which paths the tracing middleware leaves untraced: every one that reads as a download link's.
@Suite(.timeLimit(.minutes(5))) struct SecretPathTests {
    @Test func everyPathThatReadsAsALinksIsSecretAndNoOtherIs() {
        for path in [
            "/links/REF", "/links/REF/x", "/Links/REF", "/LINKS/REF", "/./links/REF", "//links/REF", "/x/../links/REF",
            "/%6Cinks/REF", "/%256Cinks/REF", "/links", "/links/", "/./Links/./REF", "\\links\\REF",
        ] {
            #expect(SecretPathTracingMiddleware<ServiceRequestContext>.isSecret(path: path), "\(path)")
        }
        for path in ["/api/v1/orders", "/v1/orders/type/links", "/linksx/REF", "/admin", "/", ""] {
            #expect(!SecretPathTracingMiddleware<ServiceRequestContext>.isSecret(path: path), "\(path)")
        }
    }
}
