// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-bench fanout: one event, N waiters. How long until the last of
 * them is awake, and what each wake-up costs, on one vivpoll node against
 * one eventfd.
 *
 * N waiter processes (clients: each its own process) wait in select(),
 * poll() or epoll_wait():
 *   --kind vivpoll  each opens the vivpoll capture node, subscribes to the
 *                   brightness control's events and waits for them alone
 *                   (exceptfds; POLLPRI; EPOLLPRI), then takes its event
 *                   with VIDIOC_DQEVENT; the event: VIDIOC_S_CTRL on the
 *                   brightness through a file of the parent's own
 *   --kind eventfd  all wait on one eventfd (readfds; POLLIN; EPOLLIN),
 *                   which none of them reads; the event: a write of 1,
 *                   and the parent reads it back to 0 once all are awake
 * The eventfd is the cheapest baseline: its waiters take nothing, where a
 * vivpoll waiter takes its event with VIDIOC_DQEVENT. (Each eventfd waiter
 * taking one with read() in semaphore mode was tried: every read wakes the
 * eventfd's wait queue for EPOLLOUT, a walk of the waiters still queued,
 * so its cost per waiter grew with N (65 us at 1 waiter, 230-330 us at
 * 1024 in one loaded run of 2026-12-05): a baseline made steep by the way
 * it is read, against which any growth would pass.)
 * For each event the parent waits until every waiter is asleep in its wait
 * (it announced the event it waits for in shared memory and its /proc
 * state is S), takes CLOCK_MONOTONIC and signals. Each waiter takes the
 * clock as its call returns; the figures: the last waiter's wake-up minus
 * the signal (p50, p99 over the events) and the first's. Then a gate (a
 * futex in shared memory) holds every waiter until the parent opens the
 * next event, so that an eventfd still readable for the later waiters is
 * not seen twice.
 *
 * CPU per event per waiter: each waiter's thread CPU clock from just before
 * its wait to just after it took its event (the wait's own work, the
 * wake-up's return, DQEVENT), summed, plus the parent's thread CPU clock
 * across each signal (S_CTRL queues the event on every file and
 * wakes each; write() walks the eventfd's wait queue), divided by waiters:
 * per event (cpu_p50_us_per_waiter: the median over the events, which a
 * host that preempts the vCPU now and then does not move) and over all
 * events (cpu_us_per_waiter, the mean). The gate and the parent's /proc
 * checks are outside both.
 *
 * Correctness, counted for every event including the warm-up: every waiter
 * woke once with the event it waited for (POLLPRI and no POLLIN; POLLIN)
 * and, on vivpoll, took exactly one brightness event; the engine start and
 * frame counters of the device did not move. The run fails (an "error"
 * object, status 1) if a waiter did not wake within --timeout; it prints
 * its object with "ok": false and exits 1 if any other check failed.
 * --cpus same (the default) runs the parent and every waiter on CPU 0, so
 * that each wake-up is a context switch, not an inter-processor interrupt
 * (steadier under TCG); any leaves them to the scheduler.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-util.h"

#define FO_MAX_WAITERS	4096

enum { API_SELECT, API_POLL, API_EPOLL };
static const char *const api_name[] = { "select", "poll", "epoll" };

struct fopts {
	bool vivpoll;
	int api;
	unsigned long waiters, events, warmup, timeout_ms;
	int cpu;
	const char *cpus;
};

struct fwaiter {
	uint32_t armed;		/* the event it waits for (1, 2, ...) */
	uint32_t woken;		/* events it woke for */
	uint32_t wrong;		/* wake-ups with the wrong events, or not one event */
	uint32_t err;		/* errno of a failed call */
	uint64_t wake_ns;	/* when its wait returned, for the last event */
	uint64_t cpu_ns;	/* its CPU in the measured events */
	pid_t pid;
};

struct fshared {
	uint32_t gen;		/* the event the waiters may wait for now */
	uint32_t ready;		/* waiters set up */
	uint32_t done;		/* wake-ups so far, all events */
	uint32_t target;	/* done value the last waiter of an event reaches */
	uint32_t measure_from;	/* first measured event */
	uint32_t pad;
	uint64_t *ev_cpu_ns;	/* per event: the waiters' CPU, summed */
	struct fwaiter w[];
};

static long futex(uint32_t *uaddr, int op, uint32_t val,
		  const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static void parse(int argc, char **argv, struct fopts *o)
{
	static const struct option lopts[] = {
		{ "kind", required_argument, NULL, 'k' },
		{ "api", required_argument, NULL, 'a' },
		{ "waiters", required_argument, NULL, 'n' },
		{ "events", required_argument, NULL, 'e' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'c' },
		{ 0 }
	};
	int c;

	o->vivpoll = true;
	o->api = API_SELECT;
	o->waiters = 16;
	o->events = 30;
	o->warmup = 2;
	o->timeout_ms = 30000;
	o->cpu = 0;
	o->cpus = "same";
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":k:a:n:e:w:t:c:", lopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (!strcmp(optarg, "vivpoll"))
				o->vivpoll = true;
			else if (!strcmp(optarg, "eventfd"))
				o->vivpoll = false;
			else
				bench_usage_error("fanout", "--kind is vivpoll or eventfd, not", optarg);
			break;
		case 'a':
			if (!strcmp(optarg, "select"))
				o->api = API_SELECT;
			else if (!strcmp(optarg, "poll"))
				o->api = API_POLL;
			else if (!strcmp(optarg, "epoll"))
				o->api = API_EPOLL;
			else
				bench_usage_error("fanout", "--api is select, poll or epoll, not", optarg);
			break;
		case 'n':
			if (vp_parse_uint(optarg, 1, FO_MAX_WAITERS, &o->waiters))
				bench_usage_error("fanout", "--waiters wants 1..4096, not", optarg);
			break;
		case 'e':
			if (vp_parse_uint(optarg, 1, 100000, &o->events))
				bench_usage_error("fanout", "bad --events", optarg);
			break;
		case 'w':
			if (vp_parse_uint(optarg, 0, 10000, &o->warmup))
				bench_usage_error("fanout", "bad --warmup", optarg);
			break;
		case 't':
			if (vp_parse_seconds(optarg, &o->timeout_ms) || o->timeout_ms < 100)
				bench_usage_error("fanout", "--timeout wants seconds >= 0.1, not", optarg);
			break;
		case 'c':
			if (!strcmp(optarg, "same"))
				o->cpu = 0;
			else if (!strcmp(optarg, "any"))
				o->cpu = -1;
			else
				bench_usage_error("fanout", "--cpus is same or any, not", optarg);
			o->cpus = optarg;
			break;
		case ':':
			bench_usage_error("fanout", "missing argument for", argv[optind - 1]);
		default:
			bench_usage_error("fanout", "unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bench_usage_error("fanout", "unexpected argument", argv[optind]);
}

/* Wait for the event on fd (a vivpoll file or the eventfd): 1, 0 timeout, -errno */
static int wait_once(const struct fopts *o, int fd, int epfd, short *revents)
{
	int ms = (int)o->timeout_ms, r;

	*revents = 0;
	if (o->api == API_SELECT) {
		struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
		fd_set set;

		FD_ZERO(&set);
		FD_SET(fd, &set);
		r = o->vivpoll ? select(fd + 1, NULL, NULL, &set, &tv) :
				 select(fd + 1, &set, NULL, NULL, &tv);
		if (r > 0 && FD_ISSET(fd, &set))
			*revents = o->vivpoll ? POLLPRI : POLLIN;
	} else if (o->api == API_POLL) {
		struct pollfd p = { fd, o->vivpoll ? POLLPRI : POLLIN, 0 };

		r = poll(&p, 1, ms);
		*revents = p.revents;
	} else {
		struct epoll_event ev;

		r = epoll_wait(epfd, &ev, 1, ms);
		if (r > 0)
			*revents = (short)ev.events;
	}
	return r < 0 ? -errno : r;
}

static void waiter(struct fshared *sh, const struct fopts *o, unsigned long i,
		   const char *path, int efd)
{
	struct fwaiter *me = &sh->w[i];
	int fd = efd, epfd = -1;
	uint32_t g;

	bench_pin(o->cpu);
	if (o->vivpoll) {
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || vp_subscribe(fd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0)) {
			me->err = errno ? errno : EIO;
			_exit(1);
		}
	}
	if (o->api == API_EPOLL) {
		struct epoll_event ev = { .events = o->vivpoll ? EPOLLPRI : EPOLLIN };

		epfd = epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)) {
			me->err = errno;
			_exit(1);
		}
	}
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_ACQ_REL);
	futex(&sh->ready, FUTEX_WAKE, 1, NULL);

	for (g = 1; g <= o->events + o->warmup; g++) {
		uint64_t c0, c1, t;
		short rev;
		int r;

		/* the gate: until the parent opens event g */
		while (__atomic_load_n(&sh->gen, __ATOMIC_ACQUIRE) < g)
			futex(&sh->gen, FUTEX_WAIT, g - 1, NULL);
		__atomic_store_n(&me->armed, g, __ATOMIC_RELEASE);
		c0 = bench_thread_cpu_ns();
		r = wait_once(o, fd, epfd, &rev);
		t = vp_now_ns();
		if (r <= 0) {
			me->err = r < 0 ? (uint32_t)-r : ETIMEDOUT;
			_exit(1);
		}
		if (o->vivpoll) {
			struct v4l2_event ev;
			int got = 0;

			if (!(rev & POLLPRI) || (rev & (POLLIN | POLLERR)))
				me->wrong++;
			memset(&ev, 0, sizeof(ev));
			while (ioctl(fd, VIDIOC_DQEVENT, &ev) == 0) {
				if (ev.type == V4L2_EVENT_CTRL && ev.id == V4L2_CID_BRIGHTNESS)
					got++;
				else
					got += 2;
				if (!ev.pending)
					break;
			}
			if (got != 1)
				me->wrong++;
		} else if (!(rev & POLLIN)) {
			me->wrong++;
		}
		c1 = bench_thread_cpu_ns();
		me->wake_ns = t;
		me->woken++;
		__atomic_add_fetch(&sh->ev_cpu_ns[g - 1], c1 - c0, __ATOMIC_RELAXED);
		if (g >= sh->measure_from)
			me->cpu_ns += c1 - c0;
		if (__atomic_add_fetch(&sh->done, 1, __ATOMIC_ACQ_REL) ==
		    __atomic_load_n(&sh->target, __ATOMIC_ACQUIRE))
			futex(&sh->done, FUTEX_WAKE, 1, NULL);
	}
	/* exit only when all are done: an exit is no wake-up to time */
	while (__atomic_load_n(&sh->gen, __ATOMIC_ACQUIRE) < g)
		futex(&sh->gen, FUTEX_WAIT, g - 1, NULL);
	_exit(0);
}

