import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

@Suite struct OrderValidatorTests {
    private func problems(_ change: (inout [String: JSONValue]) -> Void, files: Set<String>? = nil) -> [OrderProblem] {
        var fields = SampleOrder.json().objectValue!
        change(&fields)
        return OrderValidator.problems(in: .object(fields), files: files)
    }

    private func paths(_ problems: [OrderProblem]) -> [String] { problems.map(\.path) }

    @Test func sampleOrderHasNoProblems() {
        #expect(problems { _ in } == [])
        #expect(problems({ _ in }, files: ["logo.png", "mug.png"]) == [])
    }

    @Test func everyMissingRequiredFieldIsReportedAtOnce() {
        let found = OrderValidator.problems(in: .object([:]))
        #expect(Set(paths(found)) == [
            "schemaVersion", "orderTypeIdentifier", "orderIdentifier", "orderType", "orderManagementURL",
            "createdAt", "updatedAt", "status", "merchant",
        ])
        #expect(found.allSatisfy { $0.message == "is required" })
    }

    @Test func anOrderThatIsNotAnObjectIsOneProblem() {
        let found = OrderValidator.problems(in: .array([]))
        #expect(found == [OrderProblem(path: "", message: "order.json must be a JSON object, not an array")])
    }

    @Test func enumValuesNameTheAllowedOnes() {
        let found = problems { order in
            order["fulfillments"] = .array([.object([
                "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("p1"),
                "status": .string("lost"),
            ])])
            order["status"] = .string("shipped")
        }
        #expect(found.contains(OrderProblem(
            path: "fulfillments[0].status",
            message: "\"lost\" is not one of open, processing, onTheWay, outForDelivery, delivered, shipped, issue, cancelled")))
        #expect(found.contains(OrderProblem(path: "status", message: "\"shipped\" is not one of open, completed, cancelled")))
        #expect(found.count == 2)
    }

    @Test func pickupFulfillmentsHaveTheirOwnStatusesAndNeedADisplayName() {
        let found = problems { order in
            order["fulfillments"] = .array([.object([
                "fulfillmentType": .string("pickup"), "fulfillmentIdentifier": .string("p1"),
                "status": .string("onTheWay"), "pickupAt": .string("tomorrow"),
            ])])
        }
        #expect(Set(paths(found)) == ["fulfillments[0].status", "fulfillments[0].displayName", "fulfillments[0].pickupAt"])
    }

    @Test func datesURLsTokensAndCurrenciesAreChecked() {
        let found = problems { order in
            order["createdAt"] = .string("2026-13-01T00:00:00Z")
            order["orderManagementURL"] = .string("http://shop.example.com/orders")
            order["webServiceURL"] = .string("https://shop.example.com/wallet")
            order["authenticationToken"] = .string("too-short")
            order["payment"] = .object([
                "total": .object(["amount": .string("24.90"), "currency": .string("EURO")]), "status": .string("paid"),
            ])
        }
        #expect(Set(paths(found)) == [
            "createdAt", "orderManagementURL", "authenticationToken", "payment.total.amount", "payment.total.currency",
        ])
        #expect(found.first { $0.path == "payment.total.amount" }?.message
            == "must be a JSON number such as 12.5, not the string \"24.90\"")
        #expect(found.first { $0.path == "authenticationToken" }?.message == "must be at least 16 characters long")
    }

    @Test func aWebServiceNeedsAToken() {
        let found = problems { $0["webServiceURL"] = .string("https://shop.example.com/wallet") }
        #expect(found == [OrderProblem(path: "authenticationToken", message: "is required when webServiceURL is given")])
    }

    @Test func schemaVersionOneNeedsPaymentStatusAndTwoDoesNot() {
        let withoutStatus: (inout [String: JSONValue]) -> Void = { order in
            order["payment"] = .object(["total": .object(["amount": .int(10), "currency": .string("USD")])])
        }
        #expect(problems(withoutStatus) == [OrderProblem(path: "payment.status", message: "is required")])
        #expect(problems { order in
            withoutStatus(&order)
            order["schemaVersion"] = .int(2)
        } == [])
        #expect(paths(problems { $0["schemaVersion"] = .int(3) }) == ["schemaVersion"])
    }

    @Test func aRefundDecidesThePaymentStatus() {
        func order(refundStatus: String, paymentStatus: String) -> [OrderProblem] {
            problems { order in
                order["payment"] = .object([
                    "total": .object(["amount": .double(24.9), "currency": .string("EUR")]),
                    "status": .string(paymentStatus),
                    "transactions": .array([.object([
                        "transactionType": .string("refund"), "status": .string(refundStatus),
                        "amount": .object(["amount": .double(24.9), "currency": .string("EUR")]),
                        "createdAt": .string("2026-11-21T10:00:00Z"),
                        "paymentMethod": .object(["displayName": .string("Visa 1234")]),
                    ])]),
                ])
            }
        }
        #expect(order(refundStatus: "completed", paymentStatus: "refunded") == [])
        #expect(order(refundStatus: "failed", paymentStatus: "paid") == [])
        #expect(order(refundStatus: "pending", paymentStatus: "paid") == [OrderProblem(
            path: "payment.status",
            message: "must be refunded while the refund at payment.transactions[0] is pending, not paid")])
        #expect(paths(order(refundStatus: "cancelled", paymentStatus: "refunded")) == ["payment.status"])
    }

    @Test func referencedImagesMustBeInThePackageAtTopLevelOrLocalized() {
        #expect(problems({ _ in }, files: ["fr.lproj/logo.png", "mug.png"]) == [])
        let found = problems({ _ in }, files: ["mug.png"])
        #expect(found == [OrderProblem(path: "merchant.logo", message: "names logo.png, which is not in the package")])
        let wrongType = problems { order in
            order["lineItems"] = .array([.object(["title": .string("Mug"), "quantity": .int(0), "image": .string("mug.gif")])])
        }
        #expect(Set(paths(wrongType)) == ["lineItems[0].quantity", "lineItems[0].image"])
    }

    @Test func wrongTypesAreNamed() {
        let found = problems { order in
            order["merchant"] = .string("Example Shop")
            order["lineItems"] = .object([:])
            order["schemaVersion"] = .string("1")
        }
        #expect(found.contains(OrderProblem(path: "merchant", message: "must be an object, not a string")))
        #expect(found.contains(OrderProblem(path: "lineItems", message: "must be an array, not an object")))
        #expect(found.contains(OrderProblem(path: "schemaVersion", message: "must be a whole number, not a string")))
    }

    @Test func identifiersAreLimitedForURLs() {
        let found = problems { order in
            order["orderIdentifier"] = .string("a/b c")
            order["orderTypeIdentifier"] = .string(String(repeating: "x", count: 200))
        }
        #expect(found == [
            OrderProblem(path: "orderTypeIdentifier", message: "is longer than 128 characters"),
            OrderProblem(path: "orderIdentifier", message: "may only hold letters, digits and . - _ : ~"),
        ] || found == [
            OrderProblem(path: "orderIdentifier", message: "may only hold letters, digits and . - _ : ~"),
            OrderProblem(path: "orderTypeIdentifier", message: "is longer than 128 characters"),
        ])
    }

    @Test func updatedAtMayNotPrecedeCreatedAt() {
        let found = problems { $0["updatedAt"] = .string("2026-11-19T00:00:00Z") }
        #expect(found == [OrderProblem(path: "updatedAt", message: "must not be earlier than createdAt")])
    }
}
