"""Screenshot an HTML report in headless Chromium (dev-only): the README's docs/report-demo.png.

Usage: python tools/screenshot_report.py demo/report.html docs/report-demo.png [MAX_HEIGHT]
(after `make demo`). Uses the tests' small DevTools client (tests/support/browser.py); fails on any script error,
and when a finding of the page would not be in the picture (the README shows what is wrong first).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.browser import Page, find_chromium  # noqa: E402


def main() -> None:
    page, png = Path(sys.argv[1]), Path(sys.argv[2])
    height = int(sys.argv[3]) if len(sys.argv) > 3 else 1400
    exe = find_chromium()
    if exe is None:
        sys.exit("no Chromium found (apt-get install chromium, or set ST_AUDIT_CHROMIUM)")
    with Page(exe) as browser:
        browser.load(page)
        if browser.errors:
            sys.exit("script errors: " + "; ".join(browser.errors))
        below = browser.evaluate(
            "[...document.querySelectorAll('.findings > .finding')]"
            f".filter(f => f.getBoundingClientRect().bottom > {height}).length"
        )
        if below:
            sys.exit(f"{below} finding(s) would be below the picture's {height} px")
        browser.screenshot(png, max_height=height)
    print(f"wrote {png}", file=sys.stderr)


if __name__ == "__main__":
    main()
