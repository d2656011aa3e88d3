#!/usr/bin/env bash
# make series signs with the git identity of whoever runs it: with one, it is
# the From:, the Signed-off-by, the MAINTAINERS entry and MODULE_AUTHOR, and
# no placeholder (example.org) is left; without one, make series refuses.
# Runs tools/make-series.sh from a copy of its inputs (tools/, patches/,
# drivers/vivpoll/) in a scratch git repository, HOME an empty folder and no
# system config, so that only the identity set here can be found. TAP lines.
set -eu
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
top=$tmp/top
mkdir -p "$top/drivers" "$tmp/home"
cp -r "$TOP/tools" "$TOP/patches" "$TOP/selftests" "$top/"
cp -r "$TOP/drivers/vivpoll" "$top/drivers/"
git -C "$top" init -q

# gen NAME: make series into $tmp/NAME with only the scratch repository's
# and the empty HOME's git config; its output in $tmp/NAME.log
gen() {
	env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME \
		-u GIT_COMMITTER_EMAIL -u EMAIL HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1 \
		VIVPOLL_CACHE="$VIVPOLL_CACHE" SERIES_DIR="$tmp/$1" \
		"$top/tools/make-series.sh" > "$tmp/$1.log" 2>&1
}

want="Ada Tester <ada.tester@vivpoll.test>"
git -C "$top" config user.name "Ada Tester"
git -C "$top" config user.email ada.tester@vivpoll.test
if gen with; then
	# every patch and the cover letter: From: (unfolded), the last
	# Signed-off-by, and the MAINTAINERS entry the first patch adds
	bad=$(python3 - "$want" "$tmp"/with/0*.patch <<'PY'
import email, email.policy, sys
want, bad = sys.argv[1], []
for p in sys.argv[2:]:
    name = p.rsplit("/", 1)[1]
    m = email.message_from_file(open(p), policy=email.policy.default)
    if str(m["From"]) != want:
        bad.append("%s: From: %s" % (name, m["From"]))
    body = m.get_payload()
    if "cover-letter" in name:
        continue
    sob = [l[15:] for l in body.split("\n") if l.startswith("Signed-off-by: ")]
    if not sob or sob[-1] != want:
        bad.append("%s: Signed-off-by: %s" % (name, sob))
    if name.startswith("0001-") and "\n+M:\t%s\n" % want not in body:
        bad.append("%s: no MAINTAINERS line 'M:\t%s'" % (name, want))
    if "vivpoll-core.c" in body and '\n+MODULE_AUTHOR("%s");\n' % want not in body:
        bad.append("%s: no MODULE_AUTHOR(\"%s\")" % (name, want))
print("; ".join(bad))
PY
)
	n=$(ls "$tmp"/with/0*.patch | wc -l)
	if [ "$n" -ge 3 ] && [ -z "$bad" ]; then
		echo "ok - make series signs From:, Signed-off-by, MAINTAINERS and MODULE_AUTHOR with the git identity ($n files)"
	else
		echo "not ok - make series signs with the git identity # ${bad:-only $n files}"
	fi
	if left=$(grep -rl 'example\.org' "$tmp/with"); then
		echo "not ok - make series writes no example.org # in $(echo "$left" | xargs -n1 basename | tr '\n' ' ')"
	else
		echo "ok - make series writes no example.org"
	fi
else
	echo "not ok - make series with user.name and user.email set # $(tail -1 "$tmp/with.log")"
fi

# no email, then no identity at all: refused, nothing written
git -C "$top" config --unset user.email
for what in "without user.email" "without any git identity"; do
	[ "$what" = "without user.email" ] || git -C "$top" config --unset user.name
	if gen without; then
		echo "not ok - make series refuses to run $what # it exited 0"
	elif ! grep -q 'no git identity' "$tmp/without.log" || [ -e "$tmp/without" ]; then
		echo "not ok - make series refuses to run $what # $(tail -1 "$tmp/without.log")"
	else
		echo "ok - make series refuses to run $what ($(tail -1 "$tmp/without.log" | cut -c1-60)...)"
	fi
done
