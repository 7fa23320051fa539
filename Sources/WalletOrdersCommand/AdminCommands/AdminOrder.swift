import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminOrder: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "order",
        abstract: "One order: its fields, the times of its versions, its devices and recent pushes."
    )

    @OptionGroup var options: AdminOptions
    @Argument(help: "The order type identifier.") var type: String
    @Argument(help: "The order identifier.") var id: String

    func run() async throws {
        let (story, versions) = try await options.withService { offline in
            (try await offline.service.orderStory(type: type, id: id), try await offline.service.versions(type: type, id: id))
        }
        guard let story else { throw CommandFailure("there is no order \(id) of type \(type)") }
        let (order, registrations) = (story.order, story.registrations)
        let pushes = Array(story.pushes.prefix(20))
        var document = order.document.json
        if case .object(var fields) = document {
            fields["authenticationToken"] = .string("…")  // a secret: never printed
            document = .object(fields)
        }
        let summary = TextTable(
            ["", ""],
            [
                ["type", type], ["order", id], ["status", order.status.rawValue], ["version", "\(order.version)"],
                ["created", RFC3339.format(order.createdAt)], ["updated", RFC3339.format(order.updatedAt)],
            ],
            header: false
        ).text
        let table =
            summary
            + "\nversions\n"
            + TextTable(
                ["VERSION", "STATUS", "WRITTEN", "BY"],
                versions.map {
                    ["\($0.version)", $0.status.rawValue, RFC3339.format($0.updatedAt), $0.author ?? "-"]
                }
            ).text
            + "\ndevices\n" + Self.registrationTable(registrations).text
            + "\nrecent pushes\n" + Self.pushTable(pushes).text
        try options.output(
            .object([
                "order": document, "versions": try JSONValue.encoding(versions),
                "registrations": try JSONValue.encoding(registrations), "pushes": try JSONValue.encoding(pushes),
            ]),
            table: table
        )
    }

    static func registrationTable(_ registrations: [Registration]) -> TextTable {
        TextTable(
            ["DEVICE", "TYPE", "ORDER", "PUSH TOKEN", "REGISTERED", "UPDATED"],
            registrations.map {
                [
                    $0.deviceIdentifier, $0.orderTypeIdentifier, $0.orderIdentifier, $0.pushToken,
                    RFC3339.format($0.createdAt), RFC3339.format($0.updatedAt),
                ]
            }
        )
    }

    static func pushTable(_ pushes: [PushRecord]) -> TextTable {
        TextTable(
            ["ID", "ORDER", "DEVICE", "STATUS", "ATTEMPTS", "UPDATED", "LAST ERROR"],
            pushes.map {
                [
                    "\($0.id)", "\($0.orderTypeIdentifier)/\($0.orderIdentifier)", $0.deviceIdentifier, $0.status.rawValue,
                    "\($0.attempts)", RFC3339.format($0.updatedAt), $0.lastError ?? "",
                ]
            }
        )
    }
}
