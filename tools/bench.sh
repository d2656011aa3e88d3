#!/usr/bin/env bash
# make bench: boot-to-init timing (a few trivial boots), then one guest boot
# running guest/bench.sh (frame cost, highest rate, event latency, poll
# cost, idle cost, all side by side), then with LOOP=1 the warm and
# one-edit `make check` times; tools/bench-report.py prints the table with
# each target and writes $HOSTDIR/bench.json and $HOSTDIR/bench.png (and
# docs/bench.png after a whole run). Exits
# non-zero if a target is missed or a measurement failed.
#
# Sizes pass through to the guest (see guest/bench.sh): BENCH_SECS, BENCH_BUFFERS, BENCH_FRAME_CPUS,
# BENCH_ROUNDS, BENCH_RATE_SECS, BENCH_EVENTS, BENCH_CPUS, BENCH_POLLS,
# BENCH_POLL_ROUNDS, BENCH_IDLE_SECS, BENCH_IDLE_PROCS, BENCH_ONLY. Host
# side: BENCH_BOOTS (3; 0 skips), BENCH_TIMEOUT (guest watchdog, 1500 s),
# LOOP=1 (the warm and one-edit `make check` runs, about a minute each);
# LOOP=cold adds, first, a `make check` from an empty cache (a fresh
# VIVPOLL_CACHE, ccache and build folder: the kernel is built from scratch,
# 15 to 25 minutes here).
set -eu
. "$(dirname "$0")/lib.sh"
cd "$TOP"

HOSTDIR=${HOSTDIR:-$TOP/out}
export HOSTDIR
mkdir -p "$HOSTDIR"
raw=$HOSTDIR/bench-raw.json
host=$HOSTDIR/bench-host.json
log=$HOSTDIR/bench-guest.log
rm -f "$raw" "$host" "$HOSTDIR/bench.json" "$HOSTDIR/bench.png"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# 1. boot to init: a trivial command, several boots; the host's wall time
#    of the whole `make run` step (QEMU start, boot, module load, command,
#    power off) and what the guest kernel says.
boots=${BENCH_BOOTS:-3}
boot_json=
for ((i = 1; i <= boots; i++)); do
	say "bench: boot-to-init $i of $boots"
	t0=$(now)
	set +e
	o=$(tools/qemu-run.sh --timeout 300 -- \
		'echo "uptime $(cut -d" " -f1 /proc/uptime)"; dmesg | grep -m1 "Run .* as init process"' 2>&1)
	rc=$?
	set -e
	t1=$(now)
	up=$(sed -n 's/^uptime \([0-9.]*\).*/\1/p' <<< "$o" | head -1)
	init=$(sed -n 's/^\[ *\([0-9.]*\)\] Run .* as init process.*/\1/p' <<< "$o" | head -1)
	boot_json+="${boot_json:+,}{\"wall_s\":$(secs "$t0" "$t1"),\"rc\":$rc,\"uptime_at_cmd_s\":${up:-null},\"kernel_at_init_s\":${init:-null}}"
done

# 2. the guest measurements, one boot
vars=
for v in BENCH_SECS BENCH_ROUNDS BENCH_BUFFERS BENCH_FRAME_CPUS BENCH_RATE_SECS BENCH_EVENTS BENCH_CPUS \
	BENCH_POLLS BENCH_POLL_ROUNDS BENCH_IDLE_SECS BENCH_IDLE_PROCS BENCH_ONLY; do
	if [ -n "${!v:-}" ]; then
		case "${!v}" in *[!A-Za-z0-9_.\ -]*) die "$v has odd characters: '${!v}'" ;; esac
		vars+="$v='${!v}' "
	fi
done
say "bench: booting the guest for the measurements (log: $log)"
t0=$(now)
set +e
tools/qemu-run.sh --timeout "${BENCH_TIMEOUT:-1500}" --log "$log.console" -- "$vars/vivpoll/bench.sh" 2>&1 |
	tee "$log" | grep --line-buffered -E '^bench: [^ ]|guest:|error:'
grc=${PIPESTATUS[0]}
set -e
guest_s=$(secs "$t0" "$(now)")
[ "$grc" = 0 ] || say "bench: the guest run failed (status $grc); see $log"

# 3. the development loop (opt-in: each is a full `make check`)
loop_json='"requested":false'
case "${LOOP:-0}" in 0|1|cold) ;; *) die "LOOP wants 1 or cold, not '$LOOP'" ;; esac
if [ "${LOOP:-0}" != 0 ]; then
	loop_json='"requested":true'
	if [ "$LOOP" = cold ]; then
		cold=$(mktemp -d "${TMPDIR:-/tmp}/vivpoll-cold.XXXXXX")
		say "bench: make check from an empty cache in $cold (log: $HOSTDIR/bench-check-cold.log)"
		t0=$(now)
		set +e
		VIVPOLL_CACHE=$cold/cache CCACHE_DIR=$cold/cache/ccache BUILD=$cold/build \
			make -C "$TOP" check > "$HOSTDIR/bench-check-cold.log" 2>&1
		rc=$?
		set -e
		loop_json+=",\"cold_s\":$(secs "$t0" "$(now)"),\"cold_rc\":$rc"
		loop_json+=",\"cold_summary\":\"$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$HOSTDIR/bench-check-cold.log" | tail -1)\""
		rm -rf "$cold"
	fi
	# "edit": a real change of one driver file (a comment line appended, put
	# back afterwards), so the module, its W=1/sparse build, checkpatch,
	# the series and DKMS are all redone, as after a developer's edit.
	edited=$TOP/drivers/vivpoll/vivpoll-core.c
	cp -p "$edited" "$BUILD/bench-edit.orig"
	trap 'cp "$BUILD/bench-edit.orig" "$edited"' EXIT
	for what in warm edit; do
		[ "$what" = edit ] && printf '/* make bench LOOP=1: edit %s */\n' "$(date +%s%N)" >> "$edited"
		say "bench: make check ($what; log: $HOSTDIR/bench-check-$what.log)"
		t0=$(now)
		set +e
		make -C "$TOP" check > "$HOSTDIR/bench-check-$what.log" 2>&1
		rc=$?
		set -e
		loop_json+=",\"${what}_s\":$(secs "$t0" "$(now)"),\"${what}_rc\":$rc"
		[ "$what" = edit ] && cp "$BUILD/bench-edit.orig" "$edited"
		loop_json+=",\"${what}_summary\":\"$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$HOSTDIR/bench-check-$what.log" | tail -1)\""
	done
fi

printf '{"boots":[%s],"guest_run_s":%s,"guest_rc":%s,"loop":{%s}}\n' \
	"$boot_json" "$guest_s" "$grc" "$loop_json" > "$host"

# 4. the table, bench.json, bench.png; the exit status. docs/bench.png
#    follows a whole run (every phase, the guest's status 0), whether or not
#    every target was met; VIVPOLL_BENCH_DOCS=0 leaves docs/ alone.
set +e
python3 tools/bench-report.py --raw "$raw" --host "$host" \
	--readme README.md --json "$HOSTDIR/bench.json" --png "$HOSTDIR/bench.png"
rc=$?
set -e
if [ "$grc" = 0 ] && [ -z "${BENCH_ONLY:-}" ] && [ -s "$HOSTDIR/bench.png" ] &&
	[ "${VIVPOLL_BENCH_DOCS:-1}" != 0 ]; then
	cp "$HOSTDIR/bench.png" docs/bench.png
	say "bench: docs/bench.png updated"
fi
exit "$rc"
