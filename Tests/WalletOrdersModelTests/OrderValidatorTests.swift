import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct OrderValidatorTests {
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
        #expect(
            Set(paths(found)) == [
                "schemaVersion", "orderTypeIdentifier", "orderIdentifier", "orderType", "orderManagementURL",
                "createdAt", "updatedAt", "status", "merchant",
            ]
        )
        #expect(found.allSatisfy { $0.message == "is required" })
    }

    @Test func anOrderThatIsNotAnObjectIsOneProblem() {
        let found = OrderValidator.problems(in: .array([]))
        #expect(found == [OrderProblem(path: "", message: "order.json must be a JSON object, not an array")])
    }

    @Test func enumValuesNameTheAllowedOnes() {
        let found = problems { order in
            order["fulfillments"] = .array([
                .object([
                    "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("p1"),
                    "status": .string("lost"),
                ])
            ])
            order["status"] = .string("shipped")
        }
        #expect(
            found.contains(
                OrderProblem(
                    path: "fulfillments[0].status",
                    message: "\"lost\" is not one of open, processing, onTheWay, outForDelivery, delivered, shipped, issue, cancelled"
                )
            )
        )
        #expect(found.contains(OrderProblem(path: "status", message: "\"shipped\" is not one of open, completed, cancelled")))
        #expect(found.count == 2)
    }

    @Test func pickupFulfillmentsHaveTheirOwnStatusesAndNeedADisplayName() {
        let found = problems { order in
            order["fulfillments"] = .array([
                .object([
                    "fulfillmentType": .string("pickup"), "fulfillmentIdentifier": .string("p1"),
                    "status": .string("onTheWay"), "pickupAt": .string("tomorrow"),
                ])
            ])
        }
        #expect(Set(paths(found)) == ["fulfillments[0].status", "fulfillments[0].displayName", "fulfillments[0].pickupAt"])
    }

    @Test func datesURLsTokensAndCurrenciesAreChecked() {
        let found = problems { order in
            order["createdAt"] = .string("2026-13-01T00:00:00Z")
            order["updatedAt"] = .string("2026-11-21 09:30:00Z")
            order["orderManagementURL"] = .string("ftp://shop.example.com/orders")
            order["webServiceURL"] = .string("https://shop.example.com/wallet")
            order["authenticationToken"] = .string("too-short")
            order["payment"] = .object([
                "total": .object(["amount": .string("24,90"), "currency": .string("EURO")]), "status": .string("paid"),
            ])
        }
        #expect(
            Set(paths(found)) == [
                "createdAt", "updatedAt", "orderManagementURL", "authenticationToken", "payment.total.amount",
                "payment.total.currency",
            ]
        )
        #expect(
            found.first { $0.path == "payment.total.amount" }?.message
                == "\"24,90\" is not a decimal number such as \"23.40\""
        )
        #expect(
            found.first { $0.path == "orderManagementURL" }?.message
                == "\"ftp://shop.example.com/orders\" is not an http or https URL such as https://shop.example.com/orders/1001"
        )
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
        #expect(
            problems { order in
                withoutStatus(&order)
                order["schemaVersion"] = .int(2)
            } == []
        )
        #expect(paths(problems { $0["schemaVersion"] = .int(3) }) == ["schemaVersion"])
    }

    // Apple's pages tie payment.status to no refund: one item of three refunded leaves the payment paid.
    @Test func aPartialRefundIsAcceptedWhileThePaymentIsStillPaid() throws {
        func payment(status: String, refund: (status: String, amount: String)?) -> OrderValidation {
            var transactions: [JSONValue] = [
                .object([
                    "transactionType": .string("purchase"), "status": .string("completed"),
                    "amount": .object(["amount": .string("24.90"), "currency": .string("EUR")]),
                    "createdAt": .string("2026-11-20T10:00:00Z"),
                    "paymentMethod": .object(["displayName": .string("Visa 1234")]),
                ])
            ]
            if let refund {
                transactions.append(
                    .object([
                        "transactionType": .string("refund"), "status": .string(refund.status),
                        "amount": .object(["amount": .string(refund.amount), "currency": .string("EUR")]),
                        "createdAt": .string("2026-11-21T10:00:00Z"),
                        "paymentMethod": .object(["displayName": .string("Visa 1234")]),
                    ])
                )
            }
            var fields = SampleOrder.json().objectValue!
            fields["payment"] = .object([
                "total": .object(["amount": .string("24.90"), "currency": .string("EUR")]),
                "status": .string(status), "transactions": .array(transactions),
            ])
            return OrderValidator.validate(.object(fields))
        }
        let partial = payment(status: "paid", refund: ("completed", "8.30"))
        #expect(partial.problems == [])
        #expect(partial.warnings.map(\.path) == ["payment.transactions"], "the iOS 17 warning alone")
        // Nothing else contradicts by Apple's pages either: a refund made outside Apple Pay lists none, and a
        // pending or failed refund says nothing of the payment.
        for (status, refund) in [
            ("refunded", nil), ("refunded", ("failed", "24.90")), ("paid", ("pending", "24.90")),
            ("paid", ("completed", "24.90")), ("authorized", ("cancelled", "1.00")),
        ] as [(String, (status: String, amount: String)?)] {
            #expect(payment(status: status, refund: refund).problems == [], "\(status) \(String(describing: refund))")
        }
        let fixture = try Corpus.fixture("valid/partial-refund-while-paid.json")
        #expect(OrderValidator.validate(fixture).problems == [])
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

    @Test func aMemberSetToNullCountsAsLeftOut() {
        #expect(
            problems { order in
                order["orderNumber"] = .null
                order["payment"] = .null
                order["webServiceURL"] = .null
                order["authenticationToken"] = .null
            } == []
        )
        #expect(problems { $0["merchant"] = .null } == [OrderProblem(path: "merchant", message: "is required")])
        #expect(
            problems { order in
                order["webServiceURL"] = .string("https://shop.example.com/wallet")
                order["authenticationToken"] = .null
            } == [OrderProblem(path: "authenticationToken", message: "is required when webServiceURL is given")]
        )
    }

    // Issue 11, point 1: Apple's "Creating the source for an order" names images by base name.
    @Test func imagesByBaseNameResolveToAnyScaleAtTopLevelOrLocalized() {
        let logo: (inout [String: JSONValue]) -> Void = { order in
            order["merchant"] = order["merchant"]!.merging(patch: .object(["logo": .string("logo")]))
        }
        for files: Set<String> in [["logo.png"], ["logo@2x.png"], ["logo@3x.png"], ["logo.JPG"], ["fr.lproj/logo@3x.jpeg"]] {
            #expect(problems(logo, files: files.union(["mug.png"])) == [], "\(files)")
        }
        #expect(
            problems(logo, files: ["logo.gif", "logos.png", "mug.png", "x.lproj/y/logo.png"]) == [
                OrderProblem(
                    path: "merchant.logo",
                    message: "names the image logo, but the package holds none of logo.png, logo@2x.png, logo@3x.png "
                        + "(or .jpg, .jpeg), at the top level or in a .lproj folder"
                )
            ]
        )
        // Full file names keep working, and name exactly one file.
        #expect(problems({ _ in }, files: ["logo.png", "mug.png"]) == [])
        #expect(paths(problems({ _ in }, files: ["logo@2x.png", "mug.png"])) == ["merchant.logo"])
        // A name is not a path, and a dotted name must end like an image.
        for name in ["images/logo.png", ".logo", "logo.gif", "brand.logo"] {
            #expect(
                paths(
                    problems { order in
                        order["merchant"] = order["merchant"]!.merging(patch: .object(["logo": .string(name)]))
                    }
                ) == ["merchant.logo"],
                "\(name)"
            )
        }
    }

    @Test func manyReferencesAgainstManyFilesAreLookedUpNotSearched() {
        // A package below Wallet's 5 MB took verify minutes when each of 100,000 references searched 900 files.
        var files: Set<String> = ["logo.png"]
        for index in 0..<900 { files.insert("f\(index).png") }
        let found = problems(
            { order in
                order["lineItems"] = .array(
                    (0..<100_000).map { index in
                        let image = index.isMultiple(of: 2) ? "f\(index % 900)" : "g\(index)"
                        return .object(["title": .string("T"), "quantity": .int(1), "image": .string(image)])
                    }
                )
            },
            files: files
        )
        #expect(found.count == 50_000)
        #expect(
            found.first
                == OrderProblem(
                    path: "lineItems[1].image",
                    message: "names the image g1, but the package holds none of g1.png, "
                        + "g1@2x.png, g1@3x.png (or .jpg, .jpeg), at the top level or in a .lproj folder"
                )
        )
    }

    // Issue 11, point 2: CurrencyAmount.amount is a string in Apple's reference; numbers are in use too.
    @Test func amountsAreDecimalStringsOrNumbersAndNothingElse() {
        func amount(_ value: JSONValue) -> [OrderProblem] {
            problems { order in
                order["payment"] = .object([
                    "total": .object(["amount": value, "currency": .string("EUR")]), "status": .string("paid"),
                ])
            }
        }
        for accepted: JSONValue in [
            .string("23.40"), .string("-5"), .string("0"), .double(23.4), .int(23),
            .string("-" + String(repeating: "9", count: 28) + ".99"),
        ] {
            #expect(amount(accepted) == [], "\(accepted)")
        }
        // At most 32 characters, and the message does not repeat what it refuses.
        #expect(
            amount(.string(String(repeating: "9", count: 30) + ".99")) == [
                OrderProblem(path: "payment.total.amount", message: "is 33 characters long; a decimal string has at most 32")
            ]
        )
        #expect(
            amount(.string(String(repeating: "1", count: 1_000_000))) == [
                OrderProblem(path: "payment.total.amount", message: "is 1000000 characters long; a decimal string has at most 32")
            ]
        )
        for refused: JSONValue in [
            .string("23,40"), .string("1e3"), .string(".5"), .string("5."), .string(""),
            .string(" 23.40"), .string("23.40\n"),
        ] {
            #expect(paths(amount(refused)) == ["payment.total.amount"], "\(refused)")
        }
        #expect(
            amount(.bool(true)) == [
                OrderProblem(
                    path: "payment.total.amount",
                    message: "must be a decimal string such as \"23.40\" or a number, not a boolean"
                )
            ]
        )
    }

    // Issue 11, point 3: only webServiceURL must be https.
    @Test func onlyTheWebServiceNeedsHTTPSAndAppsTakeTheirOwnScheme() {
        let validation = OrderValidator.validate(
            .object(
                SampleOrder.json().objectValue!.merging([
                    "orderManagementURL": .string("http://shop.example.com/orders/1001"),
                    "merchant": .object([
                        "merchantIdentifier": .string("merchant.com.example.shop"), "displayName": .string("Shop"),
                        "url": .string("http://shop.example.com"), "contactURL": .string("HTTP://shop.example.com/help"),
                    ]),
                    "returnInfo": .object(["returnPolicyURL": .string("http://shop.example.com/returns")]),
                    "associatedApplications": .array([
                        .object([
                            "storeIdentifier": .int(1_234_567_890), "launchURL": .string("myapp://orders/88"),
                        ])
                    ]),
                ]) { $1 }
            )
        )
        #expect(validation.problems == [])
        #expect(
            Set(validation.warnings.filter { $0.message.contains("plain http") }.map(\.path)) == [
                "orderManagementURL", "merchant.url", "merchant.contactURL", "returnInfo.returnPolicyURL",
            ]
        )
        let refused = problems { order in
            order["webServiceURL"] = .string("http://shop.example.com/wallet")
            order["authenticationToken"] = .string("0123456789abcdef")
            order["associatedApplications"] = .array([
                .object([
                    "storeIdentifier": .int(1), "launchURL": .string("orders/88"),
                ])
            ])
            order["fulfillments"] = .array([
                .object([
                    "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("p"),
                    "status": .string("open"), "trackingURL": .string("https://post.example.com/track me"),
                ])
            ])
        }
        #expect(
            refused.contains(
                OrderProblem(
                    path: "webServiceURL",
                    message: "must be an https URL: Wallet only talks to web services over https"
                )
            )
        )
        #expect(
            Set(paths(refused)) == [
                "webServiceURL", "associatedApplications[0].launchURL", "fulfillments[0].trackingURL",
            ]
        )
    }

    // Issue 11, point 4: Apple's LineItem page types quantity as a number; its "Creating the source for an order"
    // writes "quantity": "2". Both are accepted, with the same bounds.
    @Test func quantitiesArePositiveNumbersOrDecimalStringsFractionsIncluded() {
        func quantity(_ value: JSONValue) -> [OrderProblem] {
            problems { order in
                order["lineItems"] = .array([.object(["title": .string("Coffee"), "quantity": value])])
            }
        }
        for accepted: JSONValue in [
            .double(1.5), .double(0.25), .int(3), .string("2"), .string("0.5"), .string("007"),
            .string(String(repeating: "9", count: 32)),
        ] {
            #expect(quantity(accepted) == [], "\(accepted)")
        }
        for zeroOrLess: JSONValue in [.int(0), .double(-1.5), .string("0"), .string("0.00"), .string("-1")] {
            #expect(
                quantity(zeroOrLess) == [OrderProblem(path: "lineItems[0].quantity", message: "must be greater than 0")],
                "\(zeroOrLess)"
            )
        }
        #expect(
            quantity(.string("two")) == [
                OrderProblem(path: "lineItems[0].quantity", message: "\"two\" is not a decimal number such as \"2\"")
            ]
        )
        for refused: JSONValue in [.string("1e3"), .string(" 2"), .string("+2"), .string(""), .string("2.")] {
            #expect(paths(quantity(refused)) == ["lineItems[0].quantity"], "\(refused)")
        }
        #expect(
            quantity(.string(String(repeating: "1", count: 33))) == [
                OrderProblem(path: "lineItems[0].quantity", message: "is 33 characters long; a decimal string has at most 32")
            ]
        )
        #expect(
            quantity(.bool(true)) == [
                OrderProblem(
                    path: "lineItems[0].quantity",
                    message: "must be a number or a decimal string such as \"2\", not a boolean"
                )
            ]
        )
    }

    // Issue 11, point 5: fields that used to pass through unchecked.
    @Test func fieldsThatPassedUncheckedAreTypeCheckedWithPaths() {
        let found = problems { order in
            order["associatedApplicationIdentifiers"] = .array([.string("ABCDE12345.com.example"), .int(1)])
            order["associatedApplications"] = .array([
                .object([
                    "storeIdentifier": .int(1), "customProductPageIdentifier": .int(5),
                ])
            ])
            order["payment"] = .object([
                "total": .object(["amount": .string("1.00"), "currency": .string("EUR")]), "status": .string("paid"),
                "paymentMethods": .string("Visa 1234"), "applePayTransactionIdentifiers": .array([.int(7)]),
            ])
            order["fulfillments"] = .array([
                .object([
                    "fulfillmentType": .string("pickup"), "fulfillmentIdentifier": .string("p"),
                    "status": .string("open"), "displayName": .string("Store"),
                    "location": .object(["latitude": .int(1), "longitude": .int(2), "altitude": .string("high")]),
                    "address": .object(["addressLines": .string("1 Main Street")]),
                ]),
                .object([
                    "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("s"),
                    "status": .string("open"), "recipient": .object(["givenName": .int(5), "familyName": .array([])]),
                ]),
            ])
        }
        #expect(
            found == [
                OrderProblem(path: "payment.paymentMethods", message: "must be an array, not a string"),
                OrderProblem(path: "payment.applePayTransactionIdentifiers[0]", message: "must be a string, not a number"),
                OrderProblem(path: "fulfillments[0].address.addressLines", message: "must be an array, not a string"),
                OrderProblem(path: "fulfillments[0].location.altitude", message: "must be a number, not a string"),
                OrderProblem(path: "fulfillments[1].recipient.givenName", message: "must be a string, not a number"),
                OrderProblem(path: "fulfillments[1].recipient.familyName", message: "must be a string, not an array"),
                OrderProblem(
                    path: "associatedApplications[0].customProductPageIdentifier",
                    message: "must be a string, not a number"
                ),
                OrderProblem(path: "associatedApplicationIdentifiers[1]", message: "must be a string, not a number"),
            ]
        )
    }

    // Apple's pages give optional strings no minimum length: a shop without a locality sends "".
    @Test func emptyOptionalStringsAreAcceptedWithAWarningWhileRequiredOnesMustSaySomething() throws {
        let validation = OrderValidator.validate(
            .object(
                SampleOrder.json().objectValue!.merging([
                    "merchant": .object([
                        "merchantIdentifier": .string("merchant.com.example.shop"), "displayName": .string("Shop"),
                        "url": .string("https://shop.example.com"),
                        "address": .object([
                            "locality": .string(""), "postalCode": .string(""), "addressLines": .array([.string(" ")]),
                        ]),
                    ]),
                    "lineItems": .array([.object(["title": .string("Mug"), "quantity": .int(1), "subtitle": .string("")])]),
                ]) { $1 }
            )
        )
        #expect(validation.problems == [])
        #expect(
            validation.warnings == [
                OrderProblem(path: "merchant.address.addressLines[0]", message: "holds only white space; Wallet has nothing to show: leave it out"),
                OrderProblem(path: "merchant.address.locality", message: "is empty; Wallet has nothing to show: leave it out"),
                OrderProblem(path: "merchant.address.postalCode", message: "is empty; Wallet has nothing to show: leave it out"),
                OrderProblem(path: "lineItems[0].subtitle", message: "is empty; Wallet has nothing to show: leave it out"),
            ]
        )
        let required = problems { order in
            order["lineItems"] = .array([.object(["title": .string(""), "quantity": .int(1)])])
            order["merchant"] = order["merchant"]!.merging(patch: .object(["displayName": .string(" ")]))
        }
        #expect(
            required == [
                OrderProblem(path: "merchant.displayName", message: "must not be empty"),
                OrderProblem(path: "lineItems[0].title", message: "must not be empty"),
            ]
        )
        // A string that must hold a date, a URL or a country stays refused when empty.
        #expect(paths(problems { $0["orderManagementURL"] = .string("") }) == ["orderManagementURL"])
        let fixture = try Corpus.fixture("valid/empty-optional-strings.json")
        #expect(OrderValidator.validate(fixture).problems == [])
        #expect(OrderValidator.validate(fixture).warnings.filter { $0.message.hasSuffix("leave it out") }.count == 19)
    }

    // Issue 11, point 6: durations are ISO 8601.
    @Test func windowDurationsAreISO8601() {
        func windows(_ delivery: String, _ pickup: String) -> [OrderProblem] {
            problems { order in
                order["fulfillments"] = .array([
                    .object([
                        "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("s"),
                        "status": .string("open"), "estimatedDeliveryWindowDuration": .string(delivery),
                    ]),
                    .object([
                        "fulfillmentType": .string("pickup"), "fulfillmentIdentifier": .string("p"),
                        "status": .string("open"), "displayName": .string("Store"),
                        "pickupWindowDuration": .string(pickup),
                    ]),
                ])
            }
        }
        #expect(windows("PT30M", "P1D") == [])
        #expect(windows("PT2H30M", "P1DT12H") == [])
        #expect(
            windows("30 minutes", "1D") == [
                OrderProblem(
                    path: "fulfillments[0].estimatedDeliveryWindowDuration",
                    message: "\"30 minutes\" is not an ISO 8601 duration such as PT30M, PT2H or P1D"
                ),
                OrderProblem(
                    path: "fulfillments[1].pickupWindowDuration",
                    message: "\"1D\" is not an ISO 8601 duration such as PT30M, PT2H or P1D"
                ),
            ]
        )
    }

    // Issue 11, point 8: objects newer than iOS 16 are accepted with a warning.
    @Test func objectsNewerThanIOS16AreAcceptedWithAWarning() {
        let validation = OrderValidator.validate(
            .object(
                SampleOrder.json().objectValue!.merging([
                    "payment": .object([
                        "total": .object(["amount": .string("24.90"), "currency": .string("EUR")]), "status": .string("paid"),
                        "transactions": .array([
                            .object([
                                "transactionType": .string("purchase"), "status": .string("completed"),
                                "amount": .object(["amount": .string("24.90"), "currency": .string("EUR")]),
                                "createdAt": .string("2026-11-20T10:00:00Z"),
                                "paymentMethod": .object(["displayName": .string("Visa 1234")]),
                            ])
                        ]),
                    ]),
                    "returnInfo": .object(["returnPolicyURL": .string("https://shop.example.com/returns")]),
                    "returns": .array([.object(["returnIdentifier": .string("R-1"), "status": .string("open")])]),
                    "orderProvider": .object([
                        "displayName": .string("Platform"), "url": .string("https://platform.example.com"),
                        "trackingLogoNameLightColorScheme": .string("light"), "trackingLogoNameDarkColorScheme": .string("dark"),
                    ]),
                ]) { $1 }
            )
        )
        #expect(validation.isValid)
        #expect(
            validation.warnings.contains(
                OrderProblem(
                    path: "returns",
                    message: "Return needs iOS 17.2 or macOS 14.2; Wallet on older devices shows the order without it"
                )
            )
        )
        #expect(
            validation.warnings.contains(
                OrderProblem(
                    path: "orderProvider",
                    message: "OrderProvider needs iOS 17.4 or macOS 14.4; Wallet on older devices shows the order without it"
                )
            )
        )
        #expect(
            validation.warnings.contains(
                OrderProblem(
                    path: "payment.transactions",
                    message: "PaymentTransaction needs iOS 17.0 or macOS 14.0; Wallet on older devices shows the order without it"
                )
            )
        )
        #expect(Set(validation.warnings.map(\.path)) == ["payment.transactions", "returnInfo", "returns", "orderProvider"])
        #expect(OrderValidator.validate(SampleOrder.json()).warnings == [])
    }

    // Apple's Payment page badges paymentMethods and applePayTransactionIdentifiers "Deprecated" and names no
    // replacement: the warning says that much, and where iOS 17 keeps the same facts.
    @Test func deprecatedPaymentFieldsAreAcceptedWithAWarningThatSaysWhatApplesPageSays() {
        var fields = SampleOrder.json().objectValue!
        fields["payment"] = .object([
            "total": .object(["amount": .string("24.90"), "currency": .string("EUR")]), "status": .string("paid"),
            "paymentMethods": .array([.string("Visa 1234")]), "applePayTransactionIdentifiers": .array([.string("A1B2")]),
        ])
        let validation = OrderValidator.validate(.object(fields))
        #expect(validation.problems == [])
        #expect(
            validation.warnings == [
                OrderProblem(
                    path: "payment.paymentMethods",
                    message: "is marked deprecated on Apple's Payment page; each of payment.transactions[] (iOS 17) has its own paymentMethod"
                ),
                OrderProblem(
                    path: "payment.applePayTransactionIdentifiers",
                    message: "is marked deprecated on Apple's Payment page; each of payment.transactions[] (iOS 17) has its own "
                        + "applePayTransactionIdentifier"
                ),
            ]
        )
    }

    @Test func theValidationEncodesAsTheMerchantAPIAnswers() throws {
        let validation = OrderValidation(
            problems: [OrderProblem(path: "status", message: "is required")],
            warnings: [OrderProblem(path: "returns", message: "needs iOS 17.2")]
        )
        let json = try JSONValue.parse(JSONEncoder().encode(validation))
        #expect(
            json
                == .object([
                    "valid": .bool(false),
                    "problems": .array([.object(["path": .string("status"), "message": .string("is required")])]),
                    "warnings": .array([.object(["path": .string("returns"), "message": .string("needs iOS 17.2")])]),
                ])
        )
        #expect(try JSONDecoder().decode(OrderValidation.self, from: JSONEncoder().encode(validation)) == validation)
    }

    @Test func identifiersAreLimitedForURLs() {
        let found = problems { order in
            order["orderIdentifier"] = .string("a/b c")
            order["orderTypeIdentifier"] = .string(String(repeating: "x", count: 200))
        }
        #expect(
            found == [
                OrderProblem(path: "orderTypeIdentifier", message: "is longer than 128 characters"),
                OrderProblem(path: "orderIdentifier", message: "may only hold letters, digits and . - _ : ~"),
            ]
                || found == [
                    OrderProblem(path: "orderIdentifier", message: "may only hold letters, digits and . - _ : ~"),
                    OrderProblem(path: "orderTypeIdentifier", message: "is longer than 128 characters"),
                ]
        )
    }

    // A URL path segment . or .. is removed by clients before the request leaves (RFC 3986, 5.2.4): an order
    // named so could never be fetched, and .. would name the order type's folder.
    @Test func dotAndDotDotAreNoIdentifiers() {
        for name in [".", ".."] {
            #expect(Identifier.problem(with: name) == "must not be . or .., which clients remove from URLs as path steps")
            #expect(!Identifier.isValid(name))
            #expect(
                problems { $0["orderIdentifier"] = .string(name) } == [
                    OrderProblem(path: "orderIdentifier", message: "must not be . or .., which clients remove from URLs as path steps")
                ]
            )
            #expect(paths(problems { $0["orderTypeIdentifier"] = .string(name) }) == ["orderTypeIdentifier"])
        }
        for name in ["...", ".a", "a..b", "A-1001."] {
            #expect(Identifier.isValid(name), "\(name)")
        }
    }

    @Test func updatedAtMayNotPrecedeCreatedAt() {
        let found = problems { $0["updatedAt"] = .string("2026-11-19T00:00:00Z") }
        #expect(found == [OrderProblem(path: "updatedAt", message: "must not be earlier than createdAt")])
    }
}