/* Sleep on *p until it reaches v or ms pass; the value reached */
static uint32_t wait_value(uint32_t *p, uint32_t v, unsigned long ms)
{
	uint64_t end = vp_now_ns() + ms * 1000000ull;
	uint32_t cur;

	while ((cur = __atomic_load_n(p, __ATOMIC_ACQUIRE)) < v) {
		uint64_t now = vp_now_ns();
		struct timespec ts;

		if (now >= end)
			break;
		/* at most 10 ms at a time: a waiter that died cannot wake us */
		ts.tv_sec = 0;
		ts.tv_nsec = (long)((end - now) < 10000000ull ? end - now : 10000000ull);
		futex(p, FUTEX_WAIT, cur, &ts);
	}
	return cur;
}

/* Every waiter armed for event g and asleep (state S); false after ms */
static bool all_asleep(struct fshared *sh, unsigned long n, uint32_t g,
		       unsigned long ms, unsigned long *from)
{
	uint64_t end = vp_now_ns() + ms * 1000000ull;

	/* the waiters before *from were seen asleep already */
	while (*from < n) {
		struct fwaiter *w = &sh->w[*from];

		if (__atomic_load_n(&w->armed, __ATOMIC_ACQUIRE) == g &&
		    bench_task_state(w->pid) == 'S') {
			(*from)++;
			continue;
		}
		if (vp_now_ns() > end)
			return false;
		usleep(50);
	}
	return true;
}

