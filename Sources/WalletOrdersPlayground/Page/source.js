// The Source view of /playground: for the order on the page, the code of the checkout's side, made again whenever
// the order changes.
//
// Defines playgroundSource(root, publicURL), which draws the view in root and answers {show(state)}: state is
// {order, details, link, stale}, the order as edited, the orderDetails the service answered at Pay (null before), the
// download link made last ({url, expiresAt}, null before) and whether the editor's text no longer parses. Every value
// reaches the page as text, and each reaches the code through its language's own quoting.
"use strict";
window.playgroundSource = (root, publicURL) => {
  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
  // A JavaScript string literal, also inside an HTML <script> element (where "</" or "<!" would end it).
  const js = (text) => JSON.stringify(String(text)).replace(/<(?=[/!])/g, "\\u003c")
    .replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
  const swift = (text) => '"' + String(text).replace(/\\/g, "\\\\").replace(/"/g, '\\"')
    .replace(/[\u0000-\u001f\u007f]/g, (c) => "\\u{" + c.charCodeAt(0).toString(16) + "}") + '"';
  const sh = (text) => "'" + String(text).replace(/'/g, "'\\''") + "'";
  const indent = (text, prefix) => text.split("\n").join("\n" + prefix);
  const path = (value) => encodeURIComponent(String(value));
  const fields = ["orderTypeIdentifier", "orderIdentifier", "webServiceURL", "authenticationToken"];

  // What Apple Pay receives: the service's answer once the order exists; before Pay, what the order names
  // and placeholders that say where the rest comes from.
  function handOff(state) {
    if (state.details) {
      return {details: state.details, comment: "This order's orderDetails, as POST /api/v1/orders answered them."};
    }
    const order = state.order;
    const named = (name) => typeof order[name] === "string" && order[name] !== "";
    return {
      details: {
        orderTypeIdentifier: named("orderTypeIdentifier") ? order.orderTypeIdentifier
          : "<orderTypeIdentifier: the service's Order Type ID>",
        orderIdentifier: named("orderIdentifier") ? order.orderIdentifier
          : "<orderIdentifier: made by the service, as the order names none>",
        webServiceURL: publicURL,
        authenticationToken: "<authenticationToken: made by the service when it creates the order>",
      },
      comment: "Until Pay, <...> stands for what the service makes: POST /api/v1/orders answers it in orderDetails.",
    };
  }

  function paymentRequest(state) {
    const {details, comment} = handOff(state);
    return [
      "// Payment Request API (Safari; iOS 16, macOS 13 and later): Wallet takes the order as the payment completes.",
      "// methodData names \"https://apple.com/apple-pay\" with your merchant identifier; details holds the total.",
      "async function payAndTrack(methodData, details) {",
      "  const request = new PaymentRequest(methodData, details);",
      "  request.onmerchantvalidation = (event) => {",
      "    // As for any Apple Pay payment: your server asks Apple for a merchant session.",
      "    event.complete(fetch(\"/apple-pay/session\", {",
      "      method: \"POST\",",
      "      headers: { \"Content-Type\": \"application/json\" },",
      "      body: JSON.stringify({ validationURL: event.validationURL }),",
      "    }).then((answer) => answer.json()));",
      "  };",
      "  const paymentResponse = await request.show();",
      "  // Your server charges paymentResponse.details.token and creates the order with POST /api/v1/orders.",
      "  // " + comment,
      "  const orderDetails = {",
      ...fields.map((name) => "    " + name + ": " + js(details[name]) + ","),
      "  };",
      "  await paymentResponse.complete(\"success\", { data: { orderDetails } });",
      "}",
    ].join("\n");
  }

  function applePayJS(state) {
    const {details, comment} = handOff(state);
    return [
      "// Apple Pay JS (version 14 and later: iOS 16, macOS 13): Wallet takes the order as the payment completes.",
      "// paymentRequest is an ApplePayPaymentRequest: countryCode, currencyCode, supportedNetworks, total, ...",
      "function payAndTrack(paymentRequest) {",
      "  const session = new ApplePaySession(14, paymentRequest);",
      "  session.onvalidatemerchant = async (event) => {",
      "    // As for any Apple Pay payment: your server asks Apple for a merchant session.",
      "    const answer = await fetch(\"/apple-pay/session\", {",
      "      method: \"POST\",",
      "      headers: { \"Content-Type\": \"application/json\" },",
      "      body: JSON.stringify({ validationURL: event.validationURL }),",
      "    });",
      "    session.completeMerchantValidation(await answer.json());",
      "  };",
      "  session.onpaymentauthorized = (event) => {",
      "    // Your server charges event.payment.token and creates the order with POST /api/v1/orders.",
      "    // " + comment,
      "    const orderDetails = {",
      ...fields.map((name) => "      " + name + ": " + js(details[name]) + ","),
      "    };",
      "    session.completePayment({ status: ApplePaySession.STATUS_SUCCESS, orderDetails });",
      "  };",
      "  session.begin();",
      "}",
    ].join("\n");
  }

  function passKit(state) {
    const {details, comment} = handOff(state);
    return [
      "import PassKit",
      "",
      "// In your PKPaymentAuthorizationControllerDelegate; Wallet takes the order with the result (iOS 16 and later).",
      "func paymentAuthorizationController(",
      "    _ controller: PKPaymentAuthorizationController,",
      "    didAuthorizePayment payment: PKPayment,",
      "    handler completion: @escaping (PKPaymentAuthorizationResult) -> Void",
      ") {",
      "    // Your server charges payment.token and creates the order with POST /api/v1/orders.",
      "    // " + comment,
      "    let result = PKPaymentAuthorizationResult(status: .success, errors: nil)",
      "    result.orderDetails = PKPaymentOrderDetails(",
      "        orderTypeIdentifier: " + swift(details.orderTypeIdentifier) + ",",
      "        orderIdentifier: " + swift(details.orderIdentifier) + ",",
      "        webServiceURL: URL(string: " + swift(details.webServiceURL) + ")!,",
      "        authenticationToken: " + swift(details.authenticationToken),
      "    )",
      "    completion(result)",
      "}",
    ].join("\n");
  }

  // The shop's own order number, by which its server finds the hand-off, and the route of that server that the
  // page or the app calls: {orderNumber} stands in the path when the order names none.
  function numbered(state) {
    const number = state.order.orderNumber;
    const known = typeof number === "string" && number !== "";
    return {known, route: "/checkout/orders/" + (known ? path(number) : "{orderNumber}") + "/order-details"};
  }

  // The shop's server for the payment SDKs that ask for the hand-off once the payment succeeds (Stripe's, Adyen's):
  // it finds the order by the shop's own number, with the merchant key that only the server holds.
  function lookup(state) {
    const {details, comment} = handOff(state);
    const {known, route} = numbered(state);
    return [
      "// On your server (Node.js 18 or later); MERCHANT_KEY is the merchant API key, which never leaves it.",
      "// Your route GET " + route + " answers orderDetailsFor(orderNumber) as JSON (404 for null)",
      "// only to the customer whose session placed that order: the token lets whoever holds it follow the order.",
      "async function orderDetailsFor(orderNumber) {",
      "  const response = await fetch(" + js(publicURL + "/api/v1/orders?orderNumber=") +
        " + encodeURIComponent(orderNumber), {",
      "    headers: { \"Authorization\": \"Bearer \" + process.env.MERCHANT_KEY },",
      "  });",
      "  const answer = await response.json();",
      "  if (response.status !== 200) {",
      "    throw new Error(answer.error);",
      "  }",
      "  // The orders with this number, newest first; none until your server has created it.",
      "  if (answer.orders.length === 0) {",
      "    return null;",
      "  }",
      ...(known ? [] : ["  // This order names no orderNumber: the lookup finds none until it does."]),
      "  // " + comment,
      "  // For this order, it answers:",
      ...fields.map((name) => "  //   " + name + ": " + js(details[name]) + ","),
      "  return answer.orders[0].orderDetails;",
      "}",
    ].join("\n");
  }

  function stripe(state) {
    const {route} = numbered(state);
    return [
      "// Stripe's iOS SDK: PaymentSheet calls authorizationResultHandler once the payment is confirmed, before the",
      "// Apple Pay sheet closes, and Wallet takes the orderDetails set on the result. The app asks your server for them,",
      "// which asks this service by the shop's own order number. (In React Native, setOrderTracking, in",
      "// initPaymentSheet's applePay or on PlatformPayButton, hands the same four values to its completion:",
      "// completion(orderIdentifier, orderTypeIdentifier, authenticationToken, webServiceUrl).)",
      "",
      lookup(state),
      "",
      "// In your app (Swift, StripePaymentSheet; Wallet takes the order on iOS 16 and later):",
      "import PassKit",
      "import StripePaymentSheet",
      "",
      "struct OrderDetails: Decodable {",
      "    let orderTypeIdentifier: String",
      "    let orderIdentifier: String",
      "    let webServiceURL: String",
      "    let authenticationToken: String",
      "}",
      "",
      "func applePayConfiguration(merchantId: String, merchantCountryCode: String) -> PaymentSheet.ApplePayConfiguration {",
      "    PaymentSheet.ApplePayConfiguration(",
      "        merchantId: merchantId,",
      "        merchantCountryCode: merchantCountryCode,",
      "        customHandlers: .init(authorizationResultHandler: { result in",
      "            // Your server's route above, called as the customer, as your app's other calls to it are.",
      "            let url = URL(string: " + swift("https://shop.example.com" + route) + ")!",
      "            do {",
      "                let (data, response) = try await URLSession.shared.data(from: url)",
      "                guard (response as? HTTPURLResponse)?.statusCode == 200 else { return result }",
      "                let details = try JSONDecoder().decode(OrderDetails.self, from: data)",
      "                guard let webServiceURL = URL(string: details.webServiceURL) else { return result }",
      "                result.orderDetails = PKPaymentOrderDetails(",
      "                    orderTypeIdentifier: details.orderTypeIdentifier,",
      "                    orderIdentifier: details.orderIdentifier,",
      "                    webServiceURL: webServiceURL,",
      "                    authenticationToken: details.authenticationToken",
      "                )",
      "            } catch {",
      "                // The payment stands all the same; only Wallet does not take the order.",
      "            }",
      "            return result",
      "        })",
      "    )",
      "}",
    ].join("\n");
  }

  function adyen(state) {
    const {route} = numbered(state);
    return [
      "// Adyen Web 6: its Apple Pay component calls onOrderTrackingRequest once the payment succeeds, before the",
      "// Apple Pay sheet closes, and Wallet takes the orderDetails given to resolve(). The page asks your server for",
      "// them, which asks this service by the shop's own order number.",
      "",
      lookup(state),
      "",
      "// In the browser, with Adyen Web from Adyen's CDN (from npm: import { ApplePay } from \"@adyen/adyen-web\").",
      "// checkout is your AdyenCheckout instance; its onSubmit makes the payment, as for any Apple Pay payment.",
      "const { ApplePay } = window.AdyenWeb;",
      "",
      "function mountApplePay(checkout, container) {",
      "  const applePay = new ApplePay(checkout, {",
      "    onOrderTrackingRequest: async (resolve, reject) => {",
      "      // Your server's route above. reject() leaves the payment as it is; only Wallet does not take the order.",
      "      try {",
      "        const answer = await fetch(" + js(route) + ", { credentials: \"same-origin\" });",
      "        if (answer.status !== 200) {",
      "          throw new Error(\"no orderDetails: \" + answer.status);",
      "        }",
      "        resolve(await answer.json());",
      "      } catch (_) {",
      "        reject();",
      "      }",
      "    },",
      "  });",
      "  applePay.mount(container);",
      "}",
    ].join("\n");
  }

  function curl(state) {
    return [
      "# Your server creates the order as the payment completes; MERCHANT_KEY is its merchant API key.",
      "curl -s -X POST " + sh(publicURL + "/api/v1/orders") + " \\",
      "  -H \"Authorization: Bearer $MERCHANT_KEY\" \\",
      "  -H 'Content-Type: application/json' \\",
      "  -d " + sh(JSON.stringify(state.order, null, 2)),
      "# 201 {\"orderDetails\": {\"orderTypeIdentifier\", \"orderIdentifier\", \"webServiceURL\", \"authenticationToken\"},",
      "#      \"order\", \"warnings\"}: orderDetails is what the checkout hands Apple Pay.",
      "# 400 {\"error\", \"problems\": [{\"path\", \"message\"}]} · 409 the orderIdentifier is taken · 401 a wrong key",
    ].join("\n");
  }

  function node(state) {
    return [
      "// Node.js 18 or later, on your server: create the order, then hand its orderDetails to the checkout.",
      "// MERCHANT_KEY is the merchant API key; it never goes to the browser or the app.",
      "const order = " + JSON.stringify(state.order, null, 2) + ";",
      "",
      "async function createOrder(order) {",
      "  const response = await fetch(" + js(publicURL + "/api/v1/orders") + ", {",
      "    method: \"POST\",",
      "    headers: {",
      "      \"Authorization\": \"Bearer \" + process.env.MERCHANT_KEY,",
      "      \"Content-Type\": \"application/json\",",
      "    },",
      "    body: JSON.stringify(order),",
      "  });",
      "  const answer = await response.json();",
      "  if (response.status !== 201) {",
      "    // 400: answer.problems lists each {path, message}; 409: the orderIdentifier is taken.",
      "    throw new Error(answer.error);",
      "  }",
      "  // answer.order is the order as stored; answer.warnings, what devices before iOS 17 do not show.",
      "  return answer.orderDetails;",
      "}",
      "",
      "createOrder(order).then((orderDetails) => console.log(orderDetails));",
    ].join("\n");
  }

  function walletButton(state) {
    // Before Pay, the identifiers the service makes stand as {placeholders} in the path.
    const known = (name) => state.details ? path(state.details[name])
      : typeof state.order[name] === "string" && state.order[name] !== "" ? path(state.order[name]) : "{" + name + "}";
    const links = publicURL + "/api/v1/orders/" + known("orderTypeIdentifier") + "/" + known("orderIdentifier") + "/links";
    const orderNumber = typeof state.order.orderNumber === "string" ? state.order.orderNumber : "1001";
    const head = [
      "<!-- Track with Apple Wallet (iOS 17, macOS 14): Apple's button, drawn by Apple Pay's JavaScript SDK,",
      "     takes the order from a download link this service makes. -->",
      "<script async crossorigin src=\"https://applepay.cdn-apple.com/jsapi/1.latest/apple-pay-sdk.js\"></script>",
      "",
      "<apple-wallet-button buttonstyle=\"black\" locale=\"en-US\" onclick=\"trackInWallet()\"></apple-wallet-button>",
      "<script>",
    ];
    const body = state.link ? [
      "  function trackInWallet() {",
      "    // The link made above: one download, until " + state.link.expiresAt.replace(/[^0-9A-Za-z:.+-]/g, "") + ".",
      "    // A shop's page makes a fresh one at each press, from a route that checks the customer's session:",
      "    // POST " + links,
      "    window.location = " + js(state.link.url) + ";",
      "  }",
    ] : [
      "  async function trackInWallet() {",
      "    // Your route checks the customer's session, then asks this service for a link to the order:",
      "    // POST " + links + " answers {\"url\", \"expiresAt\"}.",
      "    const answer = await fetch(" + js("/account/orders/" + path(orderNumber) + "/wallet-link") +
        ", { method: \"POST\", credentials: \"same-origin\" });",
      "    window.location = (await answer.json()).url;",
      "  }",
    ];
    return head.concat(body, ["</script>"]).join("\n");
  }

  const snippets = [
    {name: "payment-request", title: "Payment Request API", make: paymentRequest,
     about: "In the browser: PaymentResponse.complete() hands orderDetails to Wallet."},
    {name: "apple-pay-js", title: "Apple Pay JS", make: applePayJS,
     about: "In the browser: ApplePaySession.completePayment() hands orderDetails to Wallet."},
    {name: "passkit", title: "iOS (PassKit)", make: passKit,
     about: "In an app: PKPaymentAuthorizationResult.orderDetails, a PKPaymentOrderDetails."},
    {name: "stripe", title: "Stripe", make: stripe,
     about: "With Stripe's iOS SDK: PaymentSheet's authorizationResultHandler sets orderDetails, which the app " +
       "asks of your server, and your server of this service by the order number."},
    {name: "adyen", title: "Adyen", make: adyen,
     about: "With Adyen Web: the Apple Pay component's onOrderTrackingRequest resolves orderDetails, which the page " +
       "asks of your server, and your server of this service by the order number."},
    {name: "curl", title: "Server: curl", make: curl,
     about: "On the shop's server: the merchant API call that creates this order and answers its orderDetails."},
    {name: "node", title: "Server: Node.js", make: node,
     about: "On the shop's server: the same call with fetch, reading orderDetails from the answer."},
    {name: "wallet-button", title: "Track with Apple Wallet", make: walletButton,
     about: "Away from checkout: Apple's button, through a download link (Make a download link uses the one made)."},
  ];

  const note = document.createElement("p");
  note.className = "source-note";
  note.dataset.testid = "source-note";
  const tablist = document.createElement("div");
  tablist.className = "tabs";
  tablist.setAttribute("role", "tablist");
  tablist.setAttribute("aria-label", "source");
  root.append(note, tablist);
  for (const [index, snippet] of snippets.entries()) {
    const tab = document.createElement("button");
    tab.type = "button";
    tab.id = "source-tab-" + snippet.name;
    tab.dataset.testid = tab.id;
    tab.textContent = snippet.title;
    tab.setAttribute("role", "tab");
    tab.setAttribute("aria-controls", "source-panel-" + snippet.name);
    tab.addEventListener("click", () => select(index));
    tab.addEventListener("keydown", (event) => {
      const step = {ArrowRight: 1, ArrowLeft: -1}[event.key];
      if (step) { select((index + step + snippets.length) % snippets.length); snippets[selected].tab.focus(); }
    });
    const panel = document.createElement("div");
    panel.id = "source-panel-" + snippet.name;
    panel.dataset.testid = panel.id;
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", tab.id);
    const head = document.createElement("div");
    head.className = "source-head";
    const about = document.createElement("p");
    about.textContent = snippet.about;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.dataset.testid = "copy-" + snippet.name;
    button.textContent = "Copy";
    const code = document.createElement("pre");
    code.className = "code";
    code.dataset.testid = "source-" + snippet.name;
    button.addEventListener("click", () => copy(code, button));
    head.append(about, button);
    panel.append(head, code);
    tablist.append(tab);
    root.append(panel);
    Object.assign(snippet, {tab, panel, code});
  }

  let selected = 0;
  function select(index) {
    selected = index;
    for (const [other, snippet] of snippets.entries()) {
      snippet.tab.setAttribute("aria-selected", other === index ? "true" : "false");
      snippet.tab.tabIndex = other === index ? 0 : -1;
      snippet.panel.hidden = other !== index;
    }
  }
  select(0);

  async function copy(code, button) {
    const text = code.textContent;
    let how = "clipboard";
    try {
      if (!navigator.clipboard) throw new Error("no Clipboard API");
      await navigator.clipboard.writeText(text);
    } catch (_) {
      how = copyBySelection(text, button) ? "selection" : "";
    }
    button.dataset.copied = how || "failed";
    if (!how) {
      // Nothing copied: select the code, for the reader's own Ctrl-C.
      getSelection().selectAllChildren(code);
    }
    button.textContent = how ? "Copied" : "Press Ctrl-C";
    clearTimeout(button.reset);
    button.reset = setTimeout(() => { button.textContent = "Copy"; }, 2000);
  }

  // Without the Clipboard API (a page served over plain http to another machine, an older browser) or
  // when it is refused, the selection of a text area is copied instead.
  function copyBySelection(text, button) {
    const area = document.createElement("textarea");
    area.className = "offscreen";
    area.value = text;
    area.setAttribute("readonly", "");
    area.setAttribute("aria-hidden", "true");
    document.body.append(area);
    area.select();
    let copied = false;
    try { copied = document.execCommand("copy"); } catch (_) { copied = false; }
    area.remove();
    button.focus();
    return copied;
  }

  return {
    show(state) {
      const shown = {...state, order: isObject(state.order) ? state.order : {}};
      note.textContent = (state.details
        ? "After Pay: the code holds this order's orderDetails as the service issued them."
        : "Before Pay: the code holds the order as edited; Pay fills in what the service makes.") +
        (state.stale ? " The editor's JSON does not parse: this is the last order that did." : "");
      for (const snippet of snippets) snippet.code.textContent = snippet.make(shown);
    },
  };
};
