"""Open the built documentation in headless Chromium, offline, as a reader would.

Usage: python docs/check_browser.py [docs/_build/html]

Every HTML page of the build is loaded in a frame of a harness page (one browser run, no
network: the pages use the MathJax copied into the build). After MathJax has typeset a page,
the harness reports what a reader would see wrong: raw LaTeX delimiters left in the visible
text (outside code), images that did not load (``naturalWidth`` 0), a displayed equation
wider than the text column (cut off, behind a scroll bar, at 1400 px), one plot directive's
image shown for several plots (the plot directive inside MyST's ``eval-rst`` numbers every
block 1 unless given a ``:filename-prefix:``), and a page that draws
(its code calls a plotting function, ``plot_...(``, ``plt.``, ``.plot(``, or imports
matplotlib) but shows no image, as a notebook that switches to the Agg backend does. The
script exits with status 1 if any page has one of these, after first checking on
deliberately broken pages that the check can fail. Screenshots at 1400 px wide of the pages
in ``SCREENSHOTS`` go to ``<build>/screenshots/``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: Pages a person should look at after a build: the landing page, the user guide, the
#: flagship notebook, the validation results and a gallery example (each with the top
#: navigation, which should stay on one row at this width).
SCREENSHOTS = (
    "contents.html",
    "guide.html",
    "notebooks/clustering_and_valid_tests.html",
    "validation.html",
    "auto_examples/plot_03_cluster_structure.html",
)
SCREENSHOT_WIDTH = 1400

HARNESS = """<!doctype html><html><body><pre id="result">running</pre>
<iframe id="page" style="width:%(width)dpx;height:900px"></iframe>
<script>
const pages = %(pages)s;
const frame = document.getElementById("page");
const found = {};
// code that draws: a plotting function, pyplot, a pandas or Axes plot, or matplotlib imported
const DRAWS = new RegExp(/\\bplot_\\w+\\(|\\bplt\\.\\w+\\(|\\.plot(\\.\\w+)?\\(/.source +
                         /|\\bimport matplotlib|\\bfrom matplotlib\\b/.source);
// visible text outside code, scripts and MathJax's own output
function visibleText(doc) {
  const copy = doc.body.cloneNode(true);
  copy.querySelectorAll("pre, code, script, style, textarea, mjx-container, .highlight")
    .forEach(e => e.remove());
  return copy.textContent;
}
function check(doc) {
  const problems = [];
  const text = visibleText(doc);
  for (const token of ["\\\\(", "\\\\)", "\\\\[", "\\\\]", "$$",
                       "\\\\frac", "\\\\mathcal", "\\\\begin{"]) {
    const at = text.indexOf(token);
    if (at >= 0) {
      const around = text.slice(Math.max(0, at - 40), at + 40).replace(/\\s+/g, " ");
      problems.push("raw LaTeX " + token + ": ..." + around + "...");
    }
  }
  const plotted = Array.from(doc.querySelectorAll("img.plot-directive"))
    .map(img => img.getAttribute("src"));
  plotted.filter((src, at) => plotted.indexOf(src) !== at).forEach(src =>
    problems.push("one plot's file shown for several plots (give each a :filename-prefix:): " +
                  src));
  let shown = 0;
  doc.querySelectorAll("img").forEach(img => {
    if (!img.complete || img.naturalWidth === 0)
      problems.push("broken image " + img.getAttribute("src"));
    else shown += 1;
  });
  doc.querySelectorAll("div.math, mjx-container[display='true']").forEach(math => {
    if (math.scrollWidth > math.clientWidth + 2) {
      problems.push("equation wider than the page (" + math.scrollWidth + " > " +
                    math.clientWidth + " px): " +
                    math.textContent.slice(0, 60).replace(/\\s+/g, " "));
    }
  });
  const drawing = Array.from(doc.querySelectorAll("pre")).find(pre => DRAWS.test(pre.textContent));
  if (drawing && shown === 0) {
    const call = drawing.textContent.match(DRAWS)[0];
    problems.push("draws (" + call + ") but shows no image");
  }
  return problems;
}
async function settle(win) {
  if (win.MathJax && win.MathJax.startup && win.MathJax.startup.promise) {
    await win.MathJax.startup.promise;
    if (win.MathJax.typesetPromise) await win.MathJax.typesetPromise();
  }
  await Promise.all(Array.from(win.document.images).map(img => img.complete ? null :
    new Promise(done => { img.onload = done; img.onerror = done; })));
}
async function run() {
  for (const page of pages) {
    await new Promise(done => { frame.onload = done; frame.src = page; });
    try {
      await settle(frame.contentWindow);
      found[page] = check(frame.contentDocument);
    } catch (error) {
      found[page] = ["could not inspect the page: " + error];
    }
  }
  document.getElementById("result").textContent = "RESULT" + JSON.stringify(found) + "END";
}
run();
</script></body></html>
"""


#: A one-pixel PNG: the image of the drawing page in the check's own test.
PIXEL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
         "YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit(
        "headless Chromium is needed: apt-get install -y chromium (make docs installs it)"
    )


def browser(*arguments: str, timeout: float = 600) -> str:
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--allow-file-access-from-files",
        "--disable-background-networking",
        "--no-first-run",
        *arguments,
    ]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, check=True
    ).stdout


def inspect(root: Path, pages: list[str]) -> dict[str, list[str]]:
    """Problems per page (paths relative to ``root``), from one browser run."""
    harness = root / "_browser_check.html"
    harness.write_text(HARNESS % {"pages": json.dumps(pages), "width": SCREENSHOT_WIDTH})
    try:
        budget = 4000 * len(pages) + 20000  # virtual milliseconds: MathJax and images on each page
        dom = browser("--virtual-time-budget=%d" % budget, "--dump-dom", harness.as_uri())
    finally:
        harness.unlink()
    start, end = dom.find("RESULT"), dom.find("END", dom.find("RESULT"))
    if start < 0 or end < 0:
        raise SystemExit("the browser did not finish checking the pages")
    return json.loads(
        dom[start + len("RESULT") : end]
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
    )


def check_that_the_check_can_fail(static: Path) -> None:
    """Pages with raw LaTeX, a missing image, an equation wider than the page, or code that draws
    and no image must be flagged;
    a typeset page and a drawing page with its image must not."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(static / "mathjax", root / "mathjax")
        mathjax = '<script defer src="mathjax/tex-chtml.js"></script>'
        (root / "bad.html").write_text(
            "<html><body><p>\\(x\\) is not typeset</p>$$ y $$<img src='missing.png'>"
            "<div class='math' style='width:100px;overflow-x:auto;white-space:nowrap'>"
            "a long equation a long equation a long equation</div></body></html>"
        )
        (root / "good.html").write_text(
            f"<html><head>{mathjax}</head><body><p>\\(\\frac{{1}}{{2}}\\) typeset</p>"
            f"<pre>ax = plot_clusters(X, labels)</pre><img src='{PIXEL}'></body></html>"
        )
        (root / "twice.html").write_text(
            f"<html><body><img class='plot-directive' src='{PIXEL}'>"
            f"<img class='plot-directive' src='{PIXEL}'></body></html>"
        )
        (root / "blank.html").write_text(
            "<html><body><pre>import matplotlib\nmatplotlib.use('Agg')\n"
            "ax = plot_clusters(X, labels)</pre></body></html>"
        )
        found = inspect(root, ["bad.html", "good.html", "blank.html", "twice.html"])
    bad = " ".join(found["bad.html"])
    blank = " ".join(found["blank.html"])
    expected = (
        "raw LaTeX" in bad
        and "broken image missing.png" in bad
        and "equation wider than the page" in bad
        and "shows no image" in blank
        and "several plots" in " ".join(found["twice.html"])
    )
    if not expected or found["good.html"]:
        raise SystemExit(f"the browser check does not detect what it should: {found}")


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/_build/html").resolve()
    check_that_the_check_can_fail(root / "_static")
    pages = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.html")
        if not path.relative_to(root).parts[0].startswith(("_", "."))
        and path.name not in ("search.html", "genindex.html")
        and str(path.relative_to(root)) != "index.html"  # a redirect to the landing page
    )
    found = inspect(root, pages)
    bad = {page: problems for page, problems in found.items() if problems}
    shots = root / "screenshots"
    shots.mkdir(exist_ok=True)
    for page in SCREENSHOTS:
        target = shots / (page.replace("/", "_").removesuffix(".html") + ".png")
        browser(
            f"--window-size={SCREENSHOT_WIDTH},1800",
            "--virtual-time-budget=10000",
            f"--screenshot={target}",
            (root / page).as_uri(),
        )
    print(
        f"browser check: {len(pages)} pages loaded offline in headless Chromium, {len(bad)} with "
        f"problems; screenshots in {shots}"
    )
    for page, problems in bad.items():
        for problem in problems:
            print(f"  {page}: {problem}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
