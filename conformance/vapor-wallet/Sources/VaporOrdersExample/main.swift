// An order service on vapor-community/wallet, following its "Getting Started with Orders" guide: an order data model
// with its order.json, the OrdersService's routes under /api/orders, its model middleware pushing on every update.
// Three routes of its own stand for the merchant's backend: create an order, change it, save it unchanged.
// Configured by environment variables (see conformance/vapor-wallet.sh).
import APNS
import Fluent
import FluentSQLiteDriver
import FluentWalletOrders
import Foundation
import NIOSSL
import Vapor
import VaporAPNS
import VaporWalletOrders
import WalletOrders

final class OrderData: OrderDataModel, @unchecked Sendable {
    static let schema = "order_data"
    static let typeIdentifier = Environment.get("ORDER_TYPE_IDENTIFIER") ?? "order.com.example.dev"

    @ID(key: .id) var id: UUID?
    @Field(key: "title") var title: String
    @Parent(key: "order_id") var order: Order

    init() {}

    init(title: String) { self.title = title }

    func orderJSON(on db: any Database) async throws -> any OrderJSON.Properties {
        try await ExampleOrderJSON(data: self, order: self.$order.get(on: db))
    }

    func sourceFilesDirectoryPath(on db: any Database) async throws -> String {
        Environment.get("SOURCE_FILES") ?? "SourceFiles/"
    }
}

struct CreateOrderData: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(OrderData.schema).id()
            .field("title", .string, .required)
            .field("order_id", .uuid, .required, .references(Order.schema, .id, onDelete: .cascade))
            .create()
    }

    func revert(on database: any Database) async throws { try await database.schema(OrderData.schema).delete() }
}

struct ExampleOrderJSON: OrderJSON.Properties {
    struct Merchant: OrderJSON.Merchant {
        var merchantIdentifier = "merchant.com.example.shop"
        var displayName: String
        var url = "https://shop.example.com/"
        var logo = "logo.png"
    }

    var schemaVersion = OrderJSON.SchemaVersion.v1
    var orderTypeIdentifier = OrderData.typeIdentifier
    var orderIdentifier: String
    var orderType = OrderJSON.OrderType.ecommerce
    var orderNumber = "1001"
    var createdAt: String
    var updatedAt: String
    var status = OrderJSON.OrderStatus.open
    var merchant: Merchant
    var orderManagementURL = "https://shop.example.com/orders/1001"
    var authenticationToken: String
    var webServiceURL = (Environment.get("PUBLIC_URL") ?? "https://127.0.0.1:8443") + "/api/orders/"

    init(data: OrderData, order: Order) {
        orderIdentifier = order.id!.uuidString
        authenticationToken = order.authenticationToken
        merchant = Merchant(displayName: data.title)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = .withInternetDateTime
        createdAt = formatter.string(from: order.createdAt!)
        updatedAt = formatter.string(from: order.updatedAt!)
    }
}

func file(_ variable: String) throws -> String {
    guard let path = Environment.get(variable) else { throw Abort(.internalServerError, reason: "\(variable) is not set") }
    return try String(contentsOfFile: path, encoding: .utf8)
}

let app = try await Application.make(.detect())
app.http.server.configuration.hostname = "127.0.0.1"
app.http.server.configuration.port = Environment.get("PORT").flatMap(Int.init) ?? 8443
app.http.server.configuration.tlsConfiguration = .makeServerConfiguration(
    certificateChain: try NIOSSLCertificate.fromPEMFile(Environment.get("TLS_CERTIFICATE") ?? "").map { .certificate($0) },
    privateKey: .privateKey(try NIOSSLPrivateKey(file: Environment.get("TLS_KEY") ?? "", format: .pem))
)
app.databases.use(.sqlite(.memory), as: .sqlite)
OrdersService<OrderData>.register(migrations: app.migrations)
app.migrations.add(CreateOrderData())
try await app.autoMigrate()

let ordersService = try OrdersService<OrderData>(
    app: app,
    pemWWDRCertificate: try file("PEM_WWDR_CERTIFICATE"),
    pemCertificate: try file("PEM_CERTIFICATE"),
    pemPrivateKey: try file("PEM_PRIVATE_KEY")
)
// The service pushes to APNs' production host with the order type certificate; for the conformance run the same
// client (same credentials) goes to the kit's local APNs instead. The first client is shut down before it is replaced.
if let apns = Environment.get("APNS_PORT").flatMap(Int.init) {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        app.apns.client(.init(string: "orders")).shutdown { error in
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
    }
    app.apns.containers.use(
        APNSClientConfiguration(
            authenticationMethod: try .tls(
                privateKey: .privateKey(NIOSSLPrivateKey(bytes: Array(try file("PEM_PRIVATE_KEY").utf8), format: .pem)),
                certificateChain: NIOSSLCertificate.fromPEMBytes(Array(try file("PEM_CERTIFICATE").utf8)).map { .certificate($0) }
            ),
            environment: .custom(url: "https://127.0.0.1", port: apns)
        ),
        eventLoopGroupProvider: .shared(app.eventLoopGroup),
        responseDecoder: JSONDecoder(),
        requestEncoder: JSONEncoder(),
        as: .init(string: "orders"),
        isDefault: false
    )
}
app.databases.middleware.use(ordersService, on: .sqlite)
try app.grouped("api", "orders").register(collection: ordersService)

// The merchant's backend.
app.post("merchant", "orders") { req async throws -> Response in
    let data = OrderData(title: "Example Shop")
    try await data.save(on: req.db)
    let order = try await data.$order.get(on: req.db)
    let details: [String: String] = [
        "orderTypeIdentifier": OrderData.typeIdentifier,
        "orderIdentifier": order.id!.uuidString,
        "webServiceURL": (Environment.get("PUBLIC_URL") ?? "") + "/api/orders/",
        "authenticationToken": order.authenticationToken,
    ]
    return Response(status: .ok, body: .init(data: try JSONEncoder().encode(["orderDetails": details])))
}
app.post("merchant", "orders", ":id", "rename") { req async throws -> HTTPStatus in
    guard let data = try await OrderData.query(on: req.db).filter(\.$order.$id == req.parameters.require("id", as: UUID.self)).first()
    else { throw Abort(.notFound) }
    data.title = "Example Shop \(Int.random(in: 1000...9999))"
    try await data.save(on: req.db)
    return .ok
}
app.post("merchant", "orders", ":id", "save") { req async throws -> HTTPStatus in
    guard let data = try await OrderData.query(on: req.db).filter(\.$order.$id == req.parameters.require("id", as: UUID.self)).first()
    else { throw Abort(.notFound) }
    try await data.save(on: req.db)
    return .ok
}
try await app.execute()
try await app.asyncShutdown()