static int reap(struct fshared *sh, unsigned long n, bool kill_them)
{
	unsigned long i;
	int bad = 0, status;

	for (i = 0; i < n; i++) {
		if (sh->w[i].pid <= 0)
			continue;
		if (kill_them)
			kill(sh->w[i].pid, SIGKILL);
		if (waitpid(sh->w[i].pid, &status, 0) == sh->w[i].pid &&
		    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			bad++;
	}
	return bad;
}

int bench_fanout_main(int argc, char **argv)
{
	struct fopts o;
	struct fshared *sh;
	struct bench_json j;
	char path[64] = "", name[32];
	size_t shsize;
	unsigned long i, total, asleep;
	double *last_us, *first_us, *ev_cpu_us, send_cpu_ns = 0;
	int cfd = -1, efd = -1, rc = 1;
	int64_t starts0 = 0, frames0 = 0, starts1 = 0, frames1 = 0;
	uint32_t g;
	const char *test = "fanout";

	parse(argc, argv, &o);
	total = o.events + o.warmup;
	shsize = sizeof(*sh) + o.waiters * sizeof(struct fwaiter) + total * sizeof(uint64_t);
	sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	last_us = calloc(total, sizeof(double));
	first_us = calloc(total, sizeof(double));
	ev_cpu_us = calloc(total, sizeof(double));
	if (sh == MAP_FAILED || !last_us || !first_us || !ev_cpu_us)
		return bench_fail(test, "out of memory");
	sh->ev_cpu_ns = (uint64_t *)&sh->w[o.waiters];
	sh->measure_from = (uint32_t)o.warmup + 1;

	/* the parent's file: the signal, and the counters */
	if (bench_find_node("vivpoll", path, sizeof(path), name, sizeof(name)))
		return bench_fail(test, "no vivpoll capture device");
	cfd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (cfd < 0)
		return bench_fail(test, "open %s: %s", path, strerror(errno));
	if (!o.vivpoll) {
		efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (efd < 0)
			return bench_fail(test, "eventfd: %s", strerror(errno));
	}
	if (vp_ctrl_get64(cfd, VIVPOLL_CID_ENGINE_STARTS, &starts0) ||
	    vp_ctrl_get64(cfd, VIVPOLL_CID_FRAMES, &frames0))
		return bench_fail(test, "cannot read the engine counters of %s", path);

	/* a known value, before anyone subscribes: every event then changes it */
	if (o.vivpoll && vp_ctrl_set(cfd, V4L2_CID_BRIGHTNESS, 128))
		return bench_fail(test, "cannot set the brightness of %s", path);

	bench_pin(o.cpu);
	for (i = 0; i < o.waiters; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			reap(sh, i, true);
			return bench_fail(test, "fork of waiter %lu: %s", i + 1, strerror(errno));
		}
		if (!pid)
			waiter(sh, &o, i, path, efd);
		sh->w[i].pid = pid;
	}
	if (wait_value(&sh->ready, (uint32_t)o.waiters, o.timeout_ms) < o.waiters) {
		for (i = 0; i < o.waiters && !sh->w[i].err; i++)
			;
		rc = bench_fail(test, "only %u of %lu waiters set up (%s)", sh->ready, o.waiters,
				i < o.waiters ? strerror((int)sh->w[i].err) : "timeout");
		reap(sh, o.waiters, true);
		goto out;
	}

	for (g = 1; g <= total; g++) {
		uint64_t t, c0, c1, lo = UINT64_MAX, hi = 0;
		uint32_t done;
		int r;

		__atomic_store_n(&sh->target, (uint32_t)(g * o.waiters), __ATOMIC_RELEASE);
		__atomic_store_n(&sh->gen, g, __ATOMIC_RELEASE);
		futex(&sh->gen, FUTEX_WAKE, INT_MAX, NULL);
		asleep = 0;
		if (!all_asleep(sh, o.waiters, g, o.timeout_ms, &asleep)) {
			rc = bench_fail(test, "event %u: %lu of %lu waiters asleep after %lu ms",
					g, asleep, o.waiters, o.timeout_ms);
			reap(sh, o.waiters, true);
			goto out;
		}
		c0 = bench_thread_cpu_ns();
		t = vp_now_ns();
		if (o.vivpoll) {
			r = vp_ctrl_set(cfd, V4L2_CID_BRIGHTNESS, (g & 1) ? 100 : 150);
		} else {
			uint64_t one = 1;

			r = write(efd, &one, sizeof(one)) == sizeof(one) ? 0 : -errno;
		}
		c1 = bench_thread_cpu_ns();
		if (g >= sh->measure_from)
			send_cpu_ns += (double)(c1 - c0);
		if (r) {
			rc = bench_fail(test, "event %u: signal: %s", g, strerror(-r));
			reap(sh, o.waiters, true);
			goto out;
		}
		done = wait_value(&sh->done, g * (uint32_t)o.waiters, o.timeout_ms);
		if (done < g * o.waiters) {
			unsigned long late = 0, first = 0;
			uint32_t err = 0;

			for (i = 0; i < o.waiters; i++) {
				if (sh->w[i].woken < g && !late++)
					first = i;
				if (sh->w[i].err && !err)
					err = sh->w[i].err;
			}
			rc = bench_fail(test, "event %u: %lu of %lu waiters did not wake within %lu ms (the first: waiter %lu)%s%s",
					g, late, o.waiters, o.timeout_ms, first + 1,
					err ? ": " : "", err ? strerror((int)err) : "");
			reap(sh, o.waiters, true);
			goto out;
		}
		for (i = 0; i < o.waiters; i++) {
			uint64_t w = sh->w[i].wake_ns;

			lo = w < lo ? w : lo;
			hi = w > hi ? w : hi;
		}
		last_us[g - 1] = ((double)hi - (double)t) / 1e3;
		first_us[g - 1] = ((double)lo - (double)t) / 1e3;
		ev_cpu_us[g - 1] = ((double)__atomic_load_n(&sh->ev_cpu_ns[g - 1], __ATOMIC_ACQUIRE) +
				    (double)(c1 - c0)) / 1e3 / (double)o.waiters;
		if (!o.vivpoll) {
			uint64_t v = 0;

			if (read(efd, &v, sizeof(v)) != sizeof(v) || v != 1) {
				rc = bench_fail(test, "event %u: eventfd read: %llu, %s", g,
						(unsigned long long)v, strerror(errno));
				reap(sh, o.waiters, true);
				goto out;
			}
		}
	}
	/* let the waiters exit */
	__atomic_store_n(&sh->gen, (uint32_t)total + 1, __ATOMIC_RELEASE);
	futex(&sh->gen, FUTEX_WAKE, INT_MAX, NULL);
	{
		unsigned long bad_exit = (unsigned long)reap(sh, o.waiters, false);
		unsigned long missed = 0, wrong = 0, woken = 0;
		double wcpu = 0;
		size_t n = o.events;
		bool ok;

		for (i = 0; i < o.waiters; i++) {
			woken += sh->w[i].woken;
			wrong += sh->w[i].wrong;
			missed += sh->w[i].woken != total;
			wcpu += (double)sh->w[i].cpu_ns;
		}
		if (vp_ctrl_get64(cfd, VIVPOLL_CID_ENGINE_STARTS, &starts1) ||
		    vp_ctrl_get64(cfd, VIVPOLL_CID_FRAMES, &frames1)) {
			rc = bench_fail(test, "cannot read the engine counters of %s", path);
			goto out;
		}
		ok = !missed && !wrong && !bad_exit && starts1 == starts0 && frames1 == frames0;
		bj_begin(&j, test);
		bj_str(&j, "kind", o.vivpoll ? "vivpoll" : "eventfd");
		bj_str(&j, "api", api_name[o.api]);
		bj_int(&j, "waiters", (long long)o.waiters);
		bj_int(&j, "events", (long long)o.events);
		bj_int(&j, "warmup", (long long)o.warmup);
		bj_str(&j, "cpus", o.cpus);
		bj_int(&j, "wakeups", (long long)woken);
		bj_int(&j, "wakeups_expected", (long long)(total * o.waiters));
		bj_int(&j, "waiters_missed", (long long)missed);
		bj_int(&j, "wrong", (long long)wrong);
		bj_int(&j, "bad_exits", (long long)bad_exit);
		bj_int(&j, "engine_starts", (long long)(starts1 - starts0));
		bj_int(&j, "frames", (long long)(frames1 - frames0));
		bj_array(&j, "last_us", last_us + o.warmup, n, 1);
		bj_num(&j, "last_p50_us", bench_pct(last_us + o.warmup, n, 0.5));
		bj_num(&j, "last_p99_us", bench_pct(last_us + o.warmup, n, 0.99));
		bj_num(&j, "first_p50_us", bench_pct(first_us + o.warmup, n, 0.5));
		bj_num(&j, "waiter_cpu_ms", wcpu / 1e6);
		bj_num(&j, "send_cpu_ms", send_cpu_ns / 1e6);
		bj_num(&j, "cpu_us_per_waiter", (wcpu + send_cpu_ns) / 1e3 / (double)n /
						 (double)o.waiters);
		/*
		 * to the nanosecond (an instruction under -icount): the
		 * report's median and its rounds' spread are of these, and
		 * in tenths of a microsecond (100 instructions, 1.5% to 2%
		 * of a figure) they said nothing finer than that
		 */
		bj_array(&j, "cpu_us", ev_cpu_us + o.warmup, n, 3);
		bj_num(&j, "cpu_p50_us_per_waiter", bench_pct(ev_cpu_us + o.warmup, n, 0.5));
		bj_bool(&j, "ok", ok);
		bj_end(&j);
		rc = ok ? 0 : 1;
	}
out:
	if (o.vivpoll && cfd >= 0)
		vp_ctrl_set(cfd, V4L2_CID_BRIGHTNESS, 128);	/* the default */
	if (cfd >= 0)
		close(cfd);
	if (efd >= 0)
		close(efd);
	free(last_us);
	free(first_us);
	free(ev_cpu_us);
	munmap(sh, shsize);
	return rc;
}
