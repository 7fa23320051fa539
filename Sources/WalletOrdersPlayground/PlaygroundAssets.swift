/// The playground's page, script and first order: plain text served as is (no build step, nothing from elsewhere).
enum PlaygroundAssets {
    /// The order the editor starts with: `Examples/order.json`, whose images and strings the sample template has.
    static let sampleOrder = """
        {
          "orderNumber": "1001",
          "orderManagementURL": "https://shop.example.com/account/orders/1001",
          "status": "open",
          "statusDescription": "STATUS_PROCESSING",
          "payment": {"total": {"amount": 24.9, "currency": "EUR"}, "status": "paid"},
          "lineItems": [
            {"title": "ITEM_MUG", "quantity": 2, "image": "mug.png", "price": {"amount": 12.45, "currency": "EUR"}}
          ],
          "fulfillments": [
            {"fulfillmentType": "shipping", "fulfillmentIdentifier": "parcel-1", "status": "processing",
             "carrier": "Example Post"}
          ]
        }
        """

    /// `{{key}}`, `{{devices}}`, `{{publicURL}}`, `{{notes}}` and `{{sample}}` are filled in by `PlaygroundPage` (the
    /// public URL and the sample escaped).
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="playground-key" content="{{key}}">
        <meta name="playground-devices" content="{{devices}}">
        <meta name="playground-public-url" content="{{publicURL}}">
        <title>wallet-orders playground</title>
        <link rel="icon" href="data:,">
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d1d1f; }
        [hidden] { display: none !important; }
        h1 { font-size: 1.4rem; margin: 0 0 .3rem; } h2 { font-size: 1.05rem; margin: 1rem 0 .4rem; }
        .columns { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1.5rem; }
        textarea { width: 100%; height: 22rem; font: 13px/1.35 ui-monospace, monospace; box-sizing: border-box; }
        button { font-size: 1rem; padding: .4rem 1.2rem; margin: .5rem .5rem .5rem 0; }
        ul.problems { list-style: none; padding: 0; margin: .3rem 0; }
        ul.problems li { padding: .15rem 0; } ul.problems li.problem { color: #cf222e; } ul.problems li.warning { color: #9a6700; }
        ul.problems li.ok { color: #1a7f37; } code.path { background: #f5f5f7; padding: 0 .3rem; margin-right: .4rem; }
        pre { background: #f5f5f7; padding: .6rem; overflow-x: auto; font-size: 12px; margin: .3rem 0; }
        ol.transcript { padding-left: 1.5rem; font: 12px/1.4 ui-monospace, monospace; }
        ol.transcript li { margin-bottom: .4rem; } ol.transcript .merchant { color: #0550ae; } ol.transcript .apns { color: #8250df; }
        ol.transcript pre { margin: .15rem 0 0; white-space: pre-wrap; word-break: break-all; color: #57606a; }
        .status-ok { color: #1a7f37; } .status-bad { color: #cf222e; }
        .wallet-card { border: 1px solid #d0d7de; border-radius: 14px; padding: 1rem; max-width: 26rem; }
        .wallet-card .merchant { display: flex; align-items: center; gap: .6rem; font-size: 1.1rem; }
        .wallet-card img.logo { width: 40px; height: 40px; border-radius: 8px; }
        .wallet-card ul.line-items { list-style: none; padding: 0; } .wallet-card ul.line-items li { display: flex; align-items: center; gap: .6rem; }
        .wallet-card ul.line-items img { width: 44px; height: 44px; object-fit: cover; border-radius: 6px; }
        .wallet-card .price { margin-left: auto; } .wallet-card .fulfillment { background: #f5f5f7; border-radius: 10px; padding: .6rem; margin: .5rem 0; }
        .wallet-card .meta { color: #57606a; font-size: 12px; }
        #note { color: #57606a; }
        #link-snippet { white-space: pre-wrap; word-break: break-all; }
        a.wallet-button { display: inline-block; background: #000; color: #fff; border-radius: 8px; padding: .55rem 1.1rem;
          text-decoration: none; font-weight: 600; margin: .5rem 0; }
        h2 .hint, .source-note, .source-head p { font-weight: normal; color: #57606a; font-size: 13px; }
        .source-note { margin: 0 0 .5rem; }
        .tabs { display: flex; flex-wrap: wrap; gap: .25rem; border-bottom: 1px solid #d0d7de; }
        .tabs button { margin: 0 0 -1px; font-size: 13px; padding: .35rem .8rem; background: none; color: #57606a;
          border: 1px solid transparent; border-radius: 8px 8px 0 0; cursor: pointer; }
        .tabs button:hover { color: #1d1d1f; }
        .tabs button[aria-selected="true"] { color: #1d1d1f; font-weight: 600; background: #fff; border-color: #d0d7de #d0d7de #fff; }
        .source-head { display: flex; align-items: center; gap: 1rem; }
        .source-head p { flex: 1; margin: .5rem 0; }
        button.copy { font-size: 13px; padding: .25rem 1rem; margin: .3rem 0; min-width: 6.5rem; }
        pre.code { font: 12px/1.45 ui-monospace, monospace; max-height: 32rem; overflow: auto; border-radius: 8px; }
        .offscreen { position: fixed; left: -10000px; top: 0; }
        </style>
        <script src="/playground/source.js" defer></script>
        <script src="/playground/playground.js" defer></script>
        </head>
        <body>
        <h1>wallet-orders playground</h1>
        <p id="note">{{notes}} Each step is listed below with the curl command that does the same.</p>
        <div class="columns">
        <div>
        <h2>Order</h2>
        <textarea data-testid="order-editor" id="editor" spellcheck="false" aria-label="order JSON">{{sample}}</textarea>
        <ul class="problems" data-testid="problems" id="problems" aria-live="polite"></ul>
        <button data-testid="pay" id="pay" type="button">Pay</button>
        <button data-testid="update" id="update" type="button" disabled>Update</button>
        <h2>orderDetails (what Apple Pay receives)</h2>
        <pre data-testid="order-details" id="order-details">Not paid yet.</pre>
        <h2>Track with Apple Wallet</h2>
        <p>Away from checkout (an order page, an email), Wallet takes the order from a download link. A shop's page
        makes one when its signed-in customer presses Apple's button; here the link is made at once, and the button
        below stands in for Apple's, which its JavaScript SDK draws.</p>
        <button data-testid="make-link" id="make-link" type="button" disabled>Make a download link</button>
        <a data-testid="wallet-button" id="wallet-button" class="wallet-button" hidden>Track with Apple Wallet</a>
        <pre data-testid="link-snippet" id="link-snippet" hidden></pre>
        </div>
        <div>
        <h2>Preview <select id="localization" aria-label="localization"></select></h2>
        <div data-testid="preview" id="preview"><p>The order the simulated device holds appears here after Pay.</p></div>
        </div>
        </div>
        <h2>Source <span class="hint">the checkout's side of this order, to copy: made again as you edit it, and after Pay with
        what the service issued</span></h2>
        <div data-testid="source" id="source"></div>
        <h2>Transcript</h2>
        <ol class="transcript" data-testid="transcript" id="transcript"></ol>
        </body>
        </html>

        """

    static let script = #"""
        "use strict";
        (() => {
          const $ = (id) => document.getElementById(id);
          const key = document.querySelector('meta[name="playground-key"]').content;
          const devicesOn = document.querySelector('meta[name="playground-devices"]').content === "on";
          const publicURL = document.querySelector('meta[name="playground-public-url"]').content;
          const base = location.origin;
          const editor = $("editor"), problems = $("problems"), pay = $("pay"), update = $("update");
          const details = $("order-details"), transcript = $("transcript"), preview = $("preview"), localization = $("localization");
          const makeLink = $("make-link"), walletButton = $("wallet-button"), linkSnippet = $("link-snippet");
          let order = null;          // {type, id, sent, details}: the order as created or last patched, its orderDetails
          let device = null;         // the simulated device's identifier
          let merchantEntries = [], deviceEntries = [];
          let busy = 0, shownVersion = -1, shownLocalization = null, validateTimer = null, validation = 0;
          let link = null;           // {url, expiresAt}: the download link made last
          let edited = {};           // the editor's order when it last parsed
          const source = window.playgroundSource($("source"), publicURL);

          const quote = (text) => "'" + text.replace(/'/g, "'\\''") + "'";
          const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

          // RFC 7396: the patch that turns `from` into `to`.
          function mergePatch(from, to) {
            if (!isObject(from) || !isObject(to)) return to;
            const patch = {};
            for (const name of Object.keys(from)) if (!(name in to)) patch[name] = null;
            for (const name of Object.keys(to)) {
              if (!(name in from)) patch[name] = to[name];
              else if (isObject(from[name]) && isObject(to[name])) {
                const inner = mergePatch(from[name], to[name]);
                if (Object.keys(inner).length) patch[name] = inner;
              } else if (JSON.stringify(from[name]) !== JSON.stringify(to[name])) patch[name] = to[name];
            }
            return patch;
          }

          async function call(method, path, body, contentType, label) {
            const started = Date.now(), clock = performance.now();
            const headers = {"Authorization": "Bearer " + key};
            if (body !== undefined) headers["Content-Type"] = contentType || "application/json";
            let status = null, json = null, text = "";
            try {
              const response = await fetch(base + path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
              status = response.status;
              text = await response.text();
              try { json = JSON.parse(text); } catch (_) { json = null; }
            } catch (error) { text = String(error); }
            const ms = (performance.now() - clock).toFixed(1);
            if (label) {
              let curl = "curl -i -X " + method + " " + quote(base + path) + " -H \"Authorization: Bearer $KEY\"";
              if (body !== undefined) curl += " -H " + quote("Content-Type: " + (contentType || "application/json")) + " -d " + quote(JSON.stringify(body));
              merchantEntries.push({actor: "merchant", kind: label, epochMilliseconds: started, time: new Date(started).toISOString(),
                                    method, url: base + path, status, milliseconds: ms, detail: summary(label, json, text), curl});
              render();
            }
            return {status, json, text};
          }

          function summary(label, json, text) {
            if (!json) return text.slice(0, 200);
            if (json.error) return json.error + (json.problems ? ": " + json.problems.map((p) => p.path + " " + p.message).join("; ") : "");
            if (label === "create") return "order " + json.orderDetails.orderIdentifier + " created";
            if (label === "update") return "version " + json.version + ", " + json.pushesQueued + " push(es) queued";
            if (label === "link") return "link " + json.id + ", one download, until " + json.expiresAt;
            return "";
          }

          function parsed() {
            try { return {value: JSON.parse(editor.value)}; } catch (error) { return {error: String(error.message || error)}; }
          }

          function showProblems(list, warnings) {
            problems.replaceChildren();
            const add = (kind, path, message) => {
              const item = document.createElement("li");
              item.className = kind;
              item.dataset.path = path;
              const code = document.createElement("code");
              code.className = "path";
              code.textContent = path || "(order)";
              item.append(code, document.createTextNode(" " + message));
              problems.append(item);
            };
            for (const problem of list) add("problem", problem.path, problem.message);
            for (const warning of warnings || []) add("warning", warning.path, "warning: " + warning.message);
            problems.dataset.valid = list.length === 0 ? "true" : "false";
            if (list.length === 0) {
              const item = document.createElement("li");
              item.className = "ok";
              item.textContent = "No problems: Wallet can read this order.";
              problems.append(item);
            }
          }

          async function validate() {
            const ticket = ++validation;
            const input = parsed();
            if (input.error) { showProblems([{path: "(JSON)", message: input.error}]); return; }
            const answer = await call("POST", "/api/v1/orders/validate", input.value);
            if (ticket !== validation) return;
            if (answer.status === 200 && answer.json) showProblems(answer.json.problems, answer.json.warnings);
            else showProblems([{path: "", message: "validation answered " + answer.status + ": " + answer.text}]);
          }

          function showSource() {
            const input = parsed();
            if (!input.error) edited = input.value;
            source.show({order: edited, details: order && order.details, link, stale: Boolean(input.error)});
          }

          editor.addEventListener("input", () => {
            showSource();
            clearTimeout(validateTimer);
            validateTimer = setTimeout(validate, 250);
          });

          pay.addEventListener("click", async () => {
            const input = parsed();
            if (input.error) { showProblems([{path: "(JSON)", message: input.error}]); return; }
            busy++;
            try {
              const created = await call("POST", "/api/v1/orders", input.value, "application/json", "create");
              if (created.status !== 201) {
                if (created.json && created.json.problems) showProblems(created.json.problems);
                return;
              }
              const orderDetails = created.json.orderDetails;
              details.textContent = JSON.stringify(orderDetails, null, 2);
              order = {type: orderDetails.orderTypeIdentifier, id: orderDetails.orderIdentifier, sent: input.value, details: orderDetails};
              showSource();
              update.disabled = false;
              makeLink.disabled = false;
              pay.disabled = true;
              if (devicesOn) {
                const added = await call("POST", "/playground/devices", orderDetails);
                if (added.status === 201) { device = added.json.device; deviceEntries = added.json.entries; refresh(added.json); }
              }
            } finally { busy--; render(); }
          });

          update.addEventListener("click", async () => {
            const input = parsed();
            if (!order || input.error) return;
            const patch = mergePatch(order.sent, input.value);
            if (Object.keys(patch).length === 0) {
              showProblems([{path: "", message: "nothing changed since the last Pay or Update"}]);
              return;
            }
            busy++;
            try {
              const path = "/api/v1/orders/" + encodeURIComponent(order.type) + "/" + encodeURIComponent(order.id);
              const answer = await call("PATCH", path, patch, "application/merge-patch+json", "update");
              if (answer.status === 200) order.sent = input.value;
              else if (answer.json && answer.json.problems) showProblems(answer.json.problems);
            } finally { busy--; }
          });

          makeLink.addEventListener("click", async () => {
            if (!order) return;
            const path = "/api/v1/orders/" + encodeURIComponent(order.type) + "/" + encodeURIComponent(order.id) + "/links";
            const answer = await call("POST", path, undefined, undefined, "link");
            if (answer.status !== 201) return;
            // The link lives under the order's webServiceURL; the page reaches this same service at its own origin.
            const reference = answer.json.url.split("/").pop();
            walletButton.href = base + "/links/" + reference;
            walletButton.hidden = false;
            // A JavaScript string in single quotes, in an attribute in double quotes.
            const target = ("'" + answer.json.url.replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "'")
              .replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
            linkSnippet.textContent = '<apple-wallet-button buttonstyle="black" locale="en-US"\n' +
              '  onclick="window.location = ' + target + '"></apple-wallet-button>';
            linkSnippet.hidden = false;
            link = {url: answer.json.url, expiresAt: answer.json.expiresAt};
            showSource();
          });

          localization.addEventListener("change", () => { shownLocalization = localization.value; shownVersion = -1; });

          async function poll() {
            if (device && busy === 0) {
              const answer = await call("GET", "/playground/devices/" + encodeURIComponent(device));
              if (answer.status === 200 && busy === 0) { deviceEntries = answer.json.entries; refresh(answer.json); render(); }
            }
            setTimeout(poll, 400);
          }

          async function refresh(state) {
            const names = state.localizations || [];
            if (localization.options.length !== names.length) {
              localization.replaceChildren(...names.map((name) => new Option(name, name)));
              if (shownLocalization) localization.value = shownLocalization;
            }
            const wanted = localization.value || null;
            if (!state.holdsOrder || (state.versions === shownVersion && wanted === shownLocalization)) return;
            shownVersion = state.versions;
            shownLocalization = wanted;
            const path = "/playground/devices/" + encodeURIComponent(device) + "/preview" + (wanted ? "?localization=" + encodeURIComponent(wanted) : "");
            const response = await fetch(base + path, {headers: {"Authorization": "Bearer " + key}});
            // The server renders the preview with every value escaped.
            if (response.ok) preview.innerHTML = await response.text();
          }

          function render() {
            const entries = merchantEntries.concat(deviceEntries).map((entry, index) => ({entry, index}));
            entries.sort((a, b) => (a.entry.epochMilliseconds - b.entry.epochMilliseconds) || (a.index - b.index));
            transcript.replaceChildren(...entries.map(({entry}) => {
              const item = document.createElement("li");
              item.className = entry.actor;
              item.dataset.kind = entry.kind;
              if (entry.status !== undefined && entry.status !== null) item.dataset.status = String(entry.status);
              const who = {merchant: "merchant → service", device: "device", apns: "service → APNs"}[entry.actor] || entry.actor;
              let line = entry.time.slice(11, 23) + " " + who + " " + entry.kind;
              if (entry.method) line += " " + entry.method + " " + entry.url + " → " + (entry.status === null || entry.status === undefined ? "no answer" : entry.status);
              if (entry.milliseconds) line += " in " + entry.milliseconds + " ms";
              if (entry.detail) line += ": " + entry.detail;
              const text = document.createElement("span");
              text.textContent = line;
              text.className = entry.status >= 400 ? "status-bad" : "";
              item.append(text);
              if (entry.curl) {
                const curl = document.createElement("pre");
                curl.className = "curl";
                curl.textContent = entry.curl;
                item.append(curl);
              }
              return item;
            }));
          }

          showSource();
          validate();
          poll();
        })();
        """#
}
