// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-bench idle / cpu: what an idle device costs.
 *
 * idle: N processes each open the vivpoll device, subscribe to control and
 * source change events and wait in select() with the file in
 * exceptfds only, for a fixed time. Over that window: the frames the
 * engine produced and its starts (both must stay 0: nobody asked for
 * POLLIN), the driver's poll calls and the union of the events they asked
 * for (the vivpoll_poll trace event), and the guest's busy CPU time.
 *
 * cpu: the guest's busy CPU time over an idle window: the background to
 * subtract from the other windows.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-util.h"

#define MAX_PROCS	64

static void idle_child(const char *path, int ready_fd, unsigned long ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000 };
	fd_set ex;
	char c = 'r';
	int fd;

	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 ||
	    vp_subscribe(fd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0) ||
	    vp_subscribe(fd, V4L2_EVENT_SOURCE_CHANGE, 0, 0))
		c = 'e';
	if (write(ready_fd, &c, 1) != 1 || c == 'e')
		_exit(1);
	close(ready_fd);
	for (;;) {
		FD_ZERO(&ex);
		FD_SET(fd, &ex);
		if (select(fd + 1, NULL, NULL, &ex, &tv) <= 0)
			break;
		/* an event: take it and wait on */
		{
			struct v4l2_event ev;

			while (!ioctl(fd, VIDIOC_DQEVENT, &ev))
				;
		}
	}
	_exit(0);
}

/*
 * frames and engine starts from the controls, the poll calls and the OR of
 * their requested events from the vivpoll_poll trace event
 */
static int read_counters(int fd, struct vp_polltrace *pt, uint64_t v[4])
{
	uint32_t seen;
	int64_t c;
	int r;

	r = vp_ctrl_get64(fd, VIVPOLL_CID_FRAMES, &c);
	if (r)
		return r;
	v[0] = (uint64_t)c;
	r = vp_ctrl_get64(fd, VIVPOLL_CID_ENGINE_STARTS, &c);
	if (r)
		return r;
	v[1] = (uint64_t)c;
	r = vp_polltrace_read(pt, &v[2], &seen);
	v[3] = seen;
	return r;
}

int bench_idle_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "procs", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 't' },
		{ 0 }
	};
	unsigned long procs = 8, ms = 10000, i;
	uint64_t c0[4], c1[4];
	pid_t pids[MAX_PROCS];
	struct bench_snap a, b;
	struct bench_json j;
	char path[64], name[32], mask[64];
	struct vp_polltrace pt;
	int c, inst, fd, p[2], ok = 0, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:t:", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (vp_parse_uint(optarg, 1, MAX_PROCS, &procs))
				bench_usage_error("idle", "--procs wants 1..64, not", optarg);
			break;
		case 't':
			if (vp_parse_seconds(optarg, &ms) || ms < 100)
				bench_usage_error("idle", "--duration wants seconds >= 0.1, not", optarg);
			break;
		case ':':
			bench_usage_error("idle", "missing argument for", argv[optind - 1]);
		default:
			bench_usage_error("idle", "unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bench_usage_error("idle", "unexpected argument", argv[optind]);

	if (bench_find_node("vivpoll", path, sizeof(path), name, sizeof(name)))
		return bench_fail("idle", "no vivpoll capture device");
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return bench_fail("idle", "open %s: %s", path, strerror(errno));
	inst = vp_instance(fd);
	if (inst < 0 || vp_polltrace_open(&pt, inst))
		return bench_fail("idle", "cannot trace the poll calls of %s",
				  path);
	if (pipe(p)) {
		vp_polltrace_close(&pt);
		return bench_fail("idle", "pipe: %s", strerror(errno));
	}

	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return bench_fail("idle", "fork: %s", strerror(errno));
		if (!pids[i]) {
			close(p[0]);
			idle_child(path, p[1], ms + 5000);
		}
	}
	close(p[1]);
	for (i = 0; i < procs; i++) {
		char r;

		if (read(p[0], &r, 1) == 1 && r == 'r')
			ok++;
	}
	close(p[0]);
	vp_sleep_ms(200);	/* let the last one reach select() */

	/* fd is never polled: reading the controls adds no poll call */
	r = read_counters(fd, &pt, c0);
	bench_snap(&a, 0);
	vp_sleep_ms((unsigned int)ms);
	bench_snap_end(&b, 0);
	if (!r)
		r = read_counters(fd, &pt, c1);
	vp_polltrace_close(&pt);
	close(fd);

	for (i = 0; i < procs; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < procs; i++)
		waitpid(pids[i], NULL, 0);
	if (r)
		return bench_fail("idle", "cannot read the counters");

	bj_begin(&j, "idle");
	bj_int(&j, "procs", (long long)procs);
	bj_int(&j, "waiting", ok);
	bj_int(&j, "frames", (long long)(c1[0] - c0[0]));
	bj_int(&j, "engine_starts", (long long)(c1[1] - c0[1]));
	bj_int(&j, "poll_calls", (long long)(c1[2] - c0[2]));
	snprintf(mask, sizeof(mask), "0x%08llx", (unsigned long long)c1[3]);
	bj_str(&j, "poll_req_seen", mask);
	bench_json_cpu(&j, &a, &b, 0);
	bj_end(&j);
	return ok == (int)procs ? 0 : 1;
}

int bench_cpu_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "duration", required_argument, NULL, 't' },
		{ 0 }
	};
	unsigned long ms = 5000;
	struct bench_snap a, b;
	struct bench_json j;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (vp_parse_seconds(optarg, &ms) || ms < 100)
				bench_usage_error("cpu", "--duration wants seconds >= 0.1, not", optarg);
			break;
		case ':':
			bench_usage_error("cpu", "missing argument for", argv[optind - 1]);
		default:
			bench_usage_error("cpu", "unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bench_usage_error("cpu", "unexpected argument", argv[optind]);
	bench_snap(&a, 0);
	vp_sleep_ms((unsigned int)ms);
	bench_snap_end(&b, 0);
	bj_begin(&j, "cpu");
	bench_json_cpu(&j, &a, &b, 0);
	bj_end(&j);
	return 0;
}
