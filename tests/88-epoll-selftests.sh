#!/bin/sh
# 88-epoll-selftests: the kernel's own epoll selftests
# (tools/testing/selftests/filesystems/epoll/epoll_wakeup_test, unmodified,
# kselftest harness) with fs.poll_legacy_null_table off and on. Off, every
# test passes; on, every test gives the same result: the switch changes what
# ->poll() is handed, never what an epoll user that ignores the key sees.
#
# Every test runs once per setting, and its result is its verdict: nothing
# runs again. Several tests race by design: a thread woken by the first of
# an emitter's two writes takes its event with a zero timeout, and finds it
# only if the second write came first (epoll15, 16, 55 to 58); with their
# threads spread over two vCPUs, a vCPU the host preempts between the two
# writes made them fail now and then, with the switch off and on alike. So
# the tests run on one vCPU (taskset) as SCHED_FIFO threads of one priority
# (chrt), where a woken thread never preempts the running one: the emitter
# makes both writes before anyone it woke runs, the interleaving the tests
# assume, every time. epoll59 to 61 are left out of that: epoll60's main
# thread spins until its eight waiters have woken, which on one CPU among
# FIFO threads never happens; they run as they are in the full tier (in a
# guest of their own on one vCPU on the instruction counter: see
# tools/check.sh, SPIN_SUITES), and the quick tier leaves them out (three
# SKIP lines: they take 75 s of the 91 s under TCG: epoll59: 100000
# wake-ups, epoll60: 8 spinning waiters, epoll61: 1000 x 10.9 ms).
#
# The build is a harness that can pick tests (-t, -T) and list them (-l):
# the guest kernel tree's own on 6.12 and 7.2, 6.12's on 6.1, whose harness
# has no options (tools/lib.sh selftests_tree), with a longer limit a test (tests/Makefile), printed
# beside it. In the quick tier the tests that wait out a timeout by design
# (about 1.1 s each, 9 of the 13 s) run in a second harness process beside
# the others. It runs both settings and compares them test by test
# (VIVPOLL_EPOLL_MODES=0 or 1: one setting alone, no comparison).
#
# VIVPOLL_FAULT=epoll-flaky-on (tools/check-harness.sh): with the switch
# on, epoll16 fails every other run (the first included), as a regression
# that fails one run in two would.
. /vivpoll/lib.sh
sysctl=/proc/sys/fs/poll_legacy_null_table
modes=${VIVPOLL_EPOLL_MODES:-0 1}
bin=/vivpoll/kselftest/epoll_wakeup_test-filter
limit="$(cat /vivpoll/kselftest/epoll_wakeup_test-filter.limit 2> /dev/null) s"
spinners="epoll59 epoll60 epoll61"
sleepers="epoll10 epoll27 epoll28 epoll31 epoll32 epoll34 epoll36 epoll38"
[ "${VIVPOLL_TIER:-full}" = quick ] || sleepers=

tests=$("$bin" -l 2>&1 | awk 'NR > 1 && NF { print $NF }')
ntests=$(echo "$tests" | grep -c .)
nmodes=$(echo $modes | wc -w)
plan $((nmodes * (ntests + 1) + (nmodes == 2)))
if [ "$ntests" = 0 ] || [ ! -w "$sysctl" ] || ! command -v chrt > /dev/null; then
	bail "epoll selftests: $bin lists no test, or $sysctl or chrt is missing"
fi

# run TAP ARGS...: the harness on one vCPU, SCHED_FIFO, TAP into the file
run() {
	tap=$1
	shift
	taskset -c 0 chrt -f 10 "$bin" "$@" > "$tap" 2>&1
}
# results TAP: one line a test, NAME ok|fail|timeout
results() {
	awk '/^# +RUN / { split($3, a, "."); name = a[2] }
		/Test terminated by timeout/ { timeout[name] = 1 }
		/^(not )?ok [0-9]+ / {
			n = ($1 == "ok") ? 2 : 3; split($(n + 1), a, "."); t = a[2]
			print t, ($1 == "ok") ? "ok" : (timeout[t] ? "timeout" : "fail") }' "$@"
}
# the fault drill's regression: epoll16 fails on odd runs with the switch on
flaky() {
	[ "${VIVPOLL_FAULT:-}" = epoll-flaky-on ] && [ "$1" = 1 ] || return 0
	k=$(($(cat /tmp/epoll.flaky 2> /dev/null || echo 0) + 1))
	echo "$k" > /tmp/epoll.flaky
	[ $((k % 2)) = 1 ] && sed -i 's/^epoll16 ok$/epoll16 fail/' "$2"
	return 0
}

