// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-bench event / poll: how fast an event reaches a waiting process,
 * and what a poll() of an idle file costs.
 *
 * event: a waiter process blocks in select(); a signaller process, once it
 * sees the waiter asleep (its /proc state is S after it announced the
 * wait in shared memory), takes CLOCK_MONOTONIC into shared memory and
 * signals: --kind ctrl changes the brightness with VIDIOC_S_CTRL on its own
 * file handle, the waiter has the device in exceptfds only and is
 * subscribed to that control's events; --kind eventfd writes an eventfd,
 * the waiter has it in readfds (the floor). The waiter takes the clock as
 * select() returns: latency = wake - send. For control events the event's
 * own timestamp (taken when it was queued) gives a second figure, wake -
 * queue. --cpus same pins both processes to CPU 0 (the wake-up is a
 * context switch, no inter-processor interrupt: steadier under TCG),
 * split puts the waiter on CPU 1, any leaves them to the scheduler.
 *
 * poll: poll() with a zero timeout on a file with nothing pending, N calls
 * in a row, in rounds that alternate between the files: a vivpoll file
 * subscribed to control events asked for POLLPRI (what an event watcher
 * asks; POLLIN would start streaming), an eventfd asked for POLLIN, and a
 * vivid capture file asked for POLLPRI if vivid is loaded. Reports the
 * median and the minimum over the rounds of the time per call: on a shared
 * host under TCG the noise (the vCPU thread preempted) only ever adds, so
 * the minimum of many short rounds is the steadier figure of the cost.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

#define EVENT_TIMEOUT_MS	5000

struct eopts {
	char driver[16];
	bool ctrl;
	unsigned long count, warmup;
	int cpu_w, cpu_s;
	const char *cpus;
};

struct shared {
	uint32_t armed;		/* waiter is about to wait for event n (n+1) */
	uint32_t done;		/* waiter got event n (n+1) */
	uint64_t t_send;	/* signaller's clock just before it signals */
	int err;
	double v[];		/* lat_us[total], ev_us[total] */
};

static void parse_event(int argc, char **argv, struct eopts *o)
{
	static const struct option lopts[] = {
		{ "kind", required_argument, NULL, 'k' },
		{ "driver", required_argument, NULL, 'D' },
		{ "count", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "cpus", required_argument, NULL, 'c' },
		{ 0 }
	};
	int c;

	snprintf(o->driver, sizeof(o->driver), "vivpoll");
	o->ctrl = true;
	o->count = 1000;
	o->warmup = 20;
	o->cpus = "same";
	o->cpu_w = o->cpu_s = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":k:D:n:w:c:", lopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (!strcmp(optarg, "ctrl"))
				o->ctrl = true;
			else if (!strcmp(optarg, "eventfd"))
				o->ctrl = false;
			else
				bench_usage_error("event", "--kind is ctrl or eventfd, not", optarg);
			break;
		case 'D':
			snprintf(o->driver, sizeof(o->driver), "%s", optarg);
			break;
		case 'n':
			if (vp_parse_uint(optarg, 1, 1000000, &o->count))
				bench_usage_error("event", "bad --count", optarg);
			break;
		case 'w':
			if (vp_parse_uint(optarg, 0, 100000, &o->warmup))
				bench_usage_error("event", "bad --warmup", optarg);
			break;
		case 'c':
			if (!strcmp(optarg, "same")) {
				o->cpu_w = o->cpu_s = 0;
			} else if (!strcmp(optarg, "split")) {
				o->cpu_s = 0;
				o->cpu_w = 1;
			} else if (!strcmp(optarg, "any")) {
				o->cpu_w = o->cpu_s = -1;
			} else {
				bench_usage_error("event", "--cpus is same, split or any, not", optarg);
			}
			o->cpus = optarg;
			break;
		case ':':
			bench_usage_error("event", "missing argument for", argv[optind - 1]);
		default:
			bench_usage_error("event", "unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bench_usage_error("event", "unexpected argument", argv[optind]);
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { 0, (long)us * 1000 };

	nanosleep(&ts, NULL);
}

/* Wait until *p == v; false after the timeout or if the child died */
static bool wait_for(uint32_t *p, uint32_t v, pid_t child)
{
	uint64_t end = vp_now_ns() + EVENT_TIMEOUT_MS * 1000000ull;

	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != v) {
		if (vp_now_ns() > end || waitpid(child, NULL, WNOHANG) == child)
			return false;
		sleep_us(20);
	}
	return true;
}

