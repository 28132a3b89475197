#!/usr/bin/env bash
# Make sure headless Chromium is present for the documentation's browser check
# (docs/check_browser.py). As root on Debian it installs it with apt-get; otherwise it says
# what to install and fails, since `make docs` cannot check the pages without it.
set -u
have_chromium() { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; }
if have_chromium; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure_chromium: installing chromium with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
if have_chromium; then
    exit 0
fi
echo "ensure_chromium: headless Chromium is needed to check the built pages (Debian: apt-get install -y chromium)." >&2
exit 1
