"""The operator's console in real headless Chromium, as a person uses it: signs in with the admin key (HTTP Basic),
searches an order by its tracking number, opens its page and reads its versions (what changed, who), devices and
pushes, then opens the activity charts. No page is wider than the window (long values wrap), no script runs, and
the console never shows the order's authentication token. Keeps a screenshot of each page in OUTPUT_DIR and prints
`screenshot: PATH` for each.

    ADMIN_KEY=… console.py BASE_URL TRACKING_NUMBER OUTPUT_DIR
Exits 1 with the reason on the first thing that is not as it should be."""
import os
import sys
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE, TRACKING, OUTPUT = sys.argv[1], sys.argv[2], sys.argv[3]
KEY = os.environ["ADMIN_KEY"]
os.makedirs(OUTPUT, exist_ok=True)

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(driver, 30, poll_frequency=0.2)


def fail(message):
    path = os.path.join(OUTPUT, "failure.png")
    driver.save_screenshot(path)
    print(f"FAIL: {message}\nscreenshot: {path}\nurl: {driver.current_url}", file=sys.stderr)
    driver.quit()
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def rows(table):
    """The body rows of the table with id `table`, each as the texts of its cells."""
    found = driver.find_elements(By.CSS_SELECTOR, f"table#{table} tr")
    return [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in found[1:]]


def keep(name):
    """A screenshot of the whole page, as tall as it is."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, max(900, min(height + 40, 6000)))
    path = os.path.join(OUTPUT, f"{name}.png")
    driver.save_screenshot(path)
    driver.set_window_size(1280, 900)
    print(f"screenshot: {path}")


def fits():
    """Whether the page is no wider than the window: long values wrap."""
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


try:
    parts = urllib.parse.urlsplit(BASE)
    signed_in = f"{parts.scheme}://admin:{urllib.parse.quote(KEY)}@{parts.netloc}/admin"
    driver.get(signed_in)
    check(driver.title == "Orders · wallet-orders", f"the order list is shown, not {driver.title!r}")
    check(len(rows("orders")) >= 2, f"every order is listed: {rows('orders')}")
    check(fits(), "the order list is no wider than the window")
    keep("orders")

    search = driver.find_element(By.NAME, "q")
    search.send_keys(TRACKING)
    search.submit()
    wait.until(lambda d: "q=" in d.current_url)
    found = rows("orders")
    check(len(found) == 1, f"the tracking number finds one order: {found}")
    order_id = found[0][2]
    print(f"found: {order_id}")
    keep("search")

    driver.find_element(By.LINK_TEXT, order_id).click()
    wait.until(lambda d: d.title.startswith("Order "))
    versions = rows("versions")
    check(len(versions) == 2, f"two versions: {versions}")
    check("fulfillments[0].trackingNumber" in versions[0][4] and TRACKING in versions[0][4],
          f"the newest version says its tracking number changed: {versions[0]}")
    check(versions[0][2] == "merchant:default", f"and who made it: {versions[0]}")
    check(versions[1][4].startswith("created"), f"the first version created it: {versions[1]}")
    devices = rows("devices")
    check(len(devices) == 1 and devices[0][0] == "console-phone", f"its device: {devices}")
    pushes = rows("pushes")
    check(len(pushes) >= 1 and pushes[0][1] == "console-phone", f"its push: {pushes}")
    print(f"push: {pushes[0][2]}")
    package = driver.find_element(By.ID, "package").text
    check("the verifier finds nothing wrong" in package, f"its package verifies: {package}")
    logs = rows("logs")
    check(any(order_id in row[4] for row in logs), f"the device log naming it: {logs}")
    check(fits(), "the order page is no wider than the window, its long log line included")
    check(os.environ.get("ORDER_TOKEN", "-") not in driver.page_source, "the authentication token is never shown")
    keep("order")

    driver.find_element(By.LINK_TEXT, "Activity").click()
    wait.until(lambda d: d.title.startswith("Activity"))
    charts = driver.find_elements(By.CSS_SELECTOR, "#charts svg.chart")
    check(len(charts) == 5, f"five charts: {len(charts)}")
    bars = driver.find_elements(By.CSS_SELECTOR, "#charts svg.chart rect")
    check(len(bars) >= 2, f"the charts have bars: {len(bars)}")
    check(fits(), "the activity page is no wider than the window")
    keep("activity")

    problems = [entry["message"] for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    check(not problems, f"the browser reported nothing: {problems}")
    check(not driver.find_elements(By.TAG_NAME, "script"), "no script on any page")
    print("console: ok")
finally:
    driver.quit()
