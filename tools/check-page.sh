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
#
# check-page.sh --demo DIR: first run make demo into DIR (HOSTDIR=DIR, its
# terminal in DIR/demo.out, docs/ left alone), then check DIR/index.html;
# the TAP adds a result for the demo's exit status and each of its steps
# (DIR/demo/demo.tap), "demo: " before their names. For make check-full.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

demo=
if [ "${1:-}" = --demo ]; then
	[ -n "${2:-}" ] || die "check-page.sh --demo wants a folder"
	demo=$2
	mkdir -p "$demo"
	demo=$(cd "$demo" && pwd)
	set +e
	HOSTDIR=$demo VIVPOLL_DEMO_DOCS=0 "$TOP/tools/demo.sh" > "$demo/demo.out" 2>&1
	drc=$?
	set -e
	page=$demo/index.html
	steps=$(grep -E '^(not )?ok ' "$demo/demo/demo.tap" 2> /dev/null || true)
	echo "1..$((5 + $(printf '%s' "$steps" | grep -c '^' || true)))"
else
	page=${1:-${HOSTDIR:-$TOP/out}/index.html}
	echo "1..4"
fi
fail=0
k=0
res() { # res OK WHAT [WHY]
	k=$((k + 1))
	if [ "$1" = 0 ]; then
		echo "ok $k - $2"
	else
		echo "not ok $k - $2${3:+ # $3}"
		fail=1
	fi
}
# the demo's own results, after the page's
demo_results() {
	local ok
	[ -n "$demo" ] || return 0
	ok=1; [ "$drc" != 0 ] || ok=0
	res $ok "make demo exits 0 (HOSTDIR=${demo#"$TOP"/})" "status $drc: $(grep -m1 -E 'FAILED|failed|error' "$demo/demo.out" || tail -1 "$demo/demo.out")"
	printf '%s\n' "$steps" | while read -r l; do
		[ -n "$l" ] || continue
		case "$l" in
		"not ok"*) echo "not ok $((k += 1)) - demo: ${l#not ok * - }" ;;
		*) echo "ok $((k += 1)) - demo: ${l#ok * - }" ;;
		esac
	done
	[ -z "$(printf '%s' "$steps" | grep '^not ok')" ] || fail=1
}
if [ ! -s "$page" ]; then
	res 1 "headless chromium loads ${page#"$TOP"/}" "no page (make demo writes it)"
	res 1 "no console message while it loads" "not run"
	res 1 "every image of it is shown" "not run"
	res 1 "it shows the matrix, the timeline and the frames of the three clients" "not run"
	demo_results
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
grep -q 'data-probe-images' "$probe" || printf '%s\n' '<script>document.documentElement.setAttribute("data-probe-images", -1);</script>' >> "$probe"
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
	res 1 "headless chromium loads $name from the file system" \
		"$([ "$rc" = 127 ] && echo 'chromium missing (make deps installs it)' || echo "chromium exited with status $rc")"
else
	ok=1; [ -z "$n" ] || ok=0
	res $ok "headless chromium loads $name from the file system" "the page did not finish loading"
fi
console=$(grep -E ':CONSOLE[:(]' "$prof/log" 2> /dev/null | sed 's/^.*CONSOLE[^]]*\] *//' | head -3 || true)
ok=1; [ "$rc" != 0 ] || [ -n "$console" ] || ok=0
res $ok "no console message while it loads" "${console:-not run}"
broken=$(sed -n 's/.*data-probe-broken="\([^"]*\)".*/\1/p' "$prof/dom" 2> /dev/null | head -1)
want=$(grep -o '<img ' "$page" | wc -l)
shown=$((${n:-0} - $(echo $broken | wc -w)))
ok=1
if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" = "$want" ] && [ -z "$broken" ] &&
	grep -q 'data-probe-broken=""' "$prof/dom"; then
	ok=0
fi
res $ok "every image of it is shown ($shown of $want with naturalWidth > 0)" \
	"${broken:+not shown: $broken}"
miss=
for src in 'src="matrix.png"' 'src="timeline.png"' 'src="frames/frame-' 'src="frames/gst-' 'src="frames/ffmpeg-'; do
	grep -qF "$src" "$page" || miss+=" $(printf %s "$src" | tr -d \" | sed "s/^src=//")"
done
ok=1; [ -n "$miss" ] || ok=0
res $ok "it shows the matrix, the timeline and the frames of the three clients" "${miss:+missing:$miss}"
demo_results
exit "$fail"
