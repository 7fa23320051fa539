import HTTPTypes
import Testing

@testable import WalletOrdersHTTP

/// The parts of every request's one pass that need no server: how a method is labelled in the metrics, and which
/// request lines may hold a NUL.
@Suite(.timeLimit(.minutes(5))) struct ServiceMiddlewareTests {
    @Test func standardMethodsAreLabelledByNameAndAnyOtherAsOther() {
        for method in ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] {
            #expect(ServiceMiddleware.methodLabel(HTTPRequest.Method(method)!) == method)
        }
        // A client may send any token as a method; each would otherwise be a series kept for good.
        for method in ["PROPFIND", "BREW", "get-1", "X\(Int.max)"] {
            #expect(ServiceMiddleware.methodLabel(HTTPRequest.Method(method)!) == "other", "\(method)")
        }
    }

    @Test func onlyAPercentZeroZeroMayHoldANUL() {
        for text in ["/v1/orders/a%00b", "%00", "x=%2%00", "%%00"] {
            #expect(ServiceMiddleware.mayHoldNUL(text), "\(text)")
        }
        for text in ["", "/v1/orders/A-1001", "%0", "%0A0", "%20%30", "0%0", "%%0"] {
            #expect(!ServiceMiddleware.mayHoldNUL(text), "\(text)")
        }
    }
}
