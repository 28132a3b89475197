"""Open the built documentation in headless Chromium, offline, as a reader would.

Usage: python docs/check_browser.py [docs/_build/html]

Every HTML page of the build is loaded in a frame of a harness page (one browser run, no
network: the pages use the MathJax copied into the build). After MathJax has typeset a page,
the harness reports what a reader would see wrong: raw LaTeX delimiters left in the visible
text (outside code), and images that did not load (``naturalWidth`` 0). The script exits
with status 1 if any page has either, after first checking on a deliberately broken page
that the check can fail. Screenshots of three pages go to ``<build>/screenshots/``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: Pages a person should look at after a build.
SCREENSHOTS = ("index.html", "validation.html", "auto_examples/plot_03_cluster_structure.html")

HARNESS = """<!doctype html><html><body><pre id="result">running</pre>
<iframe id="page" style="width:1200px;height:900px"></iframe>
<script>
const pages = %(pages)s;
const frame = document.getElementById("page");
const found = {};
// visible text outside code, scripts and MathJax's own output
function visibleText(doc) {
  const copy = doc.body.cloneNode(true);
  copy.querySelectorAll("pre, code, script, style, textarea, mjx-container, .highlight").forEach(e => e.remove());
  return copy.textContent;
}
function check(doc) {
  const problems = [];
  const text = visibleText(doc);
  for (const token of ["\\\\(", "\\\\)", "\\\\[", "\\\\]", "$$", "\\\\frac", "\\\\mathcal", "\\\\begin{"]) {
    const at = text.indexOf(token);
    if (at >= 0) problems.push("raw LaTeX " + token + ": ..." + text.slice(Math.max(0, at - 40), at + 40).replace(/\\s+/g, " ") + "...");
  }
  doc.querySelectorAll("img").forEach(img => {
    if (!img.complete || img.naturalWidth === 0) problems.push("broken image " + img.getAttribute("src"));
  });
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


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("headless Chromium is needed: apt-get install -y chromium (make docs installs it)")


def browser(*arguments: str, timeout: float = 600) -> str:
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
               "--disable-background-networking", "--no-first-run", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=True).stdout


def inspect(root: Path, pages: list[str]) -> dict[str, list[str]]:
    """Problems per page (paths relative to ``root``), from one browser run."""
    harness = root / "_browser_check.html"
    harness.write_text(HARNESS % {"pages": json.dumps(pages)})
    try:
        budget = 4000 * len(pages) + 20000  # virtual milliseconds: MathJax and images on each page
        dom = browser("--virtual-time-budget=%d" % budget, "--dump-dom", harness.as_uri())
    finally:
        harness.unlink()
    start, end = dom.find("RESULT"), dom.find("END", dom.find("RESULT"))
    if start < 0 or end < 0:
        raise SystemExit("the browser did not finish checking the pages")
    return json.loads(dom[start + len("RESULT") : end].replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


def check_that_the_check_can_fail(static: Path) -> None:
    """A page with raw LaTeX and a missing image must be flagged; a typeset one must not."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(static / "mathjax", root / "mathjax")
        mathjax = '<script defer src="mathjax/tex-chtml.js"></script>'
        (root / "bad.html").write_text("<html><body><p>\\(x\\) is not typeset</p>$$ y $$<img src='missing.png'></body></html>")
        (root / "good.html").write_text(f"<html><head>{mathjax}</head><body><p>\\(\\frac{{1}}{{2}}\\) typeset</p></body></html>")
        found = inspect(root, ["bad.html", "good.html"])
    bad = " ".join(found["bad.html"])
    if not ("raw LaTeX" in bad and "broken image missing.png" in bad) or found["good.html"]:
        raise SystemExit(f"the browser check does not detect what it should: {found}")


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/_build/html").resolve()
    check_that_the_check_can_fail(root / "_static")
    pages = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.html")
        if not path.relative_to(root).parts[0].startswith(("_", "."))
        and path.name not in ("search.html", "genindex.html")
    )
    found = inspect(root, pages)
    bad = {page: problems for page, problems in found.items() if problems}
    shots = root / "screenshots"
    shots.mkdir(exist_ok=True)
    for page in SCREENSHOTS:
        target = shots / (page.replace("/", "_").removesuffix(".html") + ".png")
        browser("--window-size=1280,1800", "--virtual-time-budget=10000", f"--screenshot={target}", (root / page).as_uri())
    print(f"browser check: {len(pages)} pages loaded offline in headless Chromium, {len(bad)} with problems; "
          f"screenshots in {shots}")
    for page, problems in bad.items():
        for problem in problems:
            print(f"  {page}: {problem}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
