/// The rules about the fetch and the package it serves: `GET {webServiceURL}/v1/orders/{type}/{id}`.
extension Rule {
    public static let fetchStatus = Rule(
        "fetch.status",
        .must,
        "The fetch with the order's token answers 200",
        apple: ApplePage.fetchWords,
        page: ApplePage.fetch,
        check: "GET /v1/orders/{type}/{id} with `Authorization: AppleOrder {authenticationToken}` from orderDetails; 200 passes."
    )
    public static let fetchContentType = Rule(
        "fetch.contentType",
        .must,
        "The package is served as application/vnd.apple.finance.order",
        apple: ApplePage.fetchWords,
        page: ApplePage.fetch,
        check: "The fetch's Content-Type is application/vnd.apple.finance.order, the order package's media type (parameters ignored).",
        after: ["fetch.status"]
    )
    public static let packageSize = Rule(
        "package.size",
        .must,
        "The package is smaller than 5 MB",
        apple: ApplePage.packageWords,
        page: ApplePage.package,
        check: "The package is below 5,000,000 bytes: Wallet refuses larger order packages.",
        after: ["fetch.status"]
    )
    public static let packageArchive = Rule(
        "package.archive",
        .must,
        "The package is a zip of the files an order may hold",
        apple: ApplePage.packageWords,
        page: ApplePage.package,
        check: "The package is a readable zip archive (no links, no encryption, no paths out of it); every file is "
            + "order.json, manifest.json, signature, a PNG, JPEG or PDF, or a <language>.lproj/order.strings, and none "
            + "is hidden (.DS_Store).",
        after: ["fetch.status"]
    )
    public static let packageManifest = Rule(
        "package.manifest",
        .must,
        "manifest.json lists every file with its digest",
        apple: ApplePage.manifestWords,
        page: ApplePage.package,
        check: "manifest.json lists every other file of the package with the hex SHA-256 (or SHA-1) digest of its bytes, "
            + "and nothing that is not in the package.",
        after: ["fetch.status"]
    )
    public static let packageSignature = Rule(
        "package.signature",
        .must,
        "signature is a valid CMS signature over manifest.json",
        apple: ApplePage.packageWords,
        page: ApplePage.package,
        check: "signature is a detached DER CMS (PKCS #7) signature that verifies over the exact bytes of manifest.json, "
            + "carries a signing-time attribute and the WWDR certificate that issued the signer.",
        after: ["fetch.status"]
    )
    public static let packageSigner = Rule(
        "package.signer",
        .must,
        "The signer's certificate names the order type",
        apple: ApplePage.orderTypeWords,
        page: ApplePage.package,
        check: "The signing certificate's subject UID is the order type identifier of orderDetails and order.json: the "
            + "Order Type ID certificate, not another identifier's.",
        after: ["fetch.status", "package.signature"]
    )
    public static let packageChain = Rule(
        "package.chain",
        .must,
        "The signer chains to the trusted root",
        apple: ApplePage.manifestWords,
        page: ApplePage.package,
        check: "The signer's certificate chains, through the certificates in the signature, to Apple's root (Apple Root "
            + "CA, through the WWDR intermediate) or to the root given with --ca.",
        after: ["fetch.status", "package.signature"]
    )
    public static let packageOrder = Rule(
        "package.order",
        .must,
        "order.json is a valid order",
        apple: ApplePage.sourceWords,
        page: ApplePage.source,
        check: "order.json is valid against the order schema (required fields, types, enumerations, dates), every file "
            + "it names is in the package, and the localizations agree. (The web service URL's scheme is package.https's.)",
        after: ["fetch.status"]
    )
    public static let packageIdentifiers = Rule(
        "package.identifiers",
        .must,
        "order.json is the order Wallet asked for",
        apple: ApplePage.fetchWords,
        page: ApplePage.fetch,
        check: "order.json's orderTypeIdentifier and orderIdentifier are orderDetails'.",
        after: ["fetch.status"]
    )
    public static let packageWebService = Rule(
        "package.webService",
        .must,
        "order.json's webServiceURL and authenticationToken are orderDetails'",
        apple: ApplePage.overviewWords,
        page: ApplePage.root,
        check: "order.json carries webServiceURL and authenticationToken, and they are the ones in orderDetails: a device "
            + "that adds the package keeps following the order at the same service with the same token.",
        after: ["fetch.status"]
    )
    public static let packageHTTPS = Rule(
        "package.https",
        .must,
        "The web service is https",
        apple: ApplePage.overviewWords,
        page: ApplePage.root,
        check: "webServiceURL, in orderDetails and in order.json, starts with https:// (Wallet talks to web services "
            + "over TLS only). --allow-http skips this rule for a development server.",
        after: ["fetch.status"]
    )

