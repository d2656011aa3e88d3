#!/usr/bin/env bash
# make run passes CMD to the guest byte for byte (quotes, $, \ and
# newlines) and gives back the command's own stdout byte for byte (no \r of
# the serial console), its stderr apart, and its exit status. Boots one
# guest (already built: make -o guest) and compares with the same command
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
echo '\''$(shell touch @MARK@)'\'' "$(echo subst)" '\''$(open'\''
exit 3'
# make syntax in CMD must reach the guest as text: if make expanded it, the
# $(shell) would touch the marker on the host and $(open would stop make;
# the status it ends with must come back
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
set +e
busybox sh -c "$cmd" > "$tmp/want" 2> /dev/null
want_rc=$?
(cd "$TOP" && make -s --no-print-directory -o guest run CMD="$cmd") > "$tmp/got" 2> "$tmp/got.err"
rc=$?
set -e
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

# The command ends with "exit 3": tools/qemu-run.sh exits with the guest
# command's status, which make reports as its recipe's ("Error 3").
what="the guest command's exit status (3) comes back: make run fails with its recipe's Error 3"
if [ "$want_rc" = 3 ] && [ "$rc" != 0 ] && grep -q '\*\*\* \[.*run\] Error 3$' "$tmp/got.err"; then
	echo "ok - $what"
else
	echo "not ok - $what # busybox sh $want_rc, make run $rc, make says: $(grep -m1 '\*\*\*' "$tmp/got.err" || echo nothing)"
fi