for m in $modes; do
	[ "$m" = 0 ] && what=off || what=on
	echo "$m" > "$sysctl"
	t0=$(date +%s)
	tap=/tmp/epoll.$m.tap
	set --
	for t in $spinners $sleepers; do set -- "$@" -T "$t"; done
	if [ -n "$sleepers" ]; then
		run "$tap.sleepers" $(for t in $sleepers; do echo "-t $t"; done) &
		run "$tap" "$@"
		wait $!
		cat "$tap.sleepers" >> "$tap"
	else
		run "$tap" "$@"
	fi
	# the full tier: the spinners as they are, after the others
	if [ "${VIVPOLL_TIER:-full}" != quick ]; then
		"$bin" $(for t in $spinners; do echo "-t $t"; done) >> "$tap" 2>&1
	fi
	echo 0 > "$sysctl"
	echo "# switch $what: $bin (one vCPU, SCHED_FIFO${sleepers:+; beside it: $sleepers}), limit $limit a test:" \
		"$(($(date +%s) - t0))s," "$(grep '^# Totals' "$tap" | tr '\n' ' ')"
	results "$tap" > "/tmp/epoll.$m.res"
	flaky "$m" "/tmp/epoll.$m.res"
	# every test the harnesses planned reported, and every test listed ran
	planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap" | awk '{ s += $1 } END { print s + 0 }')
	got=$(grep -c . "/tmp/epoll.$m.res")
	[ "${VIVPOLL_TIER:-full}" = quick ] && want=$((ntests - 3)) || want=$ntests
	if [ "$got" = "$planned" ] && [ "$got" = "$want" ]; then
		ok "epoll selftests, switch $what: the harness reported all $want tests it ran"
	else
		not_ok "epoll selftests, switch $what: the harness reported all $want tests it ran # $got results, $planned planned"
		tail -20 "$tap" | diag
	fi
	: > "/tmp/epoll.$m.verdict"
	for t in $tests; do
		res=$(awk -v t="$t" '$1 == t { print $2; exit }' "/tmp/epoll.$m.res")
		case "${VIVPOLL_TIER:-full} $res" in
		"quick ") case " $spinners " in *" $t "*) res=skip ;; esac ;;
		esac
		case "$res" in
		ok) ok "epoll selftest $t, switch $what" ;;
		skip) ok "epoll selftest $t, switch $what # SKIP quick tier: it takes tens of seconds under TCG (make check-full runs it)" ;;
		fail)
			not_ok "epoll selftest $t, switch $what: fail"
			sed -n "/RUN  *global\.$t /,/  global\.$t\$/p" "$tap" | tail -10 | diag ;;
		timeout) not_ok "epoll selftest $t, switch $what: timeout (limit $limit a test)" ;;
		*) not_ok "epoll selftest $t, switch $what: no result" ;;
		esac
		echo "$t ${res:-none}" >> "/tmp/epoll.$m.verdict"
		echo "# epoll result, switch $what: $t ${res:-none}"
	done
done
if [ "$nmodes" = 2 ]; then
	if cmp -s /tmp/epoll.0.verdict /tmp/epoll.1.verdict; then
		ok "epoll selftests: switch on gives the same result as off, test by test ($ntests tests)"
	else
		not_ok "epoll selftests: switch on gives the same result as off, test by test"
		diff /tmp/epoll.0.verdict /tmp/epoll.1.verdict | grep '^[<>]' | diag
	fi
fi
finish
