#!/usr/bin/python3
"""How long the sink explorer (docs/explorer.md) takes to show its first heatmaps, in headless Chromium.

  /usr/bin/python3 bench/explorer_first_paint.py PAGE.html [PAGE.html ...] [--repeats 3]

PAGE is an explorer page `sinklab report` or `sinklab compare` wrote (REPORT_DIR/explorer.html, or a run's
page under explorer-runs/). Each page is loaded --repeats times in one browser (about:blank in between);
the time is the page's own first-paint mark (body data-first-paint-ms: from navigation start to the first
grid of heatmaps drawn, the step's map script included). Also printed: the data file and the step files (every explorer-maps/ folder under the page's, so a sweep page counts its runs').
sizes. Needs Debian's chromium, chromium-driver and python3-selenium (scripts/setup.sh).
"""
import argparse
import pathlib
import statistics
import sys
import tempfile

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1300,1000"]


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for flag in FLAGS + ["--user-data-dir=" + tempfile.mkdtemp(prefix="sinklab-chromium-")]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def first_paint_ms(driver, page):
    from selenium.webdriver.support.ui import WebDriverWait
    driver.get("about:blank")
    driver.get(page.as_uri())
    read = "return document.body && document.body.dataset.firstPaintMs"
    WebDriverWait(driver, 120).until(lambda d: d.execute_script(read))
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        sys.exit(f"explorer_first_paint: {page}: console errors {errors}")
    return float(driver.execute_script(read))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="+", type=pathlib.Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    driver = browser()
    try:
        for page in args.pages:
            page = page.resolve()
            if not page.is_file():
                sys.exit(f"explorer_first_paint: {page}: no such page")
            times = [first_paint_ms(driver, page) for _ in range(args.repeats)]
            data = (page.parent / "explorer-data.js").stat().st_size
            steps = [f.stat().st_size for f in page.parent.rglob("explorer-maps/*.js")]
            largest = max(steps) / 1e6 if steps else 0.0
            print(f"{page}: first paint median {statistics.median(times):.0f} ms (all: "
                  f"{', '.join(f'{t:.0f}' for t in times)}); explorer-data.js {data / 1e6:.2f} MB; "
                  f"{len(steps)} step files, {sum(steps) / 1e6:.1f} MB, largest {largest:.2f} MB")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
