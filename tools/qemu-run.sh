#!/usr/bin/env bash
# Boot the guest in QEMU, run one command in it and exit with its status.
#   qemu-run.sh [--timeout SECONDS] [--noload] [--log FILE] [--] 'COMMAND'
#   qemu-run.sh --interactive
# The command's stdout and stderr come back byte for byte on this script's
# stdout and stderr (the guest's second and third serial ports, raw); the
# kernel's console (the first) goes to FILE.console with --log, where FILE
# gets a copy of the stdout (FILE.stderr of the stderr) and FILE.dmesg the
# guest's whole kernel log. The host folder $HOSTDIR (default out/) is /host
# in the guest, the client bundle $BUILD/clients is /opt/clients
# (read-only). A guest that panics or oopses (even after its command
# finished), outlives the timeout, or hangs after writing its status
# (VIVPOLL_EXIT_GRACE seconds, default 20), is reported as a failure.
# VIVPOLL_QEMU_CPU replaces the CPU model (default: max,-erms,-fsrm, see
# below), for experiments such as max; VIVPOLL_APPEND adds to the kernel's
# command line (e.g. nowatchdog, to time the guest without the lockup
# detectors). VIVPOLL_ICOUNT=N runs the guest on QEMU's instruction
# counter (-icount shift=N,sleep=off: its clocks advance 2^N ns for each
# instruction it executes, and idle time is skipped), on one vCPU (QEMU
# 7.2's single-threaded TCG under -icount hangs bringing up a second) and
# TCG only: a guest's timings are then counts of its own instructions,
# the same from boot to boot whatever the host does (make bench's poll
# core and fan-out verdicts).
set -eu
. "$(dirname "$0")/lib.sh"

timeout=${VIVPOLL_TIMEOUT:-600}
interactive=0 noload=0 log=
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) timeout=$2; shift 2 ;;
	--interactive) interactive=1; shift ;;
	--noload) noload=1; shift ;;
	--log) log=$2; shift 2 ;;
	--) shift; break ;;
	-*) die "qemu-run.sh: unknown option $1" ;;
	*) break ;;
	esac
done
case "$timeout" in ''|*[!0-9]*) die "--timeout wants whole seconds, not '$timeout'" ;; esac
cmd=${1:-}
[ "$interactive" = 1 ] || [ -n "$cmd" ] || die "no command given (make run CMD='...')"

KDIR=${KDIR:-$(tools/build-kernel.sh 2>/dev/null)} || die "kernel not built: run 'make' first"
kernel=$KDIR/arch/x86/boot/bzImage
initrd=$BUILD/initramfs.cpio
[ -f "$initrd" ] || die "$initrd missing: run 'make' first"
HOSTDIR=${HOSTDIR:-$TOP/out}
mkdir -p "$HOSTDIR"
ctl=$(mktemp -d "${TMPDIR:-/tmp}/vivpoll-run.XXXXXX")
trap 'rm -rf "$ctl"' EXIT
printf '%s\n' "$cmd" > "$ctl/cmd.sh"
[ "$interactive" = 0 ] || touch "$ctl/interactive"
[ "$noload" = 0 ] || touch "$ctl/noload"
# A deliberate fault for the harness's drills (guest/init reads it).
[ -z "${VIVPOLL_FAULT:-}" ] || printf '%s\n' "$VIVPOLL_FAULT" > "$ctl/fault"

