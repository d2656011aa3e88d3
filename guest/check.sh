#!/bin/sh
# Run every test in /vivpoll/tests in order, each bounded in time, and print
# their TAP. A test that dies without saying "not ok" still counts as failed.
# Ends with a scan of the kernel log for splats.
per_test=${VIVPOLL_TEST_TIMEOUT:-600}
export VIVPOLL_SCALE=${VIVPOLL_SCALE:-1}
export VIVPOLL_TIER=${VIVPOLL_TIER:-full}
kmemleak=/sys/kernel/debug/kmemleak
dmesg -c > /dev/null
# kmemleak (debug kernel): no automatic scans, which under TCG + KASAN take
# minutes and stall a vCPU; the tests and the end of this script scan.
if [ -f $kmemleak ]; then
	echo scan=off > $kmemleak
	echo clear > $kmemleak
fi
for t in /vivpoll/tests/*; do
	[ -x "$t" ] || continue
	name=${t##*/}
	# VIVPOLL_SUITES: space-separated name prefixes to run (default: all)
	if [ -n "${VIVPOLL_SUITES:-}" ]; then
		want=0
		for p in $VIVPOLL_SUITES; do
			case "$name" in "$p"*) want=1 ;; esac
		done
		[ "$want" = 1 ] || continue
	fi
	# VIVPOLL_EXCLUDE: name prefixes to leave out (another guest runs them)
	skip=0
	for p in ${VIVPOLL_EXCLUDE:-}; do
		case "$name" in "$p"*) skip=1 ;; esac
	done
	[ "$skip" = 0 ] || continue
	echo "# ===== $name"
	out=/tmp/$name.out
	t0=$(date +%s)
	timeout "$per_test" "$t" > "$out" 2>&1
	rc=$?
	cat "$out"
	echo "# ----- $name: $(($(date +%s) - t0))s, status $rc"
	if [ "$rc" != 0 ] && ! grep -q '^not ok' "$out"; then
		[ "$rc" = 143 ] && why="killed after ${per_test}s" || why="exited with status $rc"
		echo "not ok - $name $why"
	fi
	if ! grep -qE '^(not )?ok' "$out"; then
		echo "not ok - $name printed no TAP result"
	fi
done
echo "# ===== kernel log"
splat=$(dmesg | grep -E 'BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|suspected memory leak|INFO: task .* blocked|possible recursive locking|circular locking|inconsistent lock|vmalloc error|page allocation failure|invoked oom-killer|Out of memory' | head -5)
if [ -n "$splat" ]; then
	echo "not ok - kernel log is clean # $(echo "$splat" | head -1)"
	echo "$splat" | sed 's/^/# /'
else
	echo "ok - kernel log is clean"
fi
if [ -f $kmemleak ]; then
	echo scan > $kmemleak; sleep 5; echo scan > $kmemleak
	leaks=$(grep -c '^unreferenced object' $kmemleak)
	if [ "$leaks" != 0 ]; then
		echo "not ok - kmemleak finds no leak # $leaks unreferenced objects"
		head -40 $kmemleak | sed 's/^/# /'
	else
		echo "ok - kmemleak finds no leak"
	fi
fi
