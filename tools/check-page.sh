#!/usr/bin/env bash
# check-page.sh [PAGE]: open make demo's page (default $HOSTDIR/index.html,
# out/index.html) from the file system in headless Chromium, as a reader
# would, and print TAP (1..4): it loads, it logs nothing to the console (no
# script error, no console call), every <img> in it is shown (complete,
# naturalWidth > 0) and they include the matrix, the timeline and the frames
# of all three clients. The page itself has no script: a copy of it, beside
# it so that its relative links resolve, gets a few lines that record its
# images once it has loaded; Chromium's --dump-dom returns them. Exits 1 if a
# check failed.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

page=${1:-${HOSTDIR:-$TOP/out}/index.html}
echo "1..4"
fail=0
res() { # res OK WHAT [WHY]
	if [ "$1" = 0 ]; then
		echo "ok $2 - $3"
	else
		echo "not ok $2 - $3${4:+ # $4}"
		fail=1
	fi
}
if [ ! -s "$page" ]; then
	res 1 1 "headless chromium loads ${page#"$TOP"/}" "no page (make demo writes it)"
	res 1 2 "no console message while it loads" "not run"
	res 1 3 "every image of it is shown" "not run"
	res 1 4 "it shows the matrix, the timeline and the frames of the three clients" "not run"
	exit 1
fi
browser=$(command -v chromium || true)
dir=$(cd "$(dirname "$page")" && pwd)
probe=$(mktemp "$dir/.check-page.XXXXXX.html")
prof=$(mktemp -d "${TMPDIR:-/tmp}/vivpoll-chromium.XXXXXX")
trap 'rm -rf "$probe" "$prof"' EXIT
# The copy: the page, and before </body> the probe (no console output of its own).
sed 's|</body>|<script>window.addEventListener("load", function () { var b = [], i, m = document.images; for (i = 0; i < m.length; i++) if (!(m[i].complete \&\& m[i].naturalWidth > 0)) b.push(m[i].getAttribute("src")); document.documentElement.setAttribute("data-probe-images", m.length); document.documentElement.setAttribute("data-probe-broken", b.join(" ")); });</script></body>|' \
	"$page" > "$probe"
grep -q 'data-probe-images' "$probe" || { res 1 1 "headless chromium loads ${page#"$TOP"/}" "the page has no </body>"; exit 1; }
rc=0
if [ -z "$browser" ]; then
	rc=127
else
	timeout -s KILL 120 "$browser" --headless --disable-gpu --no-sandbox --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom "file://$probe" \
		> "$prof/dom" 2> "$prof/log" || rc=$?
fi
name=${page#"$TOP"/}
n=$(grep -o 'data-probe-images="[0-9]*"' "$prof/dom" 2> /dev/null | grep -o '[0-9]*' || true)
if [ "$rc" != 0 ]; then
	res 1 1 "headless chromium loads $name from the file system" \
		"$([ "$rc" = 127 ] && echo 'chromium missing (make deps installs it)' || echo "chromium exited with status $rc")"
else
	ok=1; [ -z "$n" ] || ok=0
	res $ok 1 "headless chromium loads $name from the file system" "the page did not finish loading"
fi
console=$(grep -E ':CONSOLE[:(]' "$prof/log" 2> /dev/null | sed 's/^.*CONSOLE[^]]*\] *//' | head -3 || true)
ok=1; [ "$rc" != 0 ] || [ -n "$console" ] || ok=0
res $ok 2 "no console message while it loads" "${console:-not run}"
broken=$(sed -n 's/.*data-probe-broken="\([^"]*\)".*/\1/p' "$prof/dom" 2> /dev/null | head -1)
want=$(grep -o '<img ' "$page" | wc -l)
shown=$((${n:-0} - $(echo $broken | wc -w)))
ok=1
if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" = "$want" ] && [ -z "$broken" ] &&
	grep -q 'data-probe-broken=""' "$prof/dom"; then
	ok=0
fi
res $ok 3 "every image of it is shown ($shown of $want with naturalWidth > 0)" \
	"${broken:+not shown: $broken}"
miss=
for src in 'src="matrix.png"' 'src="timeline.png"' 'src="frames/frame-' 'src="frames/gst-' 'src="frames/ffmpeg-'; do
	grep -qF "$src" "$page" || miss+=" $(printf %s "$src" | tr -d \" | sed "s/^src=//")"
done
ok=1; [ -n "$miss" ] || ok=0
res $ok 4 "it shows the matrix, the timeline and the frames of the three clients" "${miss:+missing:$miss}"
exit "$fail"
