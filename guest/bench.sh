#!/bin/sh
# make bench, guest side: every measurement in one boot, side by side.
# Each vivpoll-bench run prints one JSON object; they are tagged with their
# phase and round and collected into $BENCH_OUT (default
# /host/bench-raw.json) as {"meta": {...}, "runs": [...]}. The ratios,
# targets and the table are made on the host (tools/bench-report.py).
# Progress lines start with "bench:". Sizes (environment):
#   BENCH_SECS        frame cost window of each side per round (8);
#                     BENCH_ROUNDS rounds (3), after a 2 s warm-up run of
#                     each side (phase warmup); BENCH_FRAME_SLICES (4): a
#                     round measures each side in that many runs of
#                     BENCH_SECS / slices s, the sides interleaved
#   BENCH_BUFFERS     mmap buffers (and memcpy ring) for every stream (8);
#                     streams map them read-write, as applications do
#   BENCH_FRAME_CPUS  same (default): each frame-cost side on CPU 0, the
#                     application with the driver's thread (the floor with
#                     its reader); then one round of each side where the
#                     scheduler puts it (phase frame-any, info; not with one
#                     vCPU, where that is CPU 0 again); any: only that
#   BENCH_RATE_SECS   highest-rate window per driver (5)
#   BENCH_EVENTS      events per latency run (1000); BENCH_CPUS same|split|any
#   BENCH_POLLS       poll() calls per round (10000); BENCH_POLL_ROUNDS (15)
#   BENCH_IDLE_SECS   idle window (10); BENCH_IDLE_PROCS waiters (8)
#   BENCH_FANOUT_COUNTS  waiters per fan-out run (1 16 256 1024);
#                     BENCH_FANOUT_ROUNDS rounds (3); BENCH_FANOUT_EVENTS
#                     events x waiters per run (8192: events = that / waiters,
#                     at least 20, at most 200)
#   BENCH_CORE_ROUNDS, BENCH_CORE_WORK  pollcore's --rounds (20) and --work
#                     (16384); the host boots each kernel for it (tools/bench.sh)
#   BENCH_ONLY        phases to run (default: frame rate event poll idle
#                     fanout; pollcore on its own)
secs=${BENCH_SECS:-8}
slices=${BENCH_FRAME_SLICES:-4}
case "$slices" in ''|0|*[!0-9]*) echo "bench: BENCH_FRAME_SLICES is a count >= 1, not '$slices'" >&2; exit 2 ;; esac
slice_secs=$(awk -v s="$secs" -v n="$slices" 'BEGIN { if (n < 1) n = 1; printf "%g", s / n }')
rounds=${BENCH_ROUNDS:-3}
bufs=${BENCH_BUFFERS:-8}
frame_cpus=${BENCH_FRAME_CPUS:-same}
rate_secs=${BENCH_RATE_SECS:-5}
events=${BENCH_EVENTS:-1000}
cpus=${BENCH_CPUS:-same}
polls=${BENCH_POLLS:-10000}
poll_rounds=${BENCH_POLL_ROUNDS:-15}
idle_secs=${BENCH_IDLE_SECS:-10}
idle_procs=${BENCH_IDLE_PROCS:-8}
fanout_counts=${BENCH_FANOUT_COUNTS:-1 16 256 1024}
fanout_rounds=${BENCH_FANOUT_ROUNDS:-3}
fanout_budget=${BENCH_FANOUT_EVENTS:-8192}
core_rounds=${BENCH_CORE_ROUNDS:-20}
core_work=${BENCH_CORE_WORK:-16384}
only=${BENCH_ONLY:-frame rate event poll idle fanout}
out=${BENCH_OUT:-/host/bench-raw.json}
lines=/tmp/bench.jsonl
params=/sys/module/vivpoll/parameters

say() { echo "bench: $*"; }
want() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }

# run PHASE ROUND SUBCOMMAND [OPTIONS]: one measurement, tagged, collected
run() {
	phase=$1 round=$2
	shift 2
	say "[$phase${round:+ $round}] vivpoll-bench $*"
	vivpoll-bench "$@" > /tmp/bench.one 2> /tmp/bench.err
	rc=$?
	sed 's/^/bench:   ! /' /tmp/bench.err
	if ! grep -q '^{' /tmp/bench.one; then
		printf '{"test":"%s","error":"no output, status %s"}\n' "$1" "$rc" > /tmp/bench.one
	fi
	sed "s/^{/{\"phase\":\"$phase\",\"round\":${round:-0},/" /tmp/bench.one >> "$lines"
	sed 's/^/bench:   /' /tmp/bench.one | cut -c1-300
}

: > "$lines"
t0=$(cut -d' ' -f1 /proc/uptime)
if want frame || want rate || want poll; then
	if ! modprobe vivid n_devs=1; then
		say "modprobe vivid failed: the comparisons with vivid will fail"
	fi
	sleep 1
fi

# frame_sides PHASE ROUND CPUS ORDER [SECS]: one frame-cost run of each side
frame_sides() {
	d=${5:-$secs}
	for w in $4; do
		case $w in
		memcpy)
			run "$1" "$2" memcpy --size 1280x720 --fourcc YUYV --fps 30 \
				--buffers "$bufs" --duration "$d" --cpus "$3" ;;
		wake)
			run "$1" "$2" memcpy --size 1280x720 --fourcc YUYV --fps 30 \
				--buffers "$bufs" --duration "$d" --consumer --cpus "$3" ;;
		*)
			run "$1" "$2" stream --driver "$w" --size 1280x720 --fourcc YUYV \
				--fps 30 --buffers "$bufs" --duration "$d" --cpus "$3" ;;
		esac
	done
}

