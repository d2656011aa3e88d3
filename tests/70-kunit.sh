#!/bin/sh
# The driver's KUnit suite: loading vivpoll_kunit runs suite "vivpoll"; its
# KTAP result in the kernel log must say ok, and its statistics that every
# case passed: none failed, none skipped (a case KUnit skips did not run,
# and is not a pass: each is listed with its reason). The cases KTAP lists
# must be as many as its plan.
# VIVPOLL_FAULT=kunit-skip (tools/check-harness.sh) loads the drill suite
# of tests/drill/ instead, named "vivpoll" too, one of whose cases skips.
. /vivpoll/lib.sh
log=/tmp/70-kunit.log
mod=vivpoll_kunit
[ "${VIVPOLL_FAULT:-}" = kunit-skip ] && mod=vivpoll_drill_kunit

plan 4
rmmod $mod 2> /dev/null
echo "vivpoll 70-kunit: start" > /dev/kmsg
if modprobe $mod; then
	ok "modprobe $mod"
else
	not_ok "modprobe $mod"
fi
# the kernel log since our marker, without the "[ time]" prefixes
dmesg | sed -n '/vivpoll 70-kunit: start/,$p' | sed 's/^\[[^]]*\] //' > "$log"
diag < "$log"

# the suite result: "ok N vivpoll" (6.1) or "ok N - vivpoll" (older KTAP)
if grep -Eq '^ *ok [0-9]+ (- )?vivpoll$' "$log"; then
	ok "KUnit suite vivpoll reports ok"
else
	not_ok "KUnit suite vivpoll reports ok # $(grep -E 'not ok [0-9]+ (- )?vivpoll' "$log" | head -1)"
fi
# "# vivpoll: pass:P fail:F skip:S total:T": every case passed
stats=$(grep -E '# vivpoll: pass:[0-9]+ fail:[0-9]+' "$log" | head -1)
stats=${stats#*# }
set -- $(echo "$stats" | sed -n 's/.*pass:\([0-9]*\) fail:\([0-9]*\) skip:\([0-9]*\) total:\([0-9]*\).*/\1 \2 \3 \4/p')
if [ $# = 4 ] && [ "$1" -gt 0 ] && [ "$2" = 0 ] && [ "$3" = 0 ] && [ "$1" = "$4" ]; then
	ok "KUnit suite vivpoll: every case passed, none failed or skipped ($stats)"
else
	not_ok "KUnit suite vivpoll: every case passed, none failed or skipped # ${stats:-no statistics line}$(grep -E '^ +ok [0-9]+ .*# SKIP' "$log" | sed 's/^ */; skipped: /' | tr -d '\n')"
	grep -E 'not ok|Expected|FAIL|# SKIP' "$log" | head -20 | diag
fi
# the cases listed against the suite's own plan (the first nested 1..N)
cases=$(grep -Ec '^ +(not )?ok [0-9]+ ' "$log")
kplan=$(sed -n 's/^ \{4\}1\.\.\([0-9]*\)$/\1/p' "$log" | head -1)
if [ "$cases" -gt 0 ] && [ "$cases" = "$kplan" ]; then
	ok "$cases test cases ran, as KTAP planned"
else
	not_ok "KTAP lists as many cases as it planned # $cases cases for a plan of ${kplan:-none}"
fi

rmmod $mod 2> /dev/null
grep -q '^vivpoll ' /proc/modules || modprobe vivpoll
finish
