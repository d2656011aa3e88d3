#!/bin/sh
# The driver's KUnit suite: loading vivpoll_kunit runs suite "vivpoll"; its
# KTAP result in the kernel log must say ok with fail:0.
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
diag() { sed 's/^/# /'; }
log=/tmp/70-kunit.log

echo "TAP version 13"
rmmod vivpoll_kunit 2> /dev/null
echo "vivpoll 70-kunit: start" > /dev/kmsg
if modprobe vivpoll_kunit; then
	ok "modprobe vivpoll_kunit"
else
	not_ok "modprobe vivpoll_kunit"
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
stats=$(grep -E '# vivpoll: pass:[0-9]+ fail:[0-9]+' "$log" | head -1)
if echo "$stats" | grep -Eq 'pass:[1-9][0-9]* fail:0 '; then
	ok "KUnit suite vivpoll: ${stats#*# }"
else
	not_ok "KUnit suite vivpoll: all cases pass # ${stats:-no statistics line}"
	grep -E 'not ok|Expected|FAIL' "$log" | head -20 | diag
fi
cases=$(grep -Ec '^ +ok [0-9]+ ' "$log")
if [ "$cases" -gt 0 ]; then ok "$cases test cases ran"; else not_ok "no test case ran"; fi

rmmod vivpoll_kunit 2> /dev/null
grep -q '^vivpoll ' /proc/modules || modprobe vivpoll
echo "1..$n"
[ "$fails" = 0 ]
