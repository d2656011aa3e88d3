#!/bin/sh
# vivpoll-events: an event-only client (select on exceptfds only) receives
# control and source change events and never starts the engine. With
# fs.poll_legacy_null_table=1 the same client starts it, and says so.
. /vivpoll/lib.sh
out=/tmp/20-events.out
sysctl=/proc/sys/fs/poll_legacy_null_table
scale=${VIVPOLL_SCALE:-1}

plan 11
reload || bail "modprobe vivpoll"
dev=$(vivpoll_nodes | head -1)
[ -n "$dev" ] || bail "a vivpoll device exists"
[ -e "$sysctl" ] && echo 0 > "$sysctl"

# 1. self-test: raises Camera 2 signal toggle and brightness change itself
timeout $((60 * scale)) vivpoll-events --device "$dev" --self-test > "$out" 2>&1
rc=$?
diag < "$out"
expect "vivpoll-events --self-test exits 0" [ "$rc" = 0 ]
expect "source change event on input 1 (Camera 2) received" \
	grep -q 'source_change(input 1)=yes' "$out"
expect "control event for brightness received" grep -q 'ctrl(brightness)=yes' "$out"
expect "control event for the Camera 2 signal control received" \
	grep -q 'ctrl(cam2_signal)=yes' "$out"
expect "the events are printed with type, id and sequence" \
	grep -q '^\[.*\] event [0-9]*: source_change input=1 seq=[0-9]* changes=0x1' "$out"
expect "engine never ran while waiting on exceptfds only" \
	grep -q '^engine: never ran' "$out"

# 2. --count with an event raised from outside (v4l2-ctl, another fd)
(sleep 1; v4l2-ctl -d "$dev" -c contrast=7) &
timeout $((30 * scale)) vivpoll-events --device "$dev" --count 1 --timeout $((10 * scale)) > "$out" 2>&1
rc=$?
wait
diag < "$out"
expect "--count 1 returns after one event raised by v4l2-ctl" \
	sh -c "[ $rc = 0 ] && grep -q 'ctrl id=0x0098090[01] (Contrast)' $out"
v4l2-ctl -d "$dev" -c contrast=128

# 3. --timeout with no events: returns, engine idle
timeout $((30 * scale)) vivpoll-events --device "$dev" --timeout 0.5 > "$out" 2>&1
rc=$?
diag < "$out"
expect "--timeout 0.5 without events exits 0 with 0 events" \
	sh -c "[ $rc = 0 ] && grep -q '^events: 0' $out"

# 4. bad arguments
vivpoll-events --count x > "$out" 2>&1
rc=$?
expect "a bad --count is a usage error (exit 2)" [ "$rc" = 2 ]
vivpoll-events --bogus > "$out" 2>&1
rc=$?
expect "an unknown option is a usage error (exit 2)" [ "$rc" = 2 ]

# 5. the same client with the legacy switch on starts the engine: the
#    watcher detects it and fails (this is the pre-v3.4 bug)
if [ -e "$sysctl" ]; then
	echo 1 > "$sysctl"
	timeout $((60 * scale)) vivpoll-events --device "$dev" --self-test > "$out" 2>&1
	rc=$?
	echo 0 > "$sysctl"
	diag < "$out"
	expect "switch on: the watcher's select() starts the engine and vivpoll-events reports it" \
		sh -c "[ $rc = 1 ] && grep -q 'FAIL: the engine started' $out"
else
	not_ok "switch on: $sysctl missing"
fi

# leave the default state
rmmod vivpoll 2> /dev/null; modprobe vivpoll
finish
