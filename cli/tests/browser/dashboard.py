"""Drives the dashboard in headless chromium: waits for the curves to draw data, plays a
move on the board, waits for the model's reply, saves a screenshot, prints what it saw as
JSON. Usage: dashboard.py URL SCREENSHOT"""
import json
import sys
import time

from selenium.webdriver.common.by import By

import chrome

url, screenshot = sys.argv[1], sys.argv[2]
driver = chrome.start()


def wait_for(check, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return True
        time.sleep(0.25)
    return False


try:
    driver.get(url)
    points = lambda: int(driver.find_element(By.ID, "chart-loss").get_attribute("data-points") or 0)
    canvases = lambda: driver.find_elements(By.CSS_SELECTOR, "#chart-loss canvas")
    wait_for(lambda: points() > 0 and canvases())
    seen = {"loss_points": points(), "canvases": len(canvases())}
    # Column 4 of Connect Four: any cell of that column plays there.
    driver.find_element(By.CSS_SELECTOR, '#play .cell[data-row="0"][data-col="3"]').click()
    status = lambda: driver.find_element(By.ID, "status").text
    wait_for(lambda: " plays " in status() or "cannot" in status())
    seen["status"] = status()
    seen["stones"] = len(driver.find_elements(By.CSS_SELECTOR, "#play .cell.p1, #play .cell.p2"))
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#workers tbody tr"), 20)
    seen["workers"] = len(driver.find_elements(By.CSS_SELECTOR, "#workers tbody tr"))
    seen["games"] = len(driver.find_elements(By.CSS_SELECTOR, "#games option"))
    seen["replay_stones"] = len(driver.find_elements(By.CSS_SELECTOR, "#replay .cell.p1, #replay .cell.p2"))
    seen["score_charts_shown"] = driver.find_element(By.ID, "score-charts").is_displayed()
    # The graded versions the test wrote into gating.jsonl, charted by category.
    grade_points = lambda: int(driver.find_element(By.ID, "chart-grade-policy").get_attribute("data-points") or 0)
    wait_for(lambda: grade_points() > 0, 20)
    seen["grade_points"] = grade_points()
    # The newest tournament (the test's ladder): its checkpoints' Elo over training, and
    # the highest reference each beat in the table's last column.
    tournament_points = lambda: int(driver.find_element(By.ID, "chart-tournament").get_attribute("data-points") or 0)
    wait_for(lambda: tournament_points() > 0, 20)
    seen["tournament_points"] = tournament_points()
    seen["tournament_beaten"] = [r.find_elements(By.TAG_NAME, "td")[-1].text
                                 for r in driver.find_elements(By.CSS_SELECTOR, "#tournament tbody tr")]
    seen["errors"] = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    driver.save_screenshot(screenshot)
    print(json.dumps(seen))
finally:
    driver.quit()