static void waiter(struct shared *sh, const struct eopts *o, int fd,
		   int efd, size_t total)
{
	double *lat = sh->v, *evl = sh->v + total;
	size_t i;

	bench_pin(o->cpu_w);
	for (i = 0; i < total; i++) {
		struct timeval tv = { EVENT_TIMEOUT_MS / 1000, 0 };
		int wfd = o->ctrl ? fd : efd;
		fd_set set;
		uint64_t t;
		int r;

		FD_ZERO(&set);
		FD_SET(wfd, &set);
		__atomic_store_n(&sh->armed, (uint32_t)i + 1, __ATOMIC_RELEASE);
		if (o->ctrl)
			r = select(wfd + 1, NULL, NULL, &set, &tv);
		else
			r = select(wfd + 1, &set, NULL, NULL, &tv);
		t = vp_now_ns();
		if (r <= 0) {
			sh->err = r < 0 ? errno : ETIMEDOUT;
			_exit(1);
		}
		lat[i] = ((double)t -
			  (double)__atomic_load_n(&sh->t_send, __ATOMIC_ACQUIRE)) / 1e3;
		evl[i] = NAN;
		if (o->ctrl) {
			struct v4l2_event ev;
			bool first = true;

			memset(&ev, 0, sizeof(ev));
			while (ioctl(fd, VIDIOC_DQEVENT, &ev) == 0) {
				if (first) {
					uint64_t q = (uint64_t)ev.timestamp.tv_sec *
						     1000000000ull + ev.timestamp.tv_nsec;

					evl[i] = ((double)t - (double)q) / 1e3;
					first = false;
				}
				if (!ev.pending)
					break;
			}
		} else {
			uint64_t v;

			if (read(efd, &v, sizeof(v)) != sizeof(v)) {
				sh->err = errno;
				_exit(1);
			}
		}
		__atomic_store_n(&sh->done, (uint32_t)i + 1, __ATOMIC_RELEASE);
	}
	_exit(0);
}

