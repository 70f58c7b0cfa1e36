#!/usr/bin/env bash
# The report in a real browser: headless Chromium, network disabled, loads the page built from the
# committed runs' JSON, must log no console message, CSP violation or failed load, must have the
# summary in its DOM, and its screenshots at 1280 px and at a phone's 390 px must not be blank.
#   check_report.sh LADDER PNG_STATS SOURCE_DIR WORK_DIR
# Exits 77 (CTest: skipped) when Chromium is not installed (`./ladder.sh test` installs it).
set -euo pipefail
ladder=$1 png_stats=$2 src=$3 work=$4
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z "$browser" ]]; then
  echo "check_report: no chromium on PATH (./ladder.sh test installs Debian's chromium); skipped"
  exit 77
fi
mkdir -p "$work"
page="$work/report.html"
"$ladder" report "$src/bench/results/ladder-h200-2026-11-23.json" "$src/tests/data/run-small.json" -o "$page"

offline=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --no-first-run --disable-extensions
         --proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0
         --user-data-dir="$work/profile")
status=0
"$browser" "${offline[@]}" --dump-dom "file://$page" >"$work/dom.html" 2>"$work/dom.log" || status=1
if ! grep -q 'id="summary"' "$work/dom.html"; then
  echo "check_report: the DOM Chromium built has no summary section"; status=1
fi
for width in 1280 390; do
  shot="$work/report-$width.png"
  rm -f "$shot"
  "$browser" "${offline[@]}" --window-size="$width,2400" --screenshot="$shot" "file://$page" \
    >"$work/shot-$width.log" 2>&1 || status=1
  # Page-level messages only (Chromium's own D-Bus and GPU start-up notes are not the page's).
  if grep -E "CONSOLE|Uncaught|Refused to|Failed to load|net::ERR" "$work/shot-$width.log" "$work/dom.log"; then
    echo "check_report: the page logged errors at $width px"; status=1
  fi
  if [[ ! -s "$shot" ]]; then
    echo "check_report: no screenshot at $width px"; status=1; continue
  fi
  read -r w h colours inked < <("$png_stats" "$shot")
  echo "check_report: $width px screenshot: ${w}x${h}, $colours colours, $inked of the pixels inked"
  if [[ "$w" != "$width" ]] || ((colours < 16)) || awk "BEGIN { exit !($inked < 0.02) }"; then
    echo "check_report: the screenshot at $width px looks blank"; status=1
  fi
done
exit $status