# The CPU is QEMU's max without ERMS and FSRM: those flags tell the guest
# that one rep movsb is the fastest copy, and its memcpy() then uses it,
# while TCG runs rep movsb a byte per step (a 1280x720 YUYV frame: 3.0 ms
# against 0.8 ms with rep movsq; see docs/measurements.md).
cpu=${VIVPOLL_QEMU_CPU:-max,-erms,-fsrm}
icount=${VIVPOLL_ICOUNT:-}
smp=2
# On the counter, the boot spins that time the hardware cost the host the
# instructions they spin: TCG has no TSC-deadline timer, so the kernel
# calibrates the local APIC timer against the PIT for about 200 ms of the
# guest's clock, 200 million counted instructions: 3.4 s of the 7.3 s a
# bare boot took to its command. The IO-APIC timer check spins another
# 40 ms. A guest of one vCPU needs no timer of its own per CPU: noapictimer
# leaves the clock events to the HPET (high resolution, one-shot), and
# no_timer_check skips the check.
boot_args=
case "$icount" in
'') ;;
[0-9]|10) smp=1 boot_args=" noapictimer no_timer_check" ;;
*) die "VIVPOLL_ICOUNT wants a shift of 0 to 10, not '$icount'" ;;
esac
qemu=(qemu-system-x86_64 -machine q35 -cpu "$cpu" -smp "$smp" -m 2048 -nodefaults
	-no-reboot -display none -kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 quiet loglevel=4 log_buf_len=8M panic=-1 oops=panic rdinit=/init$boot_args${VIVPOLL_APPEND:+ $VIVPOLL_APPEND}"
	-virtfs "local,path=$HOSTDIR,mount_tag=host,security_model=none,id=host")

# KVM only where it really boots a guest (it does not on these machines:
# QEMU aborts setting an MSR); probed once per machine, then TCG.
accel=${VIVPOLL_ACCEL:-auto}
[ -z "$icount" ] || accel=${VIVPOLL_ACCEL:-tcg}
[ -z "$icount" ] || [ "$accel" = tcg ] || die "VIVPOLL_ICOUNT counts instructions under TCG only, not with VIVPOLL_ACCEL=$accel"
if [ "$accel" = auto ]; then
	probe=$VIVPOLL_CACHE/accel-probe
	if [ ! -f "$probe" ]; then
		echo tcg > "$probe"
		if [ -w /dev/kvm ]; then
			p=$(mktemp -d)
			echo true > "$p/cmd.sh"
			(timeout -s KILL 30 "${qemu[@]/#$cpu/host}" -accel kvm \
				-virtfs "local,path=$p,mount_tag=ctl,security_model=none,id=ctl" \
				-serial null < /dev/null > /dev/null 2>&1 || true) 2> /dev/null
			[ -f "$p/rc" ] && echo kvm > "$probe"
			rm -rf "$p"
		fi
	fi
	accel=$(cat "$probe")
fi
case "$accel" in
kvm) qemu+=(-accel kvm); qemu=("${qemu[@]/#$cpu/host}") ;;
tcg)
	if [ -n "$icount" ]; then
		qemu+=(-accel tcg,thread=single -icount "shift=$icount,sleep=off")
	else
		qemu+=(-accel tcg)
	fi ;;
*) die "VIVPOLL_ACCEL is kvm, tcg or auto, not '$accel'" ;;
esac

qemu+=(-virtfs "local,path=$ctl,mount_tag=ctl,security_model=none,id=ctl")
# The client bundle (tools/build-clients.sh), read-only at /opt/clients.
if [ -d "$BUILD/clients" ]; then
	qemu+=(-virtfs "local,path=$(readlink -f "$BUILD/clients"),mount_tag=clients,security_model=none,readonly=on,id=clients")
fi
if [ "$interactive" = 1 ]; then
	exec "${qemu[@]}" -serial mon:stdio
fi

