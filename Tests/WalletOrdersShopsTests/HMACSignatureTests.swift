import Foundation
import Testing
import WalletOrdersShops

/// Shopify's and WooCommerce's signatures: the base64 HMAC-SHA256 of the raw body, made here by `openssl`, checked by
/// the code under test; every one-byte change to the body, the header or the secret refused.
@Suite(.timeLimit(.minutes(5))) struct HMACSignatureTests {
    let secret = "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"

    @Test func shopifysSignatureOfTheRawBodyVerifies() async throws {
        let body = try ShopFixture.bytes("shopify/orders-create.json")
        let header = try await ShopFixture.hmac(body, secret: secret)
        #expect(ShopifyWebhook.verify(body: body, hmacHeader: header, secret: secret))
        #expect(ShopifyWebhook.signature(of: body, secret: secret) == header)
        // Headers arrive with the spaces a proxy may leave around them.
        #expect(ShopifyWebhook.verify(body: body, hmacHeader: " \(header) ", secret: secret))
    }

    @Test func wooCommercesSignatureOfTheRawBodyVerifies() async throws {
        let body = try ShopFixture.bytes("woocommerce/order-updated.json")
        let header = try await ShopFixture.hmac(body, secret: "wc-secret-7d1e")
        #expect(WooCommerceWebhook.verify(body: body, signatureHeader: header, secret: "wc-secret-7d1e"))
        #expect(WooCommerceWebhook.signature(of: body, secret: "wc-secret-7d1e") == header)
    }

    @Test func everyOneByteChangeToTheBodyIsRefused() async throws {
        let body = Array(try ShopFixture.bytes("shopify/fulfillments-create.json").prefix(300))
        let header = try await ShopFixture.hmac(body, secret: secret)
        for index in body.indices {
            var changed = body
            changed[index] ^= 0x01
            #expect(!ShopifyWebhook.verify(body: changed, hmacHeader: header, secret: secret), "byte \(index)")
            #expect(!WooCommerceWebhook.verify(body: changed, signatureHeader: header, secret: secret), "byte \(index)")
        }
        #expect(!ShopifyWebhook.verify(body: body + [0x0A], hmacHeader: header, secret: secret))
        #expect(!ShopifyWebhook.verify(body: Array(body.dropLast()), hmacHeader: header, secret: secret))
    }

    @Test func everyOneByteChangeToTheHeaderIsRefused() async throws {
        let body = try ShopFixture.bytes("shopify/fulfillments-create.json")
        let header = try await ShopFixture.hmac(body, secret: secret)
        for changed in ShopFixture.oneByteChanges(header) {
            #expect(!ShopifyWebhook.verify(body: body, hmacHeader: changed, secret: secret), "\(changed)")
            #expect(!WooCommerceWebhook.verify(body: body, signatureHeader: changed, secret: secret), "\(changed)")
        }
        #expect(!ShopifyWebhook.verify(body: body, hmacHeader: String(header.dropLast()), secret: secret))
        #expect(!ShopifyWebhook.verify(body: body, hmacHeader: header + "=", secret: secret))
    }

    @Test func everyOneByteChangeToTheSecretIsRefused() async throws {
        let body = try ShopFixture.bytes("shopify/fulfillments-create.json")
        let header = try await ShopFixture.hmac(body, secret: secret)
        for changed in ShopFixture.oneByteChanges(secret) {
            #expect(!ShopifyWebhook.verify(body: body, hmacHeader: header, secret: changed), "\(changed)")
            #expect(!WooCommerceWebhook.verify(body: body, signatureHeader: header, secret: changed), "\(changed)")
        }
    }

    @Test func aMissingHeaderAnOverlongOneAndAnEmptySecretAreRefusedAlike() async throws {
        let body = try ShopFixture.bytes("shopify/fulfillments-create.json")
        let header = try await ShopFixture.hmac(body, secret: secret)
        #expect(!ShopifyWebhook.verify(body: body, hmacHeader: nil, secret: secret))
        #expect(!ShopifyWebhook.verify(body: body, hmacHeader: "", secret: secret))
        #expect(!ShopifyWebhook.verify(body: body, hmacHeader: header + String(repeating: " ", count: 200), secret: secret))
        #expect(!WooCommerceWebhook.verify(body: body, signatureHeader: nil, secret: secret))
        // Anybody can sign with an empty key (openssl refuses to make such a MAC; the code's own is the one to refuse).
        let unkeyed = ShopifyWebhook.signature(of: body, secret: "")
        #expect(!ShopifyWebhook.verify(body: body, hmacHeader: unkeyed, secret: ""))
        #expect(!WooCommerceWebhook.verify(body: body, signatureHeader: unkeyed, secret: ""))
    }
}
