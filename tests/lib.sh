# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The helpers of the vivpoll shell suites (sourced: . /vivpoll/lib.sh in the
# guest, installed beside the suites by tools/build-initramfs.sh). TAP with
# the plan stated first: a suite says how many results it will print before
# it prints any (plan N), so that one that leaves a block out without a word
# fails the plan check of guest/check.sh, and finish ends it with its
# status. tests/lib.c is the same for the C suites.
#
# VIVPOLL_FAULT=short-plan (tools/check-harness.sh): the suite's first
# result is not printed, as if the suite had left it out.
vt_n=0 vt_fails=0 vt_planned=

# plan N: "TAP version 13" and "1..N", before any result
plan() {
	vt_planned=$1
	echo "TAP version 13"
	echo "1..$1"
}

# vt_result ok|"not ok" DESCRIPTION: one TAP line
vt_result() {
	vt_n=$((vt_n + 1))
	if [ "${VIVPOLL_FAULT:-}" = todo-exit ] && [ "$vt_n" = 1 ]; then
		echo "not ok $vt_n - $2 # TODO fault drill: an expected failure"
		return 0
	fi
	if [ "${VIVPOLL_FAULT:-}" = unlisted-skip ] && [ "$vt_n" = 1 ]; then
		echo "ok $vt_n - $2 # SKIP fault drill: a skip no list names"
		return 0
	fi
	[ "$1" = ok ] || vt_fails=$((vt_fails + 1))
	[ "${VIVPOLL_FAULT:-}" = short-plan ] && [ "$vt_n" = 1 ] && return 0
	echo "$1 $vt_n - $2"
}
ok() { vt_result ok "$*"; }
not_ok() { vt_result "not ok" "$*"; }
# todo DESCRIPTION REASON: an expected failure ("not ok ... # TODO REASON"),
# listed apart by tools/tap-summary.sh: neither a pass nor a failure
todo() {
	vt_n=$((vt_n + 1))
	[ "${VIVPOLL_FAULT:-}" = short-plan ] && [ "$vt_n" = 1 ] && return 0
	echo "not ok $vt_n - $1 # TODO $2"
}

# skip DESCRIPTION REASON: a result not run ("ok ... # SKIP REASON"),
# green only where tests/skips.txt lists it (tools/tap-summary.sh)
skip() {
	vt_n=$((vt_n + 1))
	[ "${VIVPOLL_FAULT:-}" = short-plan ] && [ "$vt_n" = 1 ] && return 0
	echo "ok $vt_n - $1 # SKIP $2"
}

# expect DESCRIPTION COMMAND...: ok if the command succeeds
expect() {
	vt_d=$1
	shift
	if "$@"; then ok "$vt_d"; else not_ok "$vt_d"; fi
}

# try DESCRIPTION COMMAND...: ok if the command succeeds, else not ok with
# the last line of its output as the reason
try() {
	vt_d=$1
	shift
	if vt_out=$("$@" 2>&1); then
		ok "$vt_d"
	else
		not_ok "$vt_d # $(echo "$vt_out" | tail -1)"
	fi
}

# check DESCRIPTION WHY: ok if WHY is empty, else not ok with WHY as reason
check() {
	if [ -z "$2" ]; then ok "$1"; else not_ok "$1 # $2"; fi
}

# diag: stdin as TAP diagnostics
diag() { sed 's/^/# /'; }

# finish: the suite's exit status (0 only if every result passed and the
# plan was met: a missing result is a failure here too)
finish() {
	if [ -z "$vt_planned" ]; then
		echo "# the suite stated no plan"
		exit 1
	fi
	[ "$vt_n" = "$vt_planned" ] || echo "# $vt_n results for a plan of $vt_planned"
	# the drill todo-exit: an expected failure, then a failed exit
	[ "${VIVPOLL_FAULT:-}" != todo-exit ] || exit 3
	[ "$vt_fails" = 0 ] && [ "$vt_n" = "$vt_planned" ]
	exit
}

# bail WHY: a failed result, then end the suite (the results it could not
# reach leave the plan short, which guest/check.sh reports as well)
bail() {
	not_ok "$*"
	finish
}

# vivpoll_nodes: the video nodes whose driver is vivpoll, one a line
vivpoll_nodes() {
	for vt_d in /dev/video*; do
		v4l2-ctl -d "$vt_d" --info 2> /dev/null | grep -q 'Driver name *: vivpoll' &&
			echo "$vt_d"
	done
}

# reload [PARAMS...]: vivpoll unloaded and loaded again (fresh counters)
reload() {
	rmmod vivpoll 2> /dev/null
	modprobe vivpoll "$@"
}
