"""The playground's whole cycle in real headless Chromium: a bad status is shown at its path, fixed; Pay creates
the order and a simulated device registers; a download link is made; Update changes a fulfillment and the
transcript shows the push, the listing, the conditional fetch and the check, and the preview the new status; the
"Track with Apple Wallet" button then downloads the order through the link made before the update. All along, the
Source view's code follows the order as edited, names the orderDetails the service issued once it exists, parses,
and its Copy buttons copy it; the server's part of the Stripe and Adyen code, run in the page, finds those
orderDetails by the order number, and the tabs answer clicks and arrow keys. Keeps screenshots, the downloaded .order
and the last code shown (source/, the Stripe and Adyen code also in its parts) in OUTPUT_DIR.

    playground.py BASE_URL OUTPUT_DIR
Exits 1 with the reason on the first thing that is not as it should be."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from html.parser import HTMLParser

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE, OUTPUT = sys.argv[1], sys.argv[2]
os.makedirs(OUTPUT, exist_ok=True)

ORDER = {
    "orderNumber": "1001",
    "orderManagementURL": "https://shop.example.com/account/orders/1001",
    "status": "opened",
    "statusDescription": "STATUS_PROCESSING",
    "payment": {"total": {"amount": 24.9, "currency": "EUR"}, "status": "paid"},
    "lineItems": [{"title": "ITEM_MUG", "quantity": 2, "image": "mug.png", "price": {"amount": 12.45, "currency": "EUR"}}],
    "fulfillments": [{"fulfillmentType": "shipping", "fulfillmentIdentifier": "parcel-1", "status": "processing",
                      "carrier": "Example Post"}],
}

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,2000"]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
DOWNLOADS = os.path.join(OUTPUT, "downloads")
os.makedirs(DOWNLOADS, exist_ok=True)
for name in os.listdir(DOWNLOADS):
    os.remove(os.path.join(DOWNLOADS, name))
options.add_experimental_option("prefs", {"download.default_directory": DOWNLOADS, "download.prompt_for_download": False})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": DOWNLOADS})
# The page redraws the transcript at each poll: an element read between two redraws may be gone.
wait = WebDriverWait(driver, 60, poll_frequency=0.2, ignored_exceptions=[StaleElementReferenceException])


def testid(name):
    return driver.find_element(By.CSS_SELECTOR, f'[data-testid="{name}"]')


def fail(message):
    path = os.path.join(OUTPUT, "playground-failure.png")
    driver.save_screenshot(path)
    print(f"FAIL: {message}\nscreenshot: {path}\ntranscript:\n{testid('transcript').text}", file=sys.stderr)
    driver.quit()
    sys.exit(1)


def until(what, condition):
    try:
        return wait.until(lambda _: condition())
    except Exception as error:  # a timeout, or the page gone
        fail(f"{what}: {type(error).__name__}")


def type_order(order):
    editor = testid("order-editor")
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.DELETE)
    editor.send_keys(json.dumps(order, indent=2))


SNIPPETS = {"payment-request": "js", "apple-pay-js": "js", "passkit": "swift", "stripe": "txt", "adyen": "js",
            "curl": "sh", "node": "js", "wallet-button": "html"}
# Stripe's and Adyen's code is two programs: the shop's server's, then the app's or the page's.
PARTS = {"stripe": ("server.js", "app.swift"), "adyen": ("server.js", "browser.js")}
FIELDS = ["orderTypeIdentifier", "orderIdentifier", "webServiceURL", "authenticationToken"]


def source(name):
    """The code a Source tab shows, whether or not its tab is the one open."""
    return driver.execute_script("return document.querySelector(arguments[0]).textContent",
                                 f'[data-testid="source-{name}"]')


def sources():
    return {name: source(name) for name in SNIPPETS}


def parts(code, name):
    """The shop's server's part of the Stripe or Adyen code, and the app's or the page's: each starts at its heading."""
    text = code[name]
    server = text.find("\n// On your server")
    client = text.find("\n// In ", server + 1)
    if server < 0 or client < 0:
        fail(f"{name} has no server part followed by its app's or page's: {text}")
    return text[server + 1:client], text[client + 1:]


def route(order_number):
    """The path of the shop's route that the Stripe and Adyen code asks for the orderDetails."""
    return "/checkout/orders/" + urllib.parse.quote(order_number, safe="") + "/order-details"


