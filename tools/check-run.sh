#!/usr/bin/env bash
# make run passes CMD to the guest byte for byte: quotes, $, \ and newlines.
# Boots one guest (already built: make -o guest) with a command that uses
# all of them and compares what it prints with the same command run by the
# host's busybox sh. TAP on stdout.
set -eu
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2016 # the $ are for the guest's shell
cmd='printf "[%s]\n" "$((6*7))" '\''single $HOME "q"'\'' "back\\slash" "tab	x"
p=$$; [ "$p" -gt 0 ] && echo "pid ok"
x=1
for i in a b; do x="$x$i"; done
echo "$x" \$notavar \\ end
echo '\''$(shell touch @MARK@)'\'' "$(echo subst)" '\''$(open'\'''
# make syntax in CMD must reach the guest as text: if make expanded it, the
# $(shell) would touch the marker on the host and $(open would stop make
marker=$(mktemp -u "${TMPDIR:-/tmp}/vivpoll-run-marker.XXXXXX")
cmd=${cmd//@MARK@/$marker}
want=$(busybox sh -c "$cmd")
got=$(cd "$TOP" && make -s --no-print-directory -o guest run CMD="$cmd" 2>&1 | tr -d '\r') || true
if [[ "$got" == *"$want"* && ! -e $marker ]]; then
	echo "ok - make run passes CMD byte for byte (quotes, \$, \\, newlines)"
else
	echo "not ok - make run passes CMD byte for byte (quotes, \$, \\, newlines)"
	printf 'wanted:\n%s\ngot:\n%s\n' "$want" "$got" | sed 's/^/# /'
	[ -e "$marker" ] && echo "# make ran \$(shell ...) on the host: $marker exists"
fi
rm -f "$marker"