    public static let fetchWrongToken = Rule(
        "fetch.wrongToken",
        .must,
        "A wrong token is refused with 401",
        apple: ApplePage.fetchWords,
        page: ApplePage.fetch,
        check: "The fetch with `Authorization: AppleOrder {another token}` answers 401 and no package.",
        after: ["fetch.status"]
    )
    public static let fetchNoToken = Rule(
        "fetch.noToken",
        .must,
        "A fetch without a token is refused with 401",
        apple: ApplePage.fetchWords,
        page: ApplePage.fetch,
        check: "The fetch without an Authorization header answers 401 and no package.",
        after: ["fetch.status"]
    )
    public static let fetchUnknownOrder = Rule(
        "fetch.unknownOrder",
        .should,
        "An unknown order answers 401, as a wrong token does",
        apple: ApplePage.fetchWords,
        page: ApplePage.fetch,
        check: "The fetch of an order identifier that does not exist, with the order's token, answers 401: the same "
            + "answer as a wrong token, so the service does not tell which orders exist.",
        after: ["fetch.status"]
    )

    public static let fetchLastModified = Rule(
        "fetch.lastModified",
        .must,
        "The fetch sends Last-Modified",
        apple: ApplePage.cachingWords,
        page: ApplePage.fetch,
        check: "The fetch's answer has a Last-Modified header holding an HTTP-date (RFC 9110 §5.6.7); Wallet sends it "
            + "back as If-Modified-Since.",
        after: ["fetch.status"]
    )
    public static let fetchLastModifiedNotAfterDate = Rule(
        "fetch.lastModifiedNotAfterDate",
        .must,
        "Last-Modified is not later than Date",
        apple: ApplePage.cachingWords,
        page: ApplePage.fetch,
        check: "Last-Modified is not later than the answer's Date header (RFC 9110 §8.8.2.1), or than the kit's clock "
            + "when there is no Date.",
        after: ["fetch.lastModified"]
    )
    public static let fetchLastModifiedStable = Rule(
        "fetch.lastModifiedStable",
        .must,
        "Last-Modified stays put while the order does",
        apple: ApplePage.cachingWords,
        page: ApplePage.fetch,
        check: "Two fetches more than a second apart of the unchanged order send the same Last-Modified (tried three "
            + "times over about five seconds, for services that hold it back a moment after an update): a Last-Modified "
            + "of \"now\" makes every conditional fetch a full download.",
        after: ["fetch.lastModified"]
    )
    public static let fetchNotModified = Rule(
        "fetch.notModified",
        .must,
        "If-Modified-Since with its own Last-Modified answers 304",
        apple: ApplePage.cachingWords,
        page: ApplePage.fetch,
        check: "The fetch with `If-Modified-Since: {its Last-Modified}` answers 304 with no package (RFC 9110 §13.1.3).",
        after: ["fetch.lastModified"]
    )
    public static let fetchHead = Rule(
        "fetch.head",
        .should,
        "HEAD on the fetch URL answers 200",
        apple: ApplePage.cachingWords,
        page: ApplePage.fetch,
        check: "HEAD /v1/orders/{type}/{id} with the token answers 200, as GET does (RFC 9110 §9.3.2), not 405.",
        after: ["fetch.status"]
    )
}
