import Foundation
import Mustache

/// The console's pages as Mustache templates and its stylesheet, files in `Admin/Console/` read once from the
/// module's resources. Every value a template puts in is `VisibleText` (HTML escaped, its controls shown) or `RawHTML`
/// the console made; both go in with `{{{…}}}`. The stylesheet makes long values wrap anywhere rather than widen the
/// page.
struct ConsoleResources: Sendable {
    /// The templates the console renders: a page's body, the layout around it, a chart.
    static let names = ["layout", "orders", "order", "activity", "chart"]

    let templates: [String: MustacheTemplate]
    /// `/admin/console.css`.
    let stylesheet: StaticAsset

    init(_ resources: PageResources) throws {
        templates = try Dictionary(uniqueKeysWithValues: Self.names.map { ($0, try resources.template($0)) })
        stylesheet = try resources.asset("console.css", at: "/admin/console.css", contentType: "text/css; charset=utf-8")
    }

    /// Read at the first use, which `AdminConsole.add(to:)` makes at start. Files missing or a template that does not
    /// parse (a mistake the tests would show) make the console's pages answer 500 rather than stop the server.
    static let loaded = Result { try ConsoleResources(PageResources(bundle: .module, folder: "Console")) }

    /// The parsed template of that name.
    func template(_ name: String) throws -> MustacheTemplate {
        guard let template = templates[name] else { throw APIError(.internalServerError, "the console has no page \(name)") }
        return template
    }
}