def routes_problem(code, order_number):
    """What the Stripe and Adyen code gets wrong about the route for `order_number`, or None."""
    path = route(order_number)
    expected = {"stripe": f'let url = URL(string: "https://shop.example.com{path}")!',
                "adyen": f'const answer = await fetch("{path}", {{ credentials: "same-origin" }});'}
    for name, line in expected.items():
        if line not in parts(code, name)[1]:
            return f"{name} does not call its route for order number {order_number}: {code[name]}"
    return None


def hand_off_problem(code, details):
    """What the Apple Pay hand-off code gets wrong about `details` (the four orderDetails values), or None."""
    for name in ["payment-request", "apple-pay-js", "stripe", "adyen"]:
        for field in FIELDS:
            if f"{field}: {json.dumps(details[field])}," not in code[name]:
                return f"{name} does not name {field} {details[field]}: {code[name]}"
    # These values need no escaping, so a JSON string is also the Swift literal.
    for field in FIELDS:
        written = json.dumps(details[field])
        expected = f"webServiceURL: URL(string: {written})!" if field == "webServiceURL" else f"{field}: {written}"
        if expected not in code["passkit"]:
            return f"passkit does not name {field} {details[field]}: {code['passkit']}"
    return None


def created_order(code):
    """The order the curl command and the Node.js code would create, each read back as its language reads it."""
    words = shlex.split(code["curl"], comments=True)
    from_curl = json.loads(words[words.index("-d") + 1])
    literal = re.search(r"^const order = (.*?);$", code["node"], re.S | re.M)
    from_node = json.loads(literal.group(1)) if literal else None
    return from_curl, from_node


def check_code_parses(code, stage):
    """Each JavaScript snippet (the Stripe and Adyen code's JavaScript parts each on its own, and the inline script of
    the button's HTML) compiles in Chromium, and with node when it is installed."""
    scripts = {name: code[name] for name, language in SNIPPETS.items() if language == "js" and name not in PARTS}
    for name, files in PARTS.items():
        for file, part in zip(files, parts(code, name)):
            if file.endswith(".js"):
                scripts[f"{name}-{file[:-3]}"] = part
    inline = re.findall(r"<script>(.*?)</script>", code["wallet-button"], re.S)
    if len(inline) != 1:
        fail(f"{stage}: the button's HTML has not one inline script: {code['wallet-button']}")
    scripts["wallet-button-0"] = inline[0]
    for name, script in scripts.items():
        compiled = driver.execute_cdp_cmd("Runtime.compileScript",
                                          {"expression": script, "sourceURL": f"{name}.js", "persistScript": False})
        if "exceptionDetails" in compiled:
            fail(f"{stage}: {name} does not parse in Chromium: {compiled['exceptionDetails']}\n{script}")
    if shutil.which("node"):
        folder = os.path.join(OUTPUT, "node-check")
        os.makedirs(folder, exist_ok=True)
        for name, script in scripts.items():
            path = os.path.join(folder, f"{name}.js")
            with open(path, "w") as file:
                file.write(script)
            checked = subprocess.run(["node", "--check", path], capture_output=True, text=True)
            if checked.returncode != 0:
                fail(f"{stage}: {name} does not parse with node: {checked.stderr}")


def in_page(what, script):
    """What `script`, an expression, comes to in the page once its promise settles."""
    answer = driver.execute_cdp_cmd("Runtime.evaluate", {"expression": script, "awaitPromise": True, "returnByValue": True})
    if "exceptionDetails" in answer:
        fail(f"{what} does not run: {answer['exceptionDetails']}\n{script}")
    return answer["result"]["value"]


def server_scope(code, name, key, public_url):
    """The server's part of the Stripe or Adyen code as a function of its own, which answers its orderDetailsFor when
    given fetch and a process whose MERCHANT_KEY is `key`. The service's public URL in the code becomes BASE: a server
    started on port 0 names port 0 in its public URL."""
    lookup = json.dumps(public_url + "/api/v1/orders?orderNumber=")
    server = parts(code, name)[0]
    if server.count(lookup) != 1:
        fail(f"the server's part of {name} does not look the order up at {public_url}: {server}")
    server = server.replace(lookup, json.dumps(BASE + "/api/v1/orders?orderNumber="))
    return ("((fetch, process) => {\n" + server + "\nreturn orderDetailsFor;\n})(window.fetch.bind(window), " +
            "{env: {MERCHANT_KEY: " + json.dumps(key) + "}})")


