"""Times how long a report page takes to open in headless Chromium (Selenium), and where the time goes.

Usage: python open_time.py PAGE.html [RUNS]      (default 5 runs; prints one line per run, then the medians)

Each run opens the page in a fresh tab of one browser. "open" is the time from the start of
the navigation to the first frame the browser paints after the load event (requestAnimationFrame
after load, on the page's own clock), so it includes parsing, style, layout and the first paint.
The breakdown comes from the DevTools protocol (Performance.getMetrics): time spent in style
recalculation, layout and all tasks, the number of DOM nodes and layouts.
"""
import json
import os
import statistics
import sys

from chromium import chromium

MEASURE = r"""
const done = arguments[arguments.length - 1];
const finish = () => requestAnimationFrame(() => setTimeout(() => {
  const t = performance.getEntriesByType('navigation')[0];
  done({
    parsed: t.domInteractive, domContentLoaded: t.domContentLoadedEventEnd, load: t.loadEventEnd,
    firstFrameAfterLoad: performance.now(),
    nodes: document.getElementsByTagName('*').length, bytes: t.transferSize || t.decodedBodySize,
  });
}, 0));
if (document.readyState === 'complete') finish(); else addEventListener('load', finish);
"""


def main():
    page = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with chromium(lambda options: setattr(options, "page_load_strategy", "none")) as driver:
        driver.set_script_timeout(120)
        results = []
        for run in range(runs):
            driver.switch_to.new_window("tab")
            driver.execute_cdp_cmd("Performance.enable", {"timeDomain": "timeTicks"})
            before = {m["name"]: m["value"] for m in driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}
            driver.get("file://" + page)
            result = driver.execute_async_script(MEASURE)
            after = {m["name"]: m["value"] for m in driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}
            for name in ("RecalcStyleDuration", "LayoutDuration", "ScriptDuration", "TaskDuration"):
                result[name] = after.get(name, 0) - before.get(name, 0)
            result["LayoutCount"] = after.get("LayoutCount", 0) - before.get("LayoutCount", 0)
            result["Nodes"] = after.get("Nodes", 0)
            results.append(result)
            print(f"run {run + 1}: open {result['firstFrameAfterLoad'] / 1000:.2f} s (parsed {result['parsed'] / 1000:.2f} s, "
                  f"load {result['load'] / 1000:.2f} s); style {result['RecalcStyleDuration']:.2f} s, layout {result['LayoutDuration']:.2f} s, "
                  f"all tasks {result['TaskDuration']:.2f} s; {result['nodes']:,} elements", flush=True)
            driver.close()
            driver.switch_to.window(driver.window_handles[0])
    median = lambda key: statistics.median(r[key] for r in results)
    print(json.dumps({
        "page": page, "bytes": os.path.getsize(page), "runs": runs, "elements": results[-1]["nodes"],
        "medianOpenSeconds": round(median("firstFrameAfterLoad") / 1000, 3), "medianLoadSeconds": round(median("load") / 1000, 3),
        "medianStyleSeconds": round(median("RecalcStyleDuration"), 3), "medianLayoutSeconds": round(median("LayoutDuration"), 3),
        "medianTaskSeconds": round(median("TaskDuration"), 3),
    }))


if __name__ == "__main__":
    main()
