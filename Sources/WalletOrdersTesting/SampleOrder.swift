import Foundation
import WalletOrdersModel

/// Orders for tests and demos that pass validation against the sample template.
public enum SampleOrder {
    /// A shipped order with a payment, a line item and a shipping fulfillment, using the sample template's images.
    public static func json(
        orderTypeIdentifier: String = "order.com.example.dev",
        orderIdentifier: String = "A-1001",
        updatedAt: String = "2026-11-21T09:30:00Z"
    ) -> JSONValue {
        .object([
            "schemaVersion": .int(1),
            "orderTypeIdentifier": .string(orderTypeIdentifier),
            "orderIdentifier": .string(orderIdentifier),
            "orderType": .string("ecommerce"),
            "orderNumber": .string("1001"),
            "orderManagementURL": .string("https://shop.example.com/account/orders/1001"),
            "createdAt": .string("2026-11-20T10:00:00Z"),
            "updatedAt": .string(updatedAt),
            "status": .string("open"),
            "statusDescription": .string("STATUS_SHIPPED"),
            "merchant": .object([
                "merchantIdentifier": .string("merchant.com.example.shop"),
                "displayName": .string("MERCHANT_NAME"),
                "url": .string("https://shop.example.com"),
                "logo": .string("logo.png"),
            ]),
            "payment": .object([
                "total": .object(["amount": .double(24.9), "currency": .string("EUR")]),
                "status": .string("paid"),
            ]),
            "lineItems": .array([
                .object([
                    "title": .string("ITEM_MUG"),
                    "quantity": .int(2),
                    "image": .string("mug.png"),
                    "price": .object(["amount": .double(12.45), "currency": .string("EUR")]),
                ])
            ]),
            "fulfillments": .array([
                .object([
                    "fulfillmentType": .string("shipping"),
                    "fulfillmentIdentifier": .string("parcel-1"),
                    "status": .string("onTheWay"),
                    "carrier": .string("Example Post"),
                    "trackingNumber": .string("EP123456789"),
                    "trackingURL": .string("https://post.example.com/track/EP123456789"),
                ])
            ]),
        ])
    }

    /// The same order as a document.
    public static func document(
        orderTypeIdentifier: String = "order.com.example.dev",
        orderIdentifier: String = "A-1001",
        updatedAt: String = "2026-11-21T09:30:00Z"
    ) -> OrderDocument {
        OrderDocument(
            fields: json(
                orderTypeIdentifier: orderTypeIdentifier,
                orderIdentifier: orderIdentifier,
                updatedAt: updatedAt
            ).objectValue!
        )
    }

    /// The repository this source file is in.
    public static var repository: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The repository's order fixtures (`Tests/Fixtures/orders`): `valid/` and `invalid/` order.json files.
    public static var fixturesFolder: URL { repository.appendingPathComponent("Tests/Fixtures/orders") }

    /// The repository's sample template folder (`OrderTemplates/sample`), found from this source file.
    public static var templateFolder: URL { repository.appendingPathComponent("OrderTemplates/sample") }
}
