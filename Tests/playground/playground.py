"""The playground's whole cycle in real headless Chromium: a bad status is shown at its path, fixed; Pay creates
the order and a simulated device registers; a download link is made; Update changes a fulfillment and the
transcript shows the push, the listing, the conditional fetch and the check, and the preview the new status; the
"Track with Apple Wallet" button then downloads the order through the link made before the update. All along, the
Source view's code follows the order as edited, names the orderDetails the service issued once it exists, parses,
and its Copy buttons copy it. Keeps screenshots, the downloaded .order and the last code shown (source/) in
OUTPUT_DIR.

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


SNIPPETS = {"payment-request": "js", "apple-pay-js": "js", "passkit": "swift", "curl": "sh", "node": "js",
            "wallet-button": "html"}
FIELDS = ["orderTypeIdentifier", "orderIdentifier", "webServiceURL", "authenticationToken"]


def source(name):
    """The code a Source tab shows, whether or not its tab is the one open."""
    return driver.execute_script("return document.querySelector(arguments[0]).textContent",
                                 f'[data-testid="source-{name}"]')


def sources():
    return {name: source(name) for name in SNIPPETS}


def hand_off_problem(code, details):
    """What the Apple Pay hand-off code gets wrong about `details` (the four orderDetails values), or None."""
    for name in ["payment-request", "apple-pay-js"]:
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
    """Each JavaScript snippet (and each inline script of the button's HTML) compiles in Chromium, and with node when
    it is installed; the HTML of the link snippet puts the link in the button's onclick."""
    scripts = {name: code[name] for name, language in SNIPPETS.items() if language == "js"}
    for index, script in enumerate(re.findall(r"<script>(.*?)</script>", code["wallet-button"], re.S)):
        scripts[f"wallet-button-{index}"] = script
    if len(scripts) != 4:
        fail(f"{stage}: the button's HTML has no inline script: {code['wallet-button']}")
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
    if not all("authenticationToken: made by the service" in code[name] for name in ["payment-request", "passkit"]):
        fail(f"before Pay, the token is not a placeholder that says where it comes from: {code['passkit']}")
    check_code_parses(code, "before Pay")

    # Editing the identifier changes the code.
    ORDER["orderIdentifier"] = "A-1002"
    type_order(ORDER)
    until("the Source view follows the identifier edited",
          lambda: all(f"orderIdentifier: {json.dumps(ORDER['orderIdentifier'])}," in source(name)
                      for name in ["payment-request", "apple-pay-js"]) and
          created_order(sources()) == (ORDER, ORDER))
    if any("A-1001" in text for text in sources().values()):
        fail(f"the identifier edited away is still in the code: {sources()}")
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
    print(f"source: {folder}")

    problems = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    if problems:
        fail(f"the browser console reports errors: {problems}")

    testid("source-tab-payment-request").click()
    driver.execute_script("document.querySelector('[data-testid=source]').previousElementSibling.scrollIntoView()")
    driver.save_screenshot(os.path.join(OUTPUT, "source.png"))
    driver.execute_script("window.scrollTo(0, 0)")
    screenshot = os.path.join(OUTPUT, "playground.png")
    driver.save_screenshot(screenshot)
    print("transcript after the update:")
    for step in after:
        print(f"  {step}")
    print(f"screenshot: {screenshot}")
finally:
    driver.quit()
