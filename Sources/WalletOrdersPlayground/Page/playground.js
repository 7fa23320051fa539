// /playground's page: validates the order as it is edited, pays (creates it), updates it with a merge patch, makes a
// download link, follows the simulated device, and draws the transcript and the preview. It calls the merchant API
// and the playground's routes with the page's own key, read from <meta name="playground-key">; every value from the
// service reaches the page as text (textContent), but for the preview, which the server renders with every value
// escaped.
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
