// SPDX-License-Identifier: GPL-2.0
/*
 * 82-unbind-loop: unbind/bind vivpoll.0 through sysfs, and rmmod/modprobe
 * vivpoll, over and over while the device is in use by other processes
 * (the scenario of tests/users.c, one TAP line per step of each cycle):
 * files open, a queue streaming (by mmap, by read(), or starved with its
 * owner blocked in VIDIOC_DQBUF), processes blocked in select(), poll()
 * and epoll_wait() on exceptfds and readfds, and racers issuing ioctls and
 * opening the node in a loop.
 *
 * Unbind: the unbind itself returns, every blocked process wakes within a
 * bounded time (select/poll/epoll report the fd with POLLERR|POLLHUP and
 * POLLPRI, DQBUF and read() fail with ENODEV/EINVAL/EIO/EPIPE), later
 * ioctls fail with ENODEV and a poll says POLLERR|POLLHUP; no engine
 * thread is left; after bind the same node comes back and captures.
 * rmmod: refused (EWOULDBLOCK, "in use") while a file is open, even after
 * an unbind, without disturbing the users; succeeds once they are gone
 * (exited or killed), leaving nothing behind; the reloaded device
 * captures. No process dies from a signal, nothing hangs. Then the checks
 * of vt_health().
 *
 * A process blocked in VIDIOC_DQEVENT when the device is unbound is not
 * woken by the unbind (v4l2_event_dequeue() only waits for an event); the
 * test reports that as a diagnostic and wakes it with a signal.
 *
 * Race cycles: processes that open, start the engine by read() or
 * poll(POLLIN) and close, over and over, while the device is unbound: no
 * engine thread may run after the unbind.
 *
 * The health checks at the end include the counter controls: a snapshot
 * after the last cycle, then a capture of 5 frames by mmap, which the
 * Frames Produced control must account for.
 *
 *   82-unbind-loop [--cycles N] [--rmmod-cycles N] [--race-cycles N] [--seed N]
 *
 * Defaults: 6*scale unbind cycles, 4*scale rmmod cycles and 6*scale race
 * cycles; 3, 2 and 3 with VIVPOLL_TIER=quick (about 4 s under TCG on 2
 * vCPUs). Every cycle runs: the plan is known before the first.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "lib.h"

int main(int argc, char **argv)
{
	unsigned int scale = vt_scale();
	unsigned long cycles = vt_quick() ? 3 : 6 * scale;
	unsigned long rcycles = vt_quick() ? 2 : 4 * scale;
	unsigned long xcycles = vt_quick() ? 3 : 6 * scale;
	const struct vt_opt opts[] = {
		{ "cycles", 0, 1000, &cycles, NULL },
		{ "rmmod-cycles", 0, 1000, &rcycles, NULL },
		{ "race-cycles", 0, 1000, &xcycles, NULL },
		{ NULL, 0, 0, NULL, NULL },
	};
	uint64_t seed = vt_default_seed(), t0;
	uint64_t min_frames[VT_MAX_DEVS] = { 0 };
	struct vt_users_stats st;
	struct vt_snap snap;
	struct vt_cycle c;
	char why[256];
	unsigned long i;
	int r;

	vt_options(argc, argv, opts, &seed);
	vt_begin("82-unbind-loop: unbind/bind and rmmod/modprobe while in use");
	vt_plan(1 + cycles * VT_UNBIND_STEPS + rcycles * VT_RMMOD_STEPS +
		xcycles * VT_RACE_STEPS + 1 + vt_health_plan(1) + 1);
	r = vt_users_init(why, sizeof(why));
	if (!vt_ok(!r, "vivpoll is loaded and vivpoll.0 is bound", "%s", why))
		return vt_end();
	vt_diag("seed %" PRIu64 ", scale %u: %lu unbind, %lu rmmod, %lu race "
		"cycles on %s", seed, scale, cycles, rcycles, xcycles,
		vt_users_node());
	vt_klog_mark(argv[0]);
	vt_kmemleak_begin();

	t0 = vp_now_ns();
	for (i = 0; i < cycles || i < rcycles || i < xcycles; i++) {
		if (i < cycles) {
			vt_unbind_cycle(i, seed + i * 1000, false, &c);
			vt_cycle_report(&c);
		}
		if (i < rcycles) {
			vt_rmmod_cycle(i, seed + i * 1000 + 500, false, &c);
			vt_cycle_report(&c);
		}
		if (i < xcycles) {
			vt_race_cycle(i, seed + i * 1000 + 700, &c);
			vt_cycle_report(&c);
		}
	}
	vt_users_get_stats(&st);
	vt_diag("%lu unbind, %lu rmmod and %lu race cycles in %.1f s: %u "
		"processes, %u wake-ups after an unbind, the slowest %.1f ms "
		"after the unbind began", cycles, rcycles, xcycles,
		(vp_now_ns() - t0) / 1e9, st.procs, st.wakeups,
		st.max_wake_ns / 1e6);

	/*
	 * Each cycle ends with a fresh device (bind or modprobe): its counter
	 * controls start from the snapshot taken now, and must account for a
	 * 5-frame capture.
	 */
	vt_snapshot(&snap);
	r = vt_capture(vt_users_node(), 5, 10000 * scale, why, sizeof(why));
	vt_ok(!r, "after the cycles, a capture of 5 frames by mmap", "%s",
	      why);
	min_frames[0] = 5;
	vt_health(&snap, min_frames, 1);
	vt_restore_defaults();
	return vt_end();
}
