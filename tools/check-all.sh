#!/usr/bin/env bash
# make check-all: for every kernel (KVERS, default "6.1 6.12 7.2"): check-full
# on the default config, check on the debug config (full tier), check-series,
# the kernel without the knob (tools/check-noknob.sh);
# one summary line per run and "N passed, N failed, N skipped" over all of them.
set -u
. "$(dirname "$0")/lib.sh"

kvers=${KVERS:-6.1 6.12 7.2}
log=$TOP/build/check-all
rm -rf "$log" && mkdir -p "$log"
start=$(date +%s)
pass=0 fail=0 skip=0
summary=()
run() { # run NAME COMMAND...: one step, its output in $log/NAME.log
	local name=$1 t0=$SECONDS rc line
	shift
	say "check-all: $name"
	"$@" > "$log/$name.log" 2>&1
	rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log/$name.log" | tail -1)
	[ -n "$line" ] || line="$(grep -cE '^ok( |$)' "$log/$name.log") passed, $(grep -cE '^not ok( |$)' "$log/$name.log") failed"
	case "$line" in *skipped) ;; *) line="$line, 0 skipped" ;; esac
	set -- $line
	pass=$((pass + $1)) fail=$((fail + $3)) skip=$((skip + $5))
	# a step that failed with no failed result still fails
	[ "$rc" = 0 ] || [ "$3" != 0 ] || fail=$((fail + 1))
	summary+=("$(printf '%-24s %-26s status %s, %ss' "$name" "$line" "$rc" $((SECONDS - t0)))")
	say "check-all: $name: $line (status $rc, $((SECONDS - t0))s)"
}
for v in $kvers; do
	run "check-full-$v" make -C "$TOP" check-full KVER="$v" KCONFIG=default
	run "check-debug-$v" make -C "$TOP" check KVER="$v" KCONFIG=debug
	run "check-series-$v" make -C "$TOP" check-series KVER="$v"
	run "check-noknob-$v" env KVER="$v" tools/check-noknob.sh
done
printf '%s\n' "${summary[@]}"
say "check-all: done in $(($(date +%s) - start))s; logs in $log"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
