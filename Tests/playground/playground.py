"""The playground's whole cycle in real headless Chromium: a bad status is shown at its path, fixed; Pay creates
the order and a simulated device registers; a download link is made; Update changes a fulfillment and the
transcript shows the push, the listing, the conditional fetch and the check, and the preview the new status; the
"Track with Apple Wallet" button then downloads the order through the link made before the update. Keeps a
screenshot and the downloaded .order in OUTPUT_DIR.

    playground.py BASE_URL OUTPUT_DIR
Exits 1 with the reason on the first thing that is not as it should be."""
import json
import os
import re
import sys
import time
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

    # Pay: orderDetails shown, the simulated device fetches, checks and registers.
    testid("pay").click()
    until("orderDetails are shown", lambda: "authenticationToken" in testid("order-details").text)
    details = json.loads(testid("order-details").text)
    print(f"orderDetails: {details['orderTypeIdentifier']} / {details['orderIdentifier']} at {details['webServiceURL']}")
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

    # Update a fulfillment: push, listing, conditional fetch, check, and the new status in the preview.
    ORDER["fulfillments"][0].update(status="onTheWay", trackingNumber="EP123456789FR",
                                    trackingURL="https://post.example.com/track/EP123456789FR")
    type_order(ORDER)
    until("the updated order is valid", lambda: testid("problems").get_attribute("data-valid") == "true")
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

    problems = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    if problems:
        fail(f"the browser console reports errors: {problems}")

    driver.execute_script("window.scrollTo(0, 0)")
    screenshot = os.path.join(OUTPUT, "playground.png")
    driver.save_screenshot(screenshot)
    print("transcript after the update:")
    for step in after:
        print(f"  {step}")
    print(f"screenshot: {screenshot}")
finally:
    driver.quit()