console=$ctl/console.log
# boot: one run of QEMU, its status in $qrc (and $hung)
boot() {
	rm -f "$ctl/stderr.fifo" "$console"
	[ -z "$log" ] || : > "$log"
	mkfifo "$ctl/stderr.fifo"
	cat "$ctl/stderr.fifo" | if [ -n "$log" ]; then tee "$log.stderr"; else cat; fi >&2 &
	errpid=$!
	# The guest writes its status, then syncs, unmounts and reboots, which
	# exits QEMU within a second or two: a guest still running $grace s after
	# its status (hung in sync, umount or reboot) is killed and fails, as is
	# one that outlives the watchdog, whatever status it wrote.
	set +e
	timeout -s KILL "$timeout" "${qemu[@]}" < /dev/null &
	qpid=$!
	hung=0 since=
	while kill -0 "$qpid" 2> /dev/null; do
		if [ -z "$since" ] && [ -f "$ctl/rc" ]; then
			since=$SECONDS
		elif [ -n "$since" ] && [ $((SECONDS - since)) -gt "$grace" ]; then
			hung=1
			pkill -KILL -P "$qpid" 2> /dev/null
			kill -KILL "$qpid" 2> /dev/null
			break
		fi
		sleep 0.2
	done
	wait "$qpid"
	qrc=$?
	# a QEMU that died before it opened the fifo left its reader waiting
	# in open(): a read-write open (never blocks) and close end it
	exec 9<> "$ctl/stderr.fifo"
	exec 9>&-
	wait "$errpid"
	set -e
	[ -f "$console" ] || : > "$console"
}
qemu+=(-chardev "file,id=con,path=$console" -serial chardev:con
	-chardev "stdio,id=out,signal=off${log:+,logfile=$log}" -serial chardev:out
	-chardev "file,id=err,path=$ctl/stderr.fifo" -serial chardev:err)
grace=${VIVPOLL_EXIT_GRACE:-20}
boot
# QEMU 7.2's TCG now and then dies of SIGSEGV on its own (seen here on
# 2026-12-06 at the start of a boot, nothing on any serial port; a known
# intermittent crash of QEMU's TCG: gitlab.com/qemu-project/qemu issue
# 2220, RHEL-23844). A boot that died so before the guest wrote its status
# or a byte of output (--log shows what came back) is booted again, once,
# and says so; any other end is the verdict.
if [ "$qrc" = 139 ] && [ ! -f "$ctl/rc" ] && [ -n "$log" ] && [ ! -s "$log" ] &&
	[ ! -s "$log.stderr" ]; then
	say "guest: QEMU died of SIGSEGV (status 139) before the guest wrote anything: a known intermittent QEMU TCG crash; booting again, once"
	boot
fi
if [ -n "$log" ]; then
	cp "$console" "$log.console"
	cp "$ctl/dmesg" "$log.dmesg" 2>/dev/null || rm -f "$log.dmesg"
fi

# A crash on the console fails the run whatever the command said: a panic
# in the guest's last steps (sync, reboot) comes after its status.
crash='^\[ *[0-9]+\.[0-9]+\] .*(Kernel panic|Oops|BUG:|general protection)'
if tr -d '\r' < "$console" | grep -qE "$crash"; then
	say "guest: FAILED, the kernel crashed$([ -f "$ctl/rc" ] && echo " after the command exited with status $(cat "$ctl/rc")"):"
	tr -d '\r' < "$console" | grep -E -A25 "$crash" | head -60 >&2
	exit 125
fi
# After the guest's last scan of its kernel log (guest/init's marker), the
# console has the whole log: a splat there (guest/splat.ere) fails the run.
late=$(tr -d '\r' < "$console" |
	sed -n '/vivpoll-init: the last scan of the kernel log is done/,$p' |
	grep -m1 -E -f "$TOP/guest/splat.ere" || true)
if [ -n "$late" ]; then
	say "guest: FAILED, a splat in the kernel log after the guest's last scan of it (on the console): $late"
	exit 125
fi
if [ "$hung" = 1 ]; then
	say "guest: FAILED, the command exited with status $(cat "$ctl/rc") and then the guest hung: QEMU still ran ${grace}s later (sync, umount or reboot did not finish); killed"
	tail -20 "$console" >&2
	exit 124
fi
if [ "$qrc" = 137 ]; then
	say "guest: FAILED, no exit after the ${timeout}s watchdog$([ -f "$ctl/rc" ] && echo " (the command had exited with status $(cat "$ctl/rc"))"); QEMU killed"
	exit 124
fi
if [ -f "$ctl/rc" ]; then
	rc=$(cat "$ctl/rc")
	[ "$rc" = 0 ] || say "guest: command exited with status $rc"
	exit "$rc"
fi
say "guest: FAILED, QEMU exited ($qrc) without a result"
tail -20 "$console" >&2
exit 125
