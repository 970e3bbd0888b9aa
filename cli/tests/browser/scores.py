"""Drives a one-player (2048) run's dashboard in headless chromium: waits for the score and
reach charts to draw data, reads back what the charts hold (dygraphs' own getValue), the
recent games list and the final board shown, saves a screenshot, prints what it saw as JSON.
Usage: scores.py URL SCREENSHOT"""
import json
import sys
import time

from selenium.webdriver.common.by import By

import chrome

url, screenshot = sys.argv[1], sys.argv[2]
driver = chrome.start()

# The page's dygraphs, as the rows and labels they plot (null where a chart is not drawn).
READ_CHART = """
const g = charts[arguments[0]];
if (!g) return null;
const rows = [];
for (let r = 0; r < g.numRows(); r++) {
  const row = [];
  for (let c = 0; c < g.numColumns(); c++) row.push(g.getValue(r, c));
  rows.push(row);
}
return {labels: g.getLabels(), rows};
"""


def wait_for(check, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return True
        time.sleep(0.25)
    return False


def points(chart):
    return int(driver.find_element(By.ID, chart).get_attribute("data-points") or 0)


def canvases(chart):
    return len(driver.find_elements(By.CSS_SELECTOR, f"#{chart} canvas"))


try:
    driver.get(url)
    charts = ["chart-loss", "chart-score", "chart-reach"]
    wait_for(lambda: all(points(c) > 0 and canvases(c) > 0 for c in charts))
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#replay .tile"), 20)
    seen = {c: {"points": points(c), "canvases": canvases(c), "data": driver.execute_script(READ_CHART, c)}
            for c in charts}
    seen["score_charts_shown"] = driver.find_element(By.ID, "score-charts").is_displayed()
    seen["play_buttons_shown"] = driver.find_element(By.ID, "new-game").is_displayed()
    seen["play"] = driver.find_element(By.ID, "play").text
    seen["games"] = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#games option")]
    seen["tiles"] = [t.text for t in driver.find_elements(By.CSS_SELECTOR, "#replay .tile")]
    seen["replay_label"] = driver.find_element(By.ID, "replay-label").text
    seen["errors"] = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    driver.save_screenshot(screenshot)
    print(json.dumps(seen))
finally:
    driver.quit()