int bench_event_main(int argc, char **argv)
{
	struct eopts o;
	struct shared *sh;
	struct bench_json j;
	char path[64], name[32];
	size_t total, i, shsize;
	double *sig_us;
	int fd = -1, sfd = -1, efd = -1, rc = 1, status;
	const char *test = "event";
	pid_t child;

	parse_event(argc, argv, &o);
	total = o.count + o.warmup;
	shsize = sizeof(*sh) + 2 * total * sizeof(double);
	sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	sig_us = calloc(total, sizeof(*sig_us));
	if (sh == MAP_FAILED || !sig_us)
		return bench_fail(test, "out of memory");

	if (o.ctrl) {
		if (bench_find_node(o.driver, path, sizeof(path), name, sizeof(name)))
			return bench_fail(test, "no %s capture device", o.driver);
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		sfd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || sfd < 0)
			return bench_fail(test, "open %s: %s", path, strerror(errno));
		if (vp_subscribe(fd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0))
			return bench_fail(test, "cannot subscribe to brightness events");
	} else {
		efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (efd < 0)
			return bench_fail(test, "eventfd: %s", strerror(errno));
	}

	child = fork();
	if (child < 0)
		return bench_fail(test, "fork: %s", strerror(errno));
	if (!child)
		waiter(sh, &o, fd, efd, total);

	bench_pin(o.cpu_s);
	for (i = 0; i < total; i++) {
		uint64_t t, end;
		int r;

		if (!wait_for(&sh->armed, (uint32_t)i + 1, child))
			break;
		/* the waiter is armed; wait until it sleeps in select() */
		end = vp_now_ns() + EVENT_TIMEOUT_MS * 1000000ull;
		while (bench_task_state(child) != 'S' && vp_now_ns() < end)
			sleep_us(50);
		t = vp_now_ns();
		__atomic_store_n(&sh->t_send, t, __ATOMIC_RELEASE);
		if (o.ctrl) {
			r = vp_ctrl_set(sfd, V4L2_CID_BRIGHTNESS, (i & 1) ? 100 : 150);
		} else {
			uint64_t one = 1;

			r = write(efd, &one, sizeof(one)) == sizeof(one) ? 0 : -errno;
		}
		sig_us[i] = (vp_now_ns() - t) / 1e3;
		if (r) {
			fprintf(stderr, "vivpoll-bench event: signal: %s\n", strerror(-r));
			break;
		}
		if (!wait_for(&sh->done, (uint32_t)i + 1, child))
			break;
	}
	if (i < total) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		rc = bench_fail(test, "%s event %zu of %zu did not arrive (%s)",
				o.ctrl ? "control" : "eventfd", i + 1, total,
				sh->err ? strerror(sh->err) : "timeout");
		goto out;
	}
	waitpid(child, &status, 0);
	if (o.ctrl)
		vp_ctrl_set(sfd, V4L2_CID_BRIGHTNESS, 128);	/* the default */

	{
		double *lat = sh->v + o.warmup, *evl = sh->v + total + o.warmup;
		double *sig = sig_us + o.warmup;
		size_t n = o.count;

		bj_begin(&j, test);
		bj_str(&j, "kind", o.ctrl ? "ctrl" : "eventfd");
		bj_str(&j, "driver", o.ctrl ? o.driver : "eventfd");
		bj_str(&j, "cpus", o.cpus);
		bj_int(&j, "count", (long long)n);
		/* the samples, for the host to pool runs (before sorting) */
		bj_array(&j, "lat_us", lat, n, 1);
		bj_num(&j, "mean_us", bench_mean(lat, n));
		bj_num(&j, "p50_us", bench_pct(lat, n, 0.5));
		bj_num(&j, "p90_us", bench_pct(lat, n, 0.9));
		bj_num(&j, "p99_us", bench_pct(lat, n, 0.99));
		bj_num(&j, "min_us", bench_pct(lat, n, 0));
		bj_num(&j, "max_us", bench_pct(lat, n, 1));
		bj_num(&j, "signal_p50_us", bench_pct(sig, n, 0.5));
		if (o.ctrl) {
			bj_num(&j, "ev_p50_us", bench_pct(evl, n, 0.5));
			bj_num(&j, "ev_p99_us", bench_pct(evl, n, 0.99));
		}
		bj_end(&j);
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (sfd >= 0)
		close(sfd);
	if (efd >= 0)
		close(efd);
	free(sig_us);
	munmap(sh, shsize);
	return rc;
}

/* ---- poll cost ------------------------------------------------------------ */

struct ptarget {
	const char *name;
	int fd;
	short events;
	double *wall_ns, *cpu_ns;
	unsigned long pending;	/* calls that found something pending */
};