if want frame; then
	# A warm-up run of each side (2 s), not counted: the first stream after
	# boot may pay for code translated and buffers touched for the first
	# time. In two loaded runs of 2026-12-05 without it, vivpoll's first
	# round (where it runs first) cost 1.2x to 1.4x its later ones, and
	# vivid's (second) 1.0x to 1.45x; in one with it, 1.06x to 1.21x and
	# 1.13x to 1.26x: load noise remains.
	frame_sides warmup 0 "$frame_cpus" "vivpoll vivid memcpy wake" 2
	# Rounds rotate the order so that no side always runs first or last.
	# A round measures each side in slices, the sides interleaved and
	# every other slice in reverse order: the host's clock moved each
	# side by 15% to 30% from one 8 s run to the next (2026-12-06), so
	# sides measured one after the other in whole runs were as far
	# apart, by the clock alone, as the 1.1x target allows.
	r=1
	while [ "$r" -le "$rounds" ]; do
		run frame "$r" cpu --duration "$secs"
		case $((r % 3)) in
		1) order="vivpoll vivid memcpy wake" ;;
		2) order="vivid wake memcpy vivpoll" ;;
		0) order="memcpy vivpoll wake vivid" ;;
		esac
		i=1
		while [ "$i" -le "$slices" ]; do
			frame_sides frame "$r" "$frame_cpus" "$order" "$slice_secs"
			order=$(echo "$order" | awk '{ for (k = NF; k > 0; k--) printf "%s%s", $k, (k > 1 ? " " : "") }')
			i=$((i + 1))
		done
		r=$((r + 1))
	done
	# frame-any: where the scheduler puts each side, which with one vCPU
	# (the instruction counter's boot, VIVPOLL_ICOUNT) is CPU 0 again
	if [ "$frame_cpus" = same ] && [ "$(nproc)" -gt 1 ]; then
		run frame-any 1 cpu --duration "$secs"
		frame_sides frame-any 1 any "vivpoll vivid memcpy wake"
	elif [ "$frame_cpus" = same ]; then
		say "frame-any not run: one vCPU, where any CPU is CPU 0 (the rounds above)"
	fi
fi

if want rate; then
	for d in vivpoll vivid; do
		run rate 1 stream --driver "$d" --size 640x480 --fourcc YUYV --fastest \
			--buffers "$bufs" --duration "$rate_secs"
	done
fi

if want event; then
	# Interleaved halves, so that a slow spell of the host hits both.
	half=$(((events + 1) / 2))
	for r in 1 2; do
		run event "$r" event --kind eventfd --count "$half" --cpus "$cpus"
		run event "$r" event --kind ctrl --driver vivpoll --count "$half" --cpus "$cpus"
	done
fi

if want poll; then
	run poll 1 poll --count "$polls" --rounds "$poll_rounds"
fi

if want idle; then
	run idle 1 cpu --duration "$idle_secs"
	run idle 1 idle --procs "$idle_procs" --duration "$idle_secs"
fi

if want fanout; then
	# N waiters on one vivpoll node (POLLPRI alone) against N on one
	# eventfd; rounds swap which goes first.
	r=1
	while [ "$r" -le "$fanout_rounds" ]; do
		for n in $fanout_counts; do
			e=$((fanout_budget / n))
			[ "$e" -ge 20 ] || e=20
			[ "$e" -le 200 ] || e=200
			for api in select poll epoll; do
				[ $((r % 2)) = 1 ] && kinds="vivpoll eventfd" || kinds="eventfd vivpoll"
				for k in $kinds; do
					run fanout "$r" fanout --kind "$k" --api "$api" --waiters "$n" --events "$e"
				done
			done
		done
		r=$((r + 1))
	done
fi

if want pollcore; then
	run pollcore 1 pollcore --rounds "$core_rounds" --work "$core_work"
fi

t1=$(cut -d' ' -f1 /proc/uptime)
{
	printf '{"meta":{"kernel":"%s","cpus":%s,"hz_user":%s,' \
		"$(uname -r)" "$(nproc)" "$(getconf CLK_TCK 2>/dev/null || echo 100)"
	printf '"cpu_flags":"%s",' \
		"$(grep -m1 -o -w -E 'erms|fsrm|rep_good|avx2|sse4_2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
	printf '"vivpoll_params":"%s",' \
		"$(cd $params 2>/dev/null && for p in *; do printf '%s=%s ' "$p" "$(cat "$p")"; done)"
	printf '"secs":%s,"rounds":%s,"frame_slices":%s,"buffers":%s,"frame_cpus":"%s","rate_secs":%s,"events":%s,"event_cpus":"%s",' \
		"$secs" "$rounds" "$slices" "$bufs" "$frame_cpus" "$rate_secs" "$events" "$cpus"
	printf '"polls":%s,"poll_rounds":%s,"idle_secs":%s,"idle_procs":%s,"only":"%s",' \
		"$polls" "$poll_rounds" "$idle_secs" "$idle_procs" "$only"
	printf '"fanout_counts":"%s","fanout_rounds":%s,"fanout_events":%s,"core_rounds":%s,"core_work":%s,' \
		"$fanout_counts" "$fanout_rounds" "$fanout_budget" "$core_rounds" "$core_work"
	printf '"poll_sysctl":%s,' "$([ -e /proc/sys/fs/poll_legacy_null_table ] && echo true || echo false)"
	printf '"guest_seconds":%s},\n"runs":[\n' "$(echo "$t0 $t1" | awk '{print $2 - $1}')"
	sed '$!s/$/,/' "$lines"
	printf ']}\n'
} > "$out"
say "raw results: $out ($(grep -c . "$lines") runs, $(grep -c '"error"' "$lines") errors)"
dmesg | grep -E 'BUG:|WARNING:|Oops' && say "kernel log has a splat" && exit 1
exit 0
