/// The rules about registering, the listing of changed orders, the log endpoint and unregistering.
extension Rule {
    public static let registerCreated = Rule(
        "register.created",
        .must,
        "A new registration answers 201",
        apple: ApplePage.registerWords,
        page: ApplePage.register,
        check: "POST /v1/devices/{device}/registrations/{type}/{id} with the token and {\"pushToken\": …} for a device "
            + "the service has never seen answers 201."
    )
    public static let registerAgain = Rule(
        "register.again",
        .must,
        "Registering again answers 200",
        apple: ApplePage.registerWords,
        page: ApplePage.register,
        check: "The same registration sent again answers 200 (already registered), not 201 or an error.",
        after: ["register.created"]
    )
    public static let registerWrongToken = Rule(
        "register.wrongToken",
        .must,
        "A registration with a wrong or no token is refused with 401",
        apple: ApplePage.registerWords,
        page: ApplePage.register,
        check: "The registration of another device with `Authorization: AppleOrder {another token}`, and one with no "
            + "Authorization header, each answer 401."
    )

    public static let listingNoAuthorization = Rule(
        "listing.noAuthorization",
        .must,
        "The listing needs no Authorization header",
        apple: ApplePage.registrationsWords,
        page: ApplePage.registrations,
        check: "GET /v1/devices/{device}/registrations/{type} without any Authorization header is not refused (401 or "
            + "403): Wallet sends none there, the device identifier is the credential. (When it is refused, the kit "
            + "sends the token on the other listings, to judge them on their own.)"
    )
    public static let listingNoTag = Rule(
        "listing.noTag",
        .must,
        "The first listing, with no tag, names the order",
        apple: ApplePage.registrationsWords,
        page: ApplePage.registrations,
        check: "The listing without ordersModifiedSince (Wallet's first, right after registering) answers 200 with "
            + "{\"orderIdentifiers\": […], \"lastModified\": …} naming the order."
    )
    public static let listingEmptyTag = Rule(
        "listing.emptyTag",
        .must,
        "The listing with an empty tag names the order",
        apple: ApplePage.registrationsWords,
        page: ApplePage.registrations,
        check: "The listing with `?ordersModifiedSince=` (an empty value) answers 200 naming the order, as with no tag: "
            + "not 400 or 500."
    )
    public static let listingLastModifiedString = Rule(
        "listing.lastModifiedString",
        .must,
        "lastModified is a string",
        apple: ApplePage.orderIdentifiersWords,
        page: ApplePage.orderIdentifiers,
        check: "The listing's lastModified is a JSON string (not a number): Wallet sends it back, verbatim, as "
            + "ordersModifiedSince."
    )
    public static let listingOwnTag = Rule(
        "listing.ownTag",
        .must,
        "The listing with its own tag answers 204 while nothing changed",
        apple: ApplePage.registrationsWords,
        page: ApplePage.registrations,
        check: "The listing with ordersModifiedSince set, verbatim, to the lastModified it gave answers 204 (or 200 "
            + "naming no order) while the order has not changed: listing an unchanged order makes Wallet fetch it and log "
            + "\"requested update … but it was unchanged\"."
    )
    public static let listingUnknownDevice = Rule(
        "listing.unknownDevice",
        .must,
        "The listing for a device with no registrations answers 204",
        apple: ApplePage.registrationsWords,
        page: ApplePage.registrations,
        check: "The listing for a device identifier the service has never seen answers 204 (or 200 naming no order), "
            + "not 404 or 500."
    )

    public static let logAccepts = Rule(
        "log.accepts",
        .must,
        "/v1/log answers 200",
        apple: ApplePage.logWords,
        page: ApplePage.log,
        check: "POST /v1/log with {\"logs\": [\"…\"]} answers 200. (Reported from the field: without a 200 there, Wallet "
            + "stops processing the order type's pushes.)"
    )

    public static let unregisterOK = Rule(
        "unregister.ok",
        .must,
        "Unregistering answers 200",
        apple: ApplePage.unregisterWords,
        page: ApplePage.unregister,
        check: "DELETE /v1/devices/{device}/registrations/{type}/{id} with the token answers 200."
    )
    public static let unregisterListing = Rule(
        "unregister.listing",
        .must,
        "After unregistering, the listing answers 204",
        apple: ApplePage.unregisterWords,
        page: ApplePage.unregister,
        check: "The listing with no tag, after unregistering, answers 204 (or 200 without the order): the device gets "
            + "nothing more of it.",
        after: ["unregister.ok"]
    )
}