int bench_poll_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'c' },
		{ 0 }
	};
	unsigned long count = 10000, rounds = 15, cpu = 0, k, r;
	uint64_t starts0 = 0, starts1 = 0;
	struct ptarget t[3];
	struct bench_json j;
	char path[64], name[32];
	size_t nt = 0, i;
	int c, inst = -1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:r:c:", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (vp_parse_uint(optarg, 1, 100000000, &count))
				bench_usage_error("poll", "bad --count", optarg);
			break;
		case 'r':
			if (vp_parse_uint(optarg, 1, 1000, &rounds))
				bench_usage_error("poll", "bad --rounds", optarg);
			break;
		case 'c':
			if (vp_parse_uint(optarg, 0, 1023, &cpu))
				bench_usage_error("poll", "bad --cpu", optarg);
			break;
		case ':':
			bench_usage_error("poll", "missing argument for", argv[optind - 1]);
		default:
			bench_usage_error("poll", "unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bench_usage_error("poll", "unexpected argument", argv[optind]);
	bench_pin((int)cpu);

	memset(t, 0, sizeof(t));
	if (bench_find_node("vivpoll", path, sizeof(path), name, sizeof(name)))
		return bench_fail("poll", "no vivpoll capture device");
	t[nt].name = "vivpoll";
	t[nt].events = POLLPRI;
	t[nt].fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t[nt].fd < 0)
		return bench_fail("poll", "open %s: %s", path, strerror(errno));
	vp_subscribe(t[nt].fd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0);
	inst = vp_instance(t[nt].fd);
	nt++;
	t[nt].name = "eventfd";
	t[nt].events = POLLIN;
	t[nt].fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t[nt].fd < 0)
		return bench_fail("poll", "eventfd: %s", strerror(errno));
	nt++;
	if (!bench_find_node("vivid", path, sizeof(path), NULL, 0)) {
		t[nt].name = "vivid";
		t[nt].events = POLLPRI;
		t[nt].fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (t[nt].fd >= 0) {
			vp_subscribe(t[nt].fd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0);
			nt++;
		}
	}
	for (i = 0; i < nt; i++) {
		t[i].wall_ns = calloc(rounds, sizeof(double));
		t[i].cpu_ns = calloc(rounds, sizeof(double));
		if (!t[i].wall_ns || !t[i].cpu_ns)
			return bench_fail("poll", "out of memory");
	}

	if (inst >= 0) {
		vp_engine_starts(t[0].fd, inst, &starts0);
	}
	for (r = 0; r < rounds; r++) {
		size_t n;

		/* rotate the order, so that no file always goes first */
		for (n = 0; n < nt; n++) {
			struct pollfd pfd;
			uint64_t w0, c0;

			i = (n + r) % nt;
			pfd.fd = t[i].fd;
			pfd.events = t[i].events;
			w0 = vp_now_ns();
			c0 = bench_thread_cpu_ns();
			for (k = 0; k < count; k++) {
				pfd.revents = 0;
				if (poll(&pfd, 1, 0) != 0)
					t[i].pending++;
			}
			t[i].cpu_ns[r] = (double)(bench_thread_cpu_ns() - c0) / count;
			t[i].wall_ns[r] = (double)(vp_now_ns() - w0) / count;
		}
	}
	if (inst >= 0) {
		vp_engine_starts(t[0].fd, inst, &starts1);
	}

	bj_begin(&j, "poll");
	bj_int(&j, "count", (long long)count);
	bj_int(&j, "rounds", (long long)rounds);
	for (i = 0; i < nt; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s_ns", t[i].name);
		bj_num(&j, key, bench_pct(t[i].wall_ns, rounds, 0.5));
		snprintf(key, sizeof(key), "%s_min_ns", t[i].name);
		bj_num(&j, key, bench_pct(t[i].wall_ns, rounds, 0));
		snprintf(key, sizeof(key), "%s_cpu_ns", t[i].name);
		bj_num(&j, key, bench_pct(t[i].cpu_ns, rounds, 0.5));
		snprintf(key, sizeof(key), "%s_pending", t[i].name);
		bj_int(&j, key, (long long)t[i].pending);
		close(t[i].fd);
		free(t[i].wall_ns);
		free(t[i].cpu_ns);
	}
	if (inst >= 0) {
		bj_int(&j, "vivpoll_engine_starts", (long long)(starts1 - starts0));
	}
	bj_end(&j);
	return 0;
}
