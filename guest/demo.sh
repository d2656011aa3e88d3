#!/bin/sh
# The vivpoll story, run in the guest by `make demo`.
cat <<'TXT'

== vivpoll: what poll_requested_events() changed ==

Before Linux 3.4 a driver's ->poll() could be handed a NULL poll table
(select/poll after the first ready fd, on every pass after a wake-up, with a
zero timeout; epoll always left the key at ~0). poll_requested_events(NULL)
is ~0, so vb2 believed the caller wanted POLLIN and started streaming, even
for a select() that only waits for V4L2 events on exceptfds (POLLPRI).

This kernel carries a demo-only sysctl, fs.poll_legacy_null_table, that
restores the old tables. The matrix below runs every wait API with it off
(today) and on (before v3.4), and reads vivpoll's counters: did the DMA
engine start, was the event delivered, what mask did the driver see.
TXT
echo
echo "== 1. the wait-API matrix, switch off and on =="
vivpoll-prove --switch=both
prc=$?
echo
echo "== 2. the kernel's own test of it, on vivid: media_tests/video_poll_test, switch off and on =="
/vivpoll/demo-selftest.sh
src=$?
echo
echo "== 3. an event watcher on exceptfds only: events arrive, the engine stays idle =="
vivpoll-events --self-test
erc=$?
echo
echo "== 4. streaming for real: 30 frames by mmap + poll(POLLIN), 5 saved as PNG =="
mkdir -p /host/frames
vivpoll-capture --io mmap --count 30 --png 5 --out /host/frames
crc=$?
echo
echo "== 5. real clients: GStreamer and ffmpeg to PNG; the event watcher beside GStreamer =="
/vivpoll/demo-clients.sh
rrc=$?
echo
echo "PNG frames are in out/frames/ on the host."
[ "$prc" = 0 ] && [ "$src" = 0 ] && [ "$erc" = 0 ] && [ "$crc" = 0 ] && [ "$rrc" = 0 ]