def lookup_by_number(code, name, order_number, key, public_url):
    """Runs the server's part of the Stripe or Adyen code in the page, as the shop's server would run it, and answers
    what its orderDetailsFor(order_number) returns (or the error it throws)."""
    return in_page(f"the server's part of {name}", "(async () => { const orderDetailsFor = " +
                   server_scope(code, name, key, public_url) + ";\ntry { return {details: await orderDetailsFor(" +
                   json.dumps(order_number) + ")}; } catch (error) { return {error: String(error)}; } })()")


def adyen_hand_off(code, key, public_url):
    """Runs the whole Adyen code in the page: its browser part with a stand-in for Adyen Web's ApplePay (as Adyen Web
    declares it: new ApplePay(checkout, configuration), mount(container), configuration.onOrderTrackingRequest(resolve,
    reject)), whose fetch of the shop's route gets what the server's part answers for the number in the route's path.
    Answers {resolved: the orderDetails given to resolve} or {rejected: true}."""
    return in_page("the Adyen code", "(async () => { const orderDetailsFor = " + server_scope(code, "adyen", key, public_url) +
                   """;
const route = async (url) => {
  const match = /^\\/checkout\\/orders\\/([^/]+)\\/order-details$/.exec(url);
  const details = match && await orderDetailsFor(decodeURIComponent(match[1]));
  return details ? new Response(JSON.stringify(details), {status: 200}) : new Response("", {status: 404});
};
const mounted = [];
const AdyenWeb = {ApplePay: class { constructor(checkout, configuration) { this.configuration = configuration; }
                                    mount(container) { mounted.push(this); } }};
const mountApplePay = ((fetch, window) => {
""" + parts(code, "adyen")[1] + """
return mountApplePay;
})(route, {AdyenWeb});
mountApplePay({}, "#apple-pay");
return await new Promise((settle) => mounted[0].configuration.onOrderTrackingRequest(
  (orderDetails) => settle({resolved: orderDetails}), () => settle({rejected: true})));
})()""")


def tabs():
    """The Source view's tabs in order, which one is selected and focused, and which panels show."""
    return driver.execute_script(
        "const root = document.querySelector('[data-testid=source]');"
        "return {tabs: Array.from(root.querySelectorAll('[role=tab]')).map((tab) => tab.dataset.testid),"
        " selected: Array.from(root.querySelectorAll('[role=tab][aria-selected=true]')).map((tab) => tab.dataset.testid),"
        " focused: document.activeElement.dataset.testid || null,"
        " shown: Array.from(root.querySelectorAll('[role=tabpanel]')).filter((panel) => panel.offsetParent !== null)"
        "   .map((panel) => panel.dataset.testid)}")


def copy_and_read(name):
    """Opens the tab, presses its Copy button, and answers how it copied and what the clipboard then holds."""
    testid(f"source-tab-{name}").click()
    testid(f"copy-{name}").click()
    until(f"the Copy button of {name} answers", lambda: testid(f"copy-{name}").get_attribute("data-copied"))
    how = testid(f"copy-{name}").get_attribute("data-copied")
    held = driver.execute_async_script(
        "const done = arguments[0]; navigator.clipboard.readText().then(done, (error) => done('no clipboard: ' + error))")
    return how, held


def onclick_of_button(html):
    """The onclick attribute of the <apple-wallet-button> in `html`, as an HTML parser reads it."""
    found = []
    parser = HTMLParser()
    parser.handle_starttag = lambda tag, attributes: found.extend(
        value for name, value in attributes if tag == "apple-wallet-button" and name == "onclick")
    parser.feed(html)
    parser.close()
    return found[0] if found else None


def entries():
    """The transcript's lines as (actor, kind, status) in the order shown, read in one go."""
    return [tuple(line) for line in driver.execute_script(
        "return Array.from(document.querySelectorAll('[data-testid=transcript] li'))"
        ".map((li) => [li.className, li.dataset.kind, li.dataset.status || null])")]


