#!/usr/bin/env bash
# Opens a timeline page written by TimelineRenderer in headless Chromium, the way
# TimelineBrowserTests does: prints what the page's script recorded (layout, lanes, details,
# script errors) and takes a screenshot. Exits 1 when the layout check fails or a script
# error was recorded, 2 when no Chromium is found.
#
#   scripts/check-timeline-in-browser.sh run.html [screenshot.png]
#
# Chromium: $CHROMIUM_PATH, else chromium-headless-shell, chromium or chromium-browser on PATH
# (Debian: apt-get install chromium-headless-shell).
set -euo pipefail

page=${1:?usage: $0 page.html [screenshot.png]}
shot=${2:-${page%.html}.png}
[[ -f $page ]] || { echo "no such file: $page" >&2; exit 2; }

chromium=${CHROMIUM_PATH:-}
if [[ -z $chromium ]]; then
    for name in chromium-headless-shell chromium chromium-browser; do
        if command -v "$name" >/dev/null 2>&1; then chromium=$(command -v "$name"); break; fi
    done
fi
[[ -n $chromium && -x $chromium ]] || { echo "no Chromium found; install chromium-headless-shell" >&2; exit 2; }

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
url="file://$(cd "$(dirname "$page")" && pwd)/$(basename "$page")"
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
    --force-device-scale-factor=1 --window-size=1600,1400 --user-data-dir="$profile")

root=$("$chromium" "${flags[@]}" --virtual-time-budget=5000 --dump-dom "$url" 2>/dev/null \
    | grep -o '<main id="timeline"[^>]*>' || true)
[[ -n $root ]] || { echo "no <main id=\"timeline\"> in the page's DOM" >&2; exit 1; }
attribute() { sed -n "s/.* $1=\"\\([^\"]*\\)\".*/\\1/p" <<<"$root"; }

"$chromium" "${flags[@]}" --screenshot="$shot" "$url" >/dev/null 2>&1
echo "layout ok:     $(attribute data-layout-ok) $(attribute data-layout-problems)"
echo "lanes:         $(attribute data-lane-count) of $(attribute data-expected-lanes)"
echo "details:       $(attribute data-detail-count) of $(attribute data-expected-details)"
echo "script errors: $(attribute data-js-errors) $(attribute data-js-error-messages)"
echo "screenshot:    $shot"
[[ $(attribute data-layout-ok) == true && $(attribute data-js-errors) == 0 ]]
