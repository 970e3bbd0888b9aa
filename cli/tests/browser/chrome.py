"""The headless chromium the dashboard scripts drive (Debian's chromium and chromedriver,
installed by scripts/setup-browser.sh), with the page's console log kept for checking."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def start():
    options = webdriver.ChromeOptions()
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1300"]:
        options.add_argument(arg)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
