import Foundation
import Mustache
import WalletOrdersHTTP

/// The playground's page, preview, stylesheet, scripts and first order: files in `Page/` read once from the module's
/// resources (no build step, nothing from elsewhere).
///
/// `playground.js` drives the page; `source.js` defines `playgroundSource(root, publicURL)`, the Source view, which
/// writes the checkout's code for the order on the page, every value through its language's own quoting.
struct PlaygroundAssets: Sendable {
    /// `playground.mustache`: the page, filled in by `PlaygroundPage`.
    let page: MustacheTemplate
    /// `preview.mustache`: the order a device holds, roughly as Wallet shows it (`OrderPreview`).
    let preview: MustacheTemplate
    let stylesheet: StaticAsset
    let script: StaticAsset
    let sourceScript: StaticAsset
    /// The order the editor starts with: `Examples/order.json`, whose images and strings the sample template has.
    let sampleOrder: String

    init(_ resources: PageResources) throws {
        page = try resources.template("playground")
        preview = try resources.template("preview")
        stylesheet = try resources.asset("playground.css", at: "/playground/playground.css", contentType: "text/css; charset=utf-8")
        script = try resources.asset("playground.js", at: "/playground/playground.js", contentType: Self.javaScript)
        sourceScript = try resources.asset("source.js", at: "/playground/source.js", contentType: Self.javaScript)
        sampleOrder = try resources.text("sample-order.json").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let javaScript = "text/javascript; charset=utf-8"

    /// Read at the first use, which `PlaygroundPage.add(to:adminGate:)` makes at start; files missing make the
    /// playground's pages answer 500 rather than stop the server.
    static let loaded = Result { try PlaygroundAssets(PageResources(bundle: .module, folder: "Page")) }
}
