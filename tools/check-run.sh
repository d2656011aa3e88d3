#!/usr/bin/env bash
# make run passes CMD to the guest byte for byte (quotes, $, \ and
# newlines) and gives back the command's own stdout byte for byte (no \r of
# the serial console), its stderr apart, and its exit status. Boots two
# guests (already built: make -o guest) and compares with the same command
# run by the host's busybox sh. TAP on stdout.
set -eu
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2016 # the $ are for the guest's shell
cmd='printf "[%s]\n" "$((6*7))" '\''single $HOME "q"'\'' "back\\slash" "tab	x"
p=$$; [ "$p" -gt 0 ] && echo "pid ok"
x=1
for i in a b; do x="$x$i"; done
echo "$x" \$notavar \\ end
echo "only to stderr" >&2
echo '\''$(shell touch @MARK@)'\'' "$(echo subst)" '\''$(open'\'''
# make syntax in CMD must reach the guest as text: if make expanded it, the
# $(shell) would touch the marker on the host and $(open would stop make
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vivpoll-run-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
marker=$tmp/marker
cmd=${cmd//@MARK@/$marker}
echo "1..2"
if [ "${VIVPOLL_FAULT:-}" = run-check-dies ]; then
	echo "fault drill: check-run dies" >&2
	exit 2
fi
what='make run passes CMD byte for byte (quotes, $, \, newlines), its stdout comes back byte for byte and its stderr apart'
busybox sh -c "$cmd" > "$tmp/want" 2> /dev/null
(cd "$TOP" && make -s --no-print-directory -o guest run CMD="$cmd") > "$tmp/got" 2> "$tmp/got.err" || true
if cmp -s "$tmp/want" "$tmp/got" && [ ! -e "$marker" ] && grep -qx 'only to stderr' "$tmp/got.err"; then
	echo "ok - $what"
else
	echo "not ok - $what"
	echo "# wanted on stdout:"
	od -c "$tmp/want" | head -12 | sed 's/^/#   /'
	echo "# got on stdout:"
	od -c "$tmp/got" | head -12 | sed 's/^/#   /'
	echo "# got on stderr:"
	head -5 "$tmp/got.err" | sed 's/^/#   /'
	[ ! -e "$marker" ] || echo "# make ran \$(shell ...) on the host: the marker exists"
fi

# The guest command's exit status is what tools/qemu-run.sh exits with.
what="the guest command's exit status (3) and its output (4 2 \\n) come back as they are"
set +e
(cd "$TOP" && tools/qemu-run.sh 'echo $((6*7)); exit 3') > "$tmp/st" 2> "$tmp/st.err"
rc=$?
set -e
if [ "$rc" = 3 ] && [ "$(od -c < "$tmp/st")" = "$(printf '42\n' | od -c)" ]; then
	echo "ok - $what"
else
	echo "not ok - $what # status $rc, stdout: $(od -c < "$tmp/st" | head -1)"
fi