try:
    driver.get(f"{BASE}/playground")
    until("the sample order is judged valid", lambda: testid("problems").get_attribute("data-valid") == "true")

    # A bad status: the problem is shown at its path.
    type_order(ORDER)
    until("the bad status is shown at its path",
          lambda: testid("problems").find_elements(By.CSS_SELECTOR, 'li.problem[data-path="status"]'))
    problem = testid("problems").find_element(By.CSS_SELECTOR, 'li.problem[data-path="status"]').text
    print(f"problem shown: {problem}")

    ORDER["status"] = "open"
    type_order(ORDER)
    until("the fixed order is valid", lambda: testid("problems").get_attribute("data-valid") == "true")

    # The Source view before Pay: the order as edited, placeholders for what the service makes, and code that parses.
    public_url = driver.find_element(By.CSS_SELECTOR, 'meta[name="playground-public-url"]').get_attribute("content")
    key = driver.find_element(By.CSS_SELECTOR, 'meta[name="playground-key"]').get_attribute("content")
    ORDER["orderIdentifier"] = "A-1001"
    type_order(ORDER)
    until("the Source view names the identifier typed",
          lambda: f"orderIdentifier: {json.dumps(ORDER['orderIdentifier'])}," in source("payment-request"))
    code = sources()
    if created_order(code) != (ORDER, ORDER):
        fail(f"curl and Node.js do not create the order as edited: {created_order(code)}")
    if f"webServiceURL: {json.dumps(public_url)}," not in code["apple-pay-js"]:
        fail(f"the hand-off before Pay does not name the service's URL {public_url}: {code['apple-pay-js']}")
    if public_url + "/api/v1/orders" not in code["curl"]:
        fail(f"curl does not call the service's public URL {public_url}: {code['curl']}")
    if not all("authenticationToken: made by the service" in code[name] for name in ["payment-request", "passkit", "adyen"]):
        fail(f"before Pay, the token is not a placeholder that says where it comes from: {code['passkit']}")
    if routes_problem(code, ORDER["orderNumber"]):
        fail(routes_problem(code, ORDER["orderNumber"]))
    if not all(f'fetch({json.dumps(public_url + "/api/v1/orders?orderNumber=")} + encodeURIComponent(orderNumber)'
               in parts(code, name)[0] for name in PARTS):
        fail(f"the server's part does not look the order up by number at {public_url}: {code['adyen']}")
    check_code_parses(code, "before Pay")

    # Editing the identifier and the order number changes the code; the number needs escaping in a path, and in the
    # lookup's query when the server's code runs after Pay.
    ORDER["orderIdentifier"] = "A-1002"
    ORDER["orderNumber"] = "#1002/B 7"
    type_order(ORDER)
    until("the Source view follows the identifier and the number edited",
          lambda: all(f"orderIdentifier: {json.dumps(ORDER['orderIdentifier'])}," in source(name)
                      for name in ["payment-request", "apple-pay-js", "stripe", "adyen"]) and
          created_order(sources()) == (ORDER, ORDER) and routes_problem(sources(), ORDER["orderNumber"]) is None)
    if any("A-1001" in text or "/checkout/orders/1001/" in text for text in sources().values()):
        fail(f"the identifier or the number edited away is still in the code: {sources()}")
    until("the order with its identifier is valid", lambda: testid("problems").get_attribute("data-valid") == "true")

    # Pay: orderDetails shown, the simulated device fetches, checks and registers.
    testid("pay").click()
    until("orderDetails are shown", lambda: "authenticationToken" in testid("order-details").text)
    details = json.loads(testid("order-details").text)
    print(f"orderDetails: {details['orderTypeIdentifier']} / {details['orderIdentifier']} at {details['webServiceURL']}")

    # The Source view after Pay: the orderDetails of the order the service holds, token and all.
    path = "/".join(urllib.parse.quote(details[field], safe="") for field in FIELDS[:2])
    request = urllib.request.Request(f"{BASE}/api/v1/orders/{path}", headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request) as answer:
        held = json.load(answer)["order"]
    issued = {field: held[field] for field in FIELDS}
    if issued != {field: details[field] for field in FIELDS} or issued["orderIdentifier"] != ORDER["orderIdentifier"]:
        fail(f"the page's orderDetails {details} are not the order the service holds: {issued}")
    until("the Source view holds the orderDetails the service issued",
          lambda: hand_off_problem(sources(), issued) is None)
    if any("made by the service" in text for text in sources().values()):
        fail(f"a placeholder is left after Pay: {sources()}")
    # The shop's server, as the Stripe and Adyen code writes it, finds the same orderDetails by the order number.
    for name in PARTS:
        found = lookup_by_number(sources(), name, ORDER["orderNumber"], key, public_url)
        if found != {"details": issued}:
            fail(f"the server's part of {name} finds {found} by number {ORDER['orderNumber']}, not {issued}")
    if lookup_by_number(sources(), "adyen", "no-such-number", key, public_url) != {"details": None}:
        fail("the server's part of adyen finds an order for a number no order has")
    # The page's part hands Adyen's component what the shop's route answers.
    handed = adyen_hand_off(sources(), key, public_url)
    if handed != {"resolved": issued}:
        fail(f"the Adyen code hands Apple Pay {handed}, not {issued}")

    # Stripe and Adyen sit beside PassKit: a click selects a tab, the arrow keys move along them, and only the
    # selected tab's panel shows.
    listed = tabs()["tabs"]
    if listed[:5] != [f"source-tab-{name}" for name in ["payment-request", "apple-pay-js", "passkit", "stripe", "adyen"]]:
        fail(f"the Source view's tabs are not in order: {listed}")
    testid("source-tab-passkit").click()
    for key_pressed, name in [(Keys.ARROW_RIGHT, "stripe"), (Keys.ARROW_RIGHT, "adyen"), (Keys.ARROW_LEFT, "stripe")]:
        driver.switch_to.active_element.send_keys(key_pressed)
        expected = {"selected": [f"source-tab-{name}"], "focused": f"source-tab-{name}", "shown": [f"source-panel-{name}"]}
        until(f"the arrow keys select {name}", lambda: {k: v for k, v in tabs().items() if k != "tabs"} == expected)
    testid("source-tab-adyen").click()
    until("a click selects adyen", lambda: tabs()["shown"] == ["source-panel-adyen"])
    if not testid("source-adyen").is_displayed() or "onOrderTrackingRequest" not in source("adyen"):
        fail(f"the Adyen tab does not show its code: {source('adyen')}")
    until("the device registers (201)", lambda: ("device", "register", "201") in entries())
    until("the preview shows the order", lambda: "Processing" in testid("preview").text)
    if "Ceramic mug" not in testid("preview").text or not testid("preview").find_elements(By.CSS_SELECTOR, "ul.line-items img"):
        fail(f"the preview lacks the localized line item and its image: {testid('preview').text}")

    # A download link, made now, before the update it will serve.
    if testid("wallet-button").is_displayed():
        fail("the Track with Apple Wallet button shows before a link is made")
    testid("make-link").click()
    until("the link is made (201)", lambda: ("merchant", "link", "201") in entries())
    until("the button appears", lambda: testid("wallet-button").is_displayed())
    if "<apple-wallet-button" not in testid("link-snippet").text:
        fail(f"no snippet for Apple's button: {testid('link-snippet').text}")
    reference = testid("wallet-button").get_attribute("href").rsplit("/", 1)[1]
    # The snippet is HTML whose button's onclick goes to the link.
    onclick = onclick_of_button(testid("link-snippet").text)
    if not re.fullmatch(r"window\.location = '[^']*/links/" + reference + "'", onclick or ""):
        fail(f"the link snippet's onclick is not the link: {onclick!r} in {testid('link-snippet').text}")
    until("the Source view's button goes to the link made",
          lambda: re.search(r'window\.location = "[^"]*/links/' + reference + '";', source("wallet-button")))

    # Update a fulfillment: push, listing, conditional fetch, check, and the new status in the preview.
    ORDER["fulfillments"][0].update(status="onTheWay", trackingNumber="EP123456789FR",
                                    trackingURL="https://post.example.com/track/EP123456789FR")
    type_order(ORDER)
    until("the updated order is valid", lambda: testid("problems").get_attribute("data-valid") == "true")
    until("curl and Node.js create the order as edited after Pay", lambda: created_order(sources()) == (ORDER, ORDER))
    if hand_off_problem(sources(), issued):
        fail(f"editing the order after Pay lost its orderDetails: {hand_off_problem(sources(), issued)}")
    testid("update").click()
    until("the update is answered 200", lambda: ("merchant", "update", "200") in entries())
    until("the re-fetched version is checked", lambda: [e[1] for e in entries()].count("verified") >= 2)
    shown = entries()
    start = shown.index(("merchant", "update", "200"))
    after = shown[start:]
    expected = [("apns", "apns", "200"), ("device", "push", None), ("device", "list", "200"), ("device", "fetch", "200"),
                ("device", "verified", None)]
    positions = []
    for step in expected:
        if step not in after:
            fail(f"{step} is missing after the update: {after}")
        positions.append(after.index(step))
    if positions != sorted(positions):
        fail(f"the steps after the update are out of order: {after}")
    until("the preview shows the new fulfillment status",
          lambda: "On the way" in testid("preview").text and "EP123456789FR" in testid("preview").text)
    if "Version 2" not in testid("preview").text:
        fail(f"the preview is not of version 2: {testid('preview').text}")
    curls = driver.execute_script(
        "return Array.from(document.querySelectorAll('[data-testid=transcript] pre.curl')).map((pre) => pre.textContent)")
    if not any(c.startswith("curl -i -X PATCH") and "merge-patch+json" in c for c in curls):
        fail(f"no curl for the merge patch: {curls}")
    if any(details["authenticationToken"] in c for c in curls):
        fail("a curl command shows the order's authentication token")

    # The button downloads the order through the link, as Wallet would take it: the version after the update.
    testid("wallet-button").click()
    until("the order is downloaded",
          lambda: [name for name in os.listdir(DOWNLOADS) if name.endswith(".order")])
    downloaded = os.path.join(DOWNLOADS, [name for name in os.listdir(DOWNLOADS) if name.endswith(".order")][0])
    print(f"downloaded: {downloaded}")

    # The other localization of the sample template.
    Select(driver.find_element(By.ID, "localization")).select_by_value("fr")
    until("the French preview", lambda: "Tasse en céramique" in testid("preview").text)
    Select(driver.find_element(By.ID, "localization")).select_by_value("en")
    until("the English preview again", lambda: "Ceramic mug" in testid("preview").text)

    # The code as it stands at the end parses; each Copy button copies its code, through the Clipboard API and,
    # when the page may not write the clipboard, through a selection.
    code = sources()
    check_code_parses(code, "after the update")
    driver.execute_cdp_cmd("Browser.setPermission",
                           {"origin": BASE, "permission": {"name": "clipboard-read"}, "setting": "granted"})
    driver.execute_cdp_cmd("Browser.setPermission",
                           {"origin": BASE, "permission": {"name": "clipboard-write"}, "setting": "granted"})
    how, held = copy_and_read("passkit")
    if how != "clipboard" or held != code["passkit"]:
        fail(f"Copy did not copy the Swift code through the Clipboard API ({how}): {held!r}")
    driver.execute_cdp_cmd("Browser.setPermission",
                           {"origin": BASE, "permission": {"name": "clipboard-write"}, "setting": "denied"})
    how, held = copy_and_read("node")
    if how != "selection" or held != code["node"]:
        fail(f"Copy did not copy the Node.js code through a selection ({how}): {held!r}")
    folder = os.path.join(OUTPUT, "source")
    os.makedirs(folder, exist_ok=True)
    for name, language in SNIPPETS.items():
        with open(os.path.join(folder, f"{name}.{language}"), "w") as file:
            file.write(code[name])
    for name, files in PARTS.items():
        for file, part in zip(files, parts(code, name)):
            with open(os.path.join(folder, f"{name}-{file}"), "w") as written:
                written.write(part)
    print(f"source: {folder}")

    problems = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    if problems:
        fail(f"the browser console reports errors: {problems}")

    for name, screenshot in [("stripe", "source-stripe.png"), ("adyen", "source-adyen.png"),
                             ("payment-request", "source.png")]:
        testid(f"source-tab-{name}").click()
        driver.execute_script("document.querySelector('[data-testid=source]').previousElementSibling.scrollIntoView()")
        driver.save_screenshot(os.path.join(OUTPUT, screenshot))
    driver.execute_script("window.scrollTo(0, 0)")
    screenshot = os.path.join(OUTPUT, "playground.png")
    driver.save_screenshot(screenshot)
    print("transcript after the update:")
    for step in after:
        print(f"  {step}")
    print(f"screenshot: {screenshot}")
finally:
    driver.quit()
