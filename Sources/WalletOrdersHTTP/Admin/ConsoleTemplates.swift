import Mustache

/// The console's pages as Mustache templates. Every value is `VisibleText` (HTML escaped, its controls shown) or
/// `RawHTML` the console made; both go in with `{{{…}}}`. Long values wrap anywhere rather than widen the page.
enum ConsoleTemplates {
    /// Each template parsed once; a template that does not parse (a mistake here, which the tests would show) makes
    /// its page answer 500 rather than stop the server.
    static let parsed: [String: Result<MustacheTemplate, any Error>] = [
        "layout": Result { try MustacheTemplate(string: layout) },
        "orders": Result { try MustacheTemplate(string: orders) },
        "order": Result { try MustacheTemplate(string: order) },
        "activity": Result { try MustacheTemplate(string: activity) },
    ]

    /// The parsed template of that name.
    static func template(_ name: String) throws -> MustacheTemplate {
        guard let parsed = parsed[name] else { throw APIError(.internalServerError, "the console has no page \(name)") }
        return try parsed.get()
    }

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{{title}}} · wallet-orders</title>
        <style>
        body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #fbfbfd; }
        header { display: flex; gap: 1.5rem; align-items: baseline; padding: .8rem 2rem; background: #1d1d1f; color: #f5f5f7; }
        header a { color: #f5f5f7; text-decoration: none; padding: .2rem .5rem; border-radius: 4px; }
        header a[aria-current] { background: #424245; }
        header .role { margin-left: auto; font-size: .85em; color: #a1a1a6; }
        main { padding: 1rem 2rem 3rem; max-width: 1400px; }
        h1 { font-size: 1.4rem; margin: .6rem 0; overflow-wrap: anywhere; } h2 { font-size: 1.1rem; margin-top: 2rem; }
        table { border-collapse: collapse; width: 100%; background: #fff; }
        th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #e5e5ea; vertical-align: top; overflow-wrap: anywhere; }
        th { background: #f5f5f7; font-weight: 600; white-space: nowrap; }
        td.when { white-space: nowrap; }
        table.fields th { width: 12rem; }
        td.mono, pre, code { font-family: ui-monospace, monospace; font-size: .9em; }
        td.message, pre { white-space: pre-wrap; overflow-wrap: anywhere; }
        pre { background: #fff; border: 1px solid #e5e5ea; padding: .8rem; max-height: 30rem; overflow: auto; }
        td.token { font-family: ui-monospace, monospace; max-width: 14ch; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        span.control { font-family: ui-monospace, monospace; font-size: .85em; color: #cf222e; background: #ffebe9; border: 1px solid #ffcecb; border-radius: 3px; padding: 0 .15em; }
        .delivered, .completed, .valid, .live { color: #1a7f37; } .failed, .cancelled, .suspended, .invalid { color: #cf222e; }
        .pending, .sending { color: #9a6700; }
        form.search { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; background: #fff; padding: .8rem; border: 1px solid #e5e5ea; }
        form.search label { display: flex; flex-direction: column; font-size: .8em; color: #6e6e73; gap: .15rem; }
        form.search input[name=q] { width: 22rem; max-width: 80vw; }
        input, select, button { font: inherit; padding: .25rem .4rem; }
        button { cursor: pointer; }
        .notice { background: #eef6ff; border: 1px solid #b6d4fe; padding: .5rem .8rem; margin: .8rem 0; overflow-wrap: anywhere; }
        .pages { display: flex; gap: 1rem; margin: .8rem 0; }
        ul.changes { margin: 0; padding-left: 1rem; } ul.changes code { overflow-wrap: anywhere; }
        del { color: #cf222e; } ins { color: #1a7f37; text-decoration: none; }
        figure { margin: 1rem 0; background: #fff; border: 1px solid #e5e5ea; padding: .6rem; }
        figcaption { font-weight: 600; margin-bottom: .3rem; }
        .key { font-weight: normal; font-size: .85em; margin-left: .8rem; } .key i { display: inline-block; width: .8em; height: .8em; margin-right: .3em; }
        svg.chart { width: 100%; height: auto; max-height: 240px; font: 10px system-ui, sans-serif; fill: #6e6e73; }
        svg.chart .axis { stroke: #8e8e93; } svg.chart .grid { stroke: #e5e5ea; }
        .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 0 1rem; }
        </style>
        </head>
        <body>
        <header><strong>wallet-orders</strong>
        <nav><a href="/admin"{{#ordersTab}} aria-current="page"{{/ordersTab}}>Orders</a>
        <a href="/admin/activity"{{#activityTab}} aria-current="page"{{/activityTab}}>Activity</a></nav>
        <span class="role">{{{role}}} · as of {{{generatedAt}}}</span></header>
        <main>
        {{{body}}}
        </main>
        </body>
        </html>

        """

    static let orders = """
        <h1>Orders</h1>
        <form class="search" method="get" action="/admin">
        <label>Search<input type="search" name="q" value="{{{q}}}" placeholder="order id, order number, tracking number, device, push token, merchant" autofocus></label>
        <label>Status<select name="status">{{#statuses}}<option value="{{{value}}}"{{#selected}} selected{{/selected}}>{{{label}}}</option>{{/statuses}}</select></label>
        <label>Type<select name="type">{{#types}}<option value="{{{value}}}"{{#selected}} selected{{/selected}}>{{{label}}}</option>{{/types}}</select></label>
        {{#multipleMerchants}}<label>Merchant<input name="merchant" list="merchants" value="{{{merchant}}}" placeholder="slug"></label>
        <datalist id="merchants">{{#merchants}}<option value="{{{slug}}}">{{{name}}}</option>{{/merchants}}</datalist>{{/multipleMerchants}}
        <label>Created from<input type="date" name="from" value="{{{from}}}"></label>
        <label>until<input type="date" name="until" value="{{{until}}}"></label>
        <label>Order<select name="sort"><option value="newest">newest first</option><option value="oldest"{{#oldest}} selected{{/oldest}}>oldest first</option></select></label>
        <button type="submit">Search</button> <a href="/admin">Clear</a>
        </form>
        {{#notice}}<p class="notice">{{{notice}}}</p>{{/notice}}
        <table id="orders"><tr><th>Merchant</th><th>Type</th><th>Order</th><th>Number</th><th>Status</th><th>Version</th><th>Devices</th><th>Created</th><th>Updated</th></tr>
        {{#orders}}<tr><td>{{{merchant}}}</td><td>{{{type}}}</td><td><a href="{{{href}}}">{{{id}}}</a></td><td>{{{number}}}</td><td class="{{{status}}}">{{{status}}}</td><td>{{{version}}}</td><td>{{{devices}}}</td><td class="when">{{{created}}}</td><td class="when">{{{updated}}}</td></tr>
        {{/orders}}</table>
        {{#empty}}<p>No order matches.</p>{{/empty}}
        <p class="pages">{{#first}}<a href="{{{first}}}">First page</a>{{/first}}{{#next}}<a href="{{{next}}}" rel="next">Next page</a>{{/next}}</p>

        """

    static let order = """
        <h1>Order {{{id}}}</h1>
        {{#notice}}<p class="notice">{{{notice}}}</p>{{/notice}}
        <table class="fields" id="fields">{{#fields}}<tr><th>{{{name}}}</th><td>{{{value}}}</td></tr>{{/fields}}</table>
        {{#acting}}<form method="post" action="{{{resend}}}"><p><button type="submit">Send pushes to its devices again</button></p></form>{{/acting}}
        <h2>Package</h2>
        {{#package}}<p id="package">{{#acting}}<a href="{{{packageHref}}}">Download the package a device gets now</a> ·{{/acting}}
        {{#valid}}<span class="valid">the verifier finds nothing wrong</span>{{/valid}}{{^valid}}<span class="invalid">the verifier finds problems</span>{{/valid}}
        · {{{bytes}}} bytes, {{{files}}} files · signed by {{{signer}}} at {{{signed}}}</p>
        <ul>{{#problems}}<li class="invalid">{{{.}}}</li>{{/problems}}{{#warnings}}<li>{{{.}}}</li>{{/warnings}}</ul>{{/package}}
        {{#packageMissing}}<p id="package">No package: {{{packageMissing}}}</p>{{/packageMissing}}
        <h2>Versions</h2>
        <p>Versions {{{versionRange}}}, newest first.</p>
        <table id="versions"><tr><th>Version</th><th>Written</th><th>By</th><th>Status</th><th>What changed</th></tr>
        {{#versions}}<tr><td>{{{version}}}</td><td class="when">{{{written}}}</td><td>{{{by}}}</td><td class="{{{status}}}">{{{status}}}</td><td>{{#created}}created{{/created}}{{#unknown}}not recorded (written before changes were kept){{/unknown}}<ul class="changes">{{#changes}}<li><code>{{{path}}}</code>: <del>{{{before}}}</del> → <ins>{{{after}}}</ins></li>{{/changes}}{{#more}}<li class="more">{{{more}}}</li>{{/more}}</ul></td></tr>
        {{/versions}}</table>
        <p class="pages">{{#newestVersions}}<a href="{{{newestVersions}}}">Newest versions</a>{{/newestVersions}}{{#olderVersions}}<a href="{{{olderVersions}}}" rel="next">Older versions</a>{{/olderVersions}}</p>
        <h2>Devices</h2>
        <table id="devices"><tr><th>Device</th><th>Push token</th><th>Registered</th><th>Updated</th></tr>
        {{#devices}}<tr><td>{{{device}}}</td><td class="token" title="{{{token}}}">{{{token}}}</td><td class="when">{{{registered}}}</td><td class="when">{{{updated}}}</td></tr>
        {{/devices}}{{^devices}}<tr><td colspan="4">None.</td></tr>{{/devices}}</table>
        <h2>Pushes</h2>
        <table id="pushes"><tr><th>#</th><th>Device</th><th>Status</th><th>Attempts</th><th>Queued</th><th>Updated</th><th>Update to delivered</th><th>Last error</th></tr>
        {{#pushes}}<tr><td>{{{id}}}</td><td>{{{device}}}</td><td class="{{{status}}}">{{{status}}}</td><td>{{{attempts}}}</td><td class="when">{{{queued}}}</td><td class="when">{{{updated}}}</td><td>{{{latency}}}</td><td>{{{error}}}</td></tr>
        {{/pushes}}{{^pushes}}<tr><td colspan="8">None.</td></tr>{{/pushes}}</table>
        <h2>Links</h2>
        <table id="links"><tr><th>Link</th><th>Kind</th><th>Created</th><th>Expires</th><th>First used</th><th>Downloads</th><th>State</th></tr>
        {{#links}}<tr><td class="mono">{{{id}}}</td><td>{{{kind}}}</td><td class="when">{{{created}}}</td><td class="when">{{{expires}}}</td><td class="when">{{{firstUsed}}}</td><td>{{{downloads}}}</td><td class="{{{state}}}">{{{state}}} {{{revokedAt}}}{{#revoke}}<form method="post" action="{{{revoke}}}"><button type="submit">Revoke</button></form>{{/revoke}}</td></tr>
        {{/links}}{{^links}}<tr><td colspan="7">None.</td></tr>{{/links}}</table>
        <h2>Webhook deliveries</h2>
        <table id="deliveries"><tr><th>#</th><th>Event</th><th>Endpoint</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Updated</th><th>Last error</th></tr>
        {{#deliveries}}<tr><td>{{{id}}}</td><td>{{{event}}}</td><td class="mono">{{{endpoint}}}</td><td class="{{{status}}}">{{{status}}}</td><td>{{{attempts}}}</td><td>{{{code}}}</td><td class="when">{{{updated}}}</td><td>{{{error}}}</td></tr>
        {{/deliveries}}{{^deliveries}}<tr><td colspan="8">None.</td></tr>{{/deliveries}}</table>
        <h2>Device logs that name it</h2>
        <table id="logs"><tr><th>Received</th><th>Last seen</th><th>Times</th><th>From</th><th>Message</th></tr>
        {{#logs}}<tr><td class="when">{{{received}}}</td><td class="when">{{{lastSeen}}}</td><td>{{{count}}}</td><td>{{{from}}}</td><td class="message">{{{message}}}</td></tr>
        {{/logs}}{{^logs}}<tr><td colspan="5">None.</td></tr>{{/logs}}</table>
        <h2>The order as stored</h2>
        {{#documentCut}}<p class="notice">{{{documentCut}}}</p>{{/documentCut}}
        <pre id="document">{{{document}}}</pre>

        """

    static let activity = """
        <h1>Activity of {{{scope}}}</h1>
        <form class="search" method="get" action="/admin/activity">
        {{#multipleMerchants}}<label>Merchant<select name="merchant">{{#merchantOptions}}<option value="{{{value}}}"{{#selected}} selected{{/selected}}>{{{label}}}</option>{{/merchantOptions}}</select></label>{{/multipleMerchants}}
        <label>Days<select name="days">{{#dayOptions}}<option{{#selected}} selected{{/selected}}>{{{value}}}</option>{{/dayOptions}}</select></label>
        <button type="submit">Show</button>
        </form>
        <table class="fields" id="summary">{{#summary}}<tr><th>{{{name}}}</th><td>{{{value}}}</td></tr>{{/summary}}</table>
        <p>Days are UTC; figures are at most a minute old.</p>
        <div class="charts" id="charts">{{#charts}}{{{.}}}{{/charts}}</div>
        <h2>Counts</h2>
        <table class="fields" id="stats">{{#stats}}<tr><th>{{{name}}}</th><td>{{{value}}}</td></tr>{{/stats}}</table>
        <h2>Merchants</h2>
        <table id="merchants"><tr><th>Slug</th><th>Name</th><th>Status</th><th>Orders</th><th>Asset bytes</th><th>History bytes</th><th>Limits</th></tr>
        {{#merchants}}<tr><td><a href="{{{href}}}">{{{slug}}}</a></td><td>{{{name}}}</td><td class="{{{status}}}">{{{status}}}</td><td>{{{orders}}}</td><td>{{{assetBytes}}}</td><td>{{{historyBytes}}}</td><td>{{{limits}}}</td></tr>
        {{/merchants}}</table>
        <h2>Newest pushes</h2>
        <table id="recent-pushes"><tr><th>#</th><th>Order</th><th>Device</th><th>Status</th><th>Attempts</th><th>Updated</th><th>Last error</th></tr>
        {{#pushes}}<tr><td>{{{id}}}</td><td><a href="{{{href}}}">{{{order}}}</a></td><td>{{{device}}}</td><td class="{{{status}}}">{{{status}}}</td><td>{{{attempts}}}</td><td class="when">{{{updated}}}</td><td>{{{error}}}</td></tr>
        {{/pushes}}{{^pushes}}<tr><td colspan="7">None.</td></tr>{{/pushes}}</table>
        <h2>Newest device logs</h2>
        <table id="recent-logs"><tr><th>Received</th><th>Last seen</th><th>Times</th><th>From</th><th>Message</th></tr>
        {{#logs}}<tr><td class="when">{{{received}}}</td><td class="when">{{{lastSeen}}}</td><td>{{{count}}}</td><td>{{{from}}}</td><td class="message">{{{message}}}</td></tr>
        {{/logs}}{{^logs}}<tr><td colspan="5">None.</td></tr>{{/logs}}</table>

        """
}
