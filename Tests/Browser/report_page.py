"""Loads an evtool report page in headless Chromium (Selenium) and prints what it shows as JSON.

Usage: python report_page.py PAGE.html|URL SCREENSHOT.png
       (a URL is loaded with 'Authorization: Bearer $EVTOOL_TEST_BEARER' when that is set)

The Swift tests (Tests/ReportTests) compare that JSON with what the evtool commands say. The
script itself asserts nothing: it reports the page's tables, chart points, the network requests
the browser's performance log saw, the console, whether an injected handler ran, the in-page
links whose targets are missing, the tables with a header over no rows, and (for a served
page) the status each of its other links answers with the same token.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

from chromium import chromium

EXTRACT = r"""
const text = e => e ? e.textContent : null;
const table = id => {
  const t = document.getElementById(id);
  if (!t) return null;
  return Array.from(t.querySelectorAll('tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent));
};
const onHandlers = [];
for (const el of document.querySelectorAll('*')) {
  for (const a of el.getAttributeNames()) if (a.toLowerCase().startsWith('on')) onHandlers.push(el.tagName + ' ' + a);
}
const timing = performance.getEntriesByType('navigation')[0];
return {
  title: document.title,
  pwned: document.documentElement.getAttribute('data-pwned'),
  scripts: document.scripts.length,
  images: document.images.length,
  iframes: document.querySelectorAll('iframe,object,embed').length,
  onHandlers: onHandlers,
  styleSheets: document.styleSheets.length,
  styleApplied: getComputedStyle(document.body).maxWidth,
  scrollWidth: document.documentElement.scrollWidth,
  clientWidth: document.documentElement.clientWidth,
  actionCount: text(document.getElementById('action-count')),
  head: text(document.getElementById('head')),
  chain: document.getElementById('chain') ? document.getElementById('chain').dataset.status : null,
  seal: document.getElementById('seal') ? (document.getElementById('seal').dataset.number || null) : null,
  sealCheck: document.getElementById('seal-check') ? document.getElementById('seal-check').dataset.status : null,
  sealSteps: Array.from(document.querySelectorAll('#seal-checks li')).map(li => [li.dataset.check, li.dataset.status, li.textContent]),
  counts: Array.from(document.querySelectorAll('#counts td[data-type]')).map(td => [td.dataset.type, td.textContent]),
  timeline: Array.from(document.querySelectorAll('#timeline tbody tr')).map(r => ({
    position: r.dataset.position, erased: r.classList.contains('erased'), cells: Array.from(r.cells).map(c => c.textContent)})),
  favorites: table('favorites'),
  recent: table('recent'),
  viewed: table('viewed'),
  searches: table('searches'),
  favoriteChanges: table('favorite-changes'),
  points: Array.from(document.querySelectorAll('#favorites-chart circle.point')).map(c => [c.dataset.day, Number(c.dataset.count)]),
  overview: {
    events: text(document.getElementById('event-count')),
    users: text(document.getElementById('user-count')),
    days: table('days'),
    bars: Array.from(document.querySelectorAll('#events-chart rect.bar')).map(r => [r.dataset.day, r.dataset.series, Number(r.dataset.count)]),
    mostFavorited: table('most-favorited'),
    mostViewed: table('most-viewed'),
    seals: table('seals'),
    checkpoints: table('checkpoints'),
    erasures: table('erasures'),
  },
  verdict: document.getElementById('verdict') ? [document.getElementById('verdict').dataset.status, document.getElementById('verdict').textContent] : null,
  verdictChecks: Array.from(document.querySelectorAll('#verdict-checks li')).map(li => li.textContent),
  activePoints: document.querySelectorAll('#active-chart circle.point').length,
  usersPoints: document.querySelectorAll('#users-chart circle.point').length,
  // Each in-page link whose target is not on the page, and every other link (resolved).
  missingAnchors: Array.from(document.querySelectorAll('a[href^="#"]')).map(a => a.getAttribute('href'))
    .filter(h => !document.getElementById(decodeURIComponent(h.slice(1)))),
  inPageLinks: document.querySelectorAll('a[href^="#"]').length,
  otherLinks: Array.from(document.querySelectorAll('a[href]')).filter(a => !a.getAttribute('href').startsWith('#')).map(a => a.href),
  // Each table whose header row stands over no rows (a long table's rows are in chunks beside its header).
  emptyHeaders: Array.from(document.querySelectorAll('table')).filter(t => t.tHead && t.tHead.rows.length > 0)
    .filter(t => (t.parentElement.classList.contains('rows') ? t.parentElement : t).querySelectorAll('tbody tr').length === 0)
    .map(t => t.id || (t.parentElement && t.parentElement.id) || t.outerHTML.slice(0, 80)),
  bodyText: document.body.textContent,
  loadMilliseconds: timing ? timing.loadEventEnd - timing.startTime : null,
};
"""


def main():
    page, screenshot = sys.argv[1], os.path.abspath(sys.argv[2])
    url = page if page.startswith("http://") else "file://" + os.path.abspath(page)
    with chromium(lambda options: options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})) as driver:
        driver.get_log("performance")  # drop what the blank first tab loaded
        if url.startswith("http://") and os.environ.get("EVTOOL_TEST_BEARER"):
            driver.execute_cdp_cmd("Network.enable", {})
            driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Authorization": "Bearer " + os.environ["EVTOOL_TEST_BEARER"]}})
        started = time.monotonic()
        driver.get(url)
        opened = time.monotonic() - started
        result = driver.execute_script(EXTRACT)
        result["openSeconds"] = opened
        requests = []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                params = message["params"]
                requests.append({"url": params["request"]["url"], "document": params.get("documentURL", "")})
        result["requests"] = requests
        result["console"] = [entry["message"] for entry in driver.get_log("browser")]
        # A served page's links, each asked for with the page's token: the status it answered.
        statuses = []
        if url.startswith("http://"):
            headers = {"Authorization": "Bearer " + os.environ["EVTOOL_TEST_BEARER"]} if os.environ.get("EVTOOL_TEST_BEARER") else {}
            for link in sorted(set(result["otherLinks"])):
                try:
                    with urllib.request.urlopen(urllib.request.Request(link, headers=headers), timeout=30) as response:
                        statuses.append([link, response.status])
                except urllib.error.HTTPError as error:
                    statuses.append([link, error.code])
        result["linkStatuses"] = statuses
        height = driver.execute_script("return Math.min(document.documentElement.scrollHeight, 6000)")
        driver.set_window_size(1280, max(800, height))
        driver.save_screenshot(screenshot)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
