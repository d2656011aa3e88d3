// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-bench pollcore: what the poll core itself costs, for comparing
 * kernels (the poll patch built in with its switch off or on, against the
 * same kernel built without it: tools/bench.sh boots each in turn).
 *
 * select(), poll() and epoll_wait(), each with a zero timeout, on the first
 * 1, 64 and 1024 of 1024 eventfds (an eventfd's ->poll is a few
 * instructions, so the core's own loop is what is timed), all of them ready
 * (a count of 1: POLLIN) or none (a count of 0). select() is given bitmaps
 * as long as the highest fd needs (the kernel takes any nfds up to the fd
 * table's size; glibc's fd_set stops at 1024); epoll_wait() has one epoll
 * instance per count, holding those fds level-triggered. Every call's
 * return value is checked (N ready, or 0).
 *
 * Each round times every (state, switch, call, count) in a row, K calls of
 * each, K = --work / count (at least 16); rounds rotate the order of
 * states, switch settings and calls. With fs.poll_legacy_null_table
 * present, each row is timed with the switch off and on ("on" taints the
 * kernel; it is put back to off at the end); without it, off only. One
 * JSON object a row: the minimum and median over the rounds of the time
 * per call (wall, and the thread's CPU clock). The minimum is the figure:
 * on a shared host under TCG, noise (the vCPU thread preempted) only ever
 * adds. Before each sample, a sleep of a pseudo-random 0 to 4 ms moves its
 * start against the guest's timer tick (HZ=250), so that no row meets the
 * tick at the same place in every round. It was added for poll() on 64
 * fds, 61 instructions a call apart between two kernels with the same
 * fs/select.c (2026-12-05), but the tick was not that: on 2026-12-06, one
 * boot of three of one kernel under QEMU -icount gave 7742.8 a call on
 * that row in every round and the other two 7681.8, and so did single
 * calls timed one by one (the fastest of 320, a trial). Some state of
 * the booted guest, not the code, costs those 61 (the row allocates with
 * kmalloc() under SLOB: a guess); the boots of each kernel, whose spread
 * is the row's noise, are what shows it.
 *
 * And one reference row ("call": "getppid"): before each state and switch
 * setting of a round, --work getppid() system calls, which touch neither
 * fs/select.c nor fs/eventpoll.c. A host busier during one boot than
 * another slows every row of that boot alike (1.3x to 1.65x on every row
 * in one loaded run of 2026-12-05); each row over the reference of its own
 * boot takes that factor out (bench-report.py shows it as info).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

#define PC_MAX_FDS	1024
#define PC_MAX_COUNTS	8
#define BITS_PER_UL	(8 * sizeof(unsigned long))

enum { CALL_SELECT, CALL_POLL, CALL_EPOLL, NR_CALLS };
static const char *const call_name[NR_CALLS] = { "select", "poll", "epoll_wait" };

struct pc {
	int fd[PC_MAX_FDS];
	int nfds;			/* highest fd + 1 */
	int sel_nfds;			/* the same, of the fds in rset */
	unsigned long *rset, *wset;	/* select's input bitmaps, and a copy */
	size_t words;
	struct pollfd *pfd;
	struct epoll_event *evs;
	unsigned long counts[PC_MAX_COUNTS];
	int epfd[PC_MAX_COUNTS];
	size_t ncounts;
	unsigned long bad;		/* calls that returned what they should not */
	char why[128];
};

/* One row: its samples over the rounds */
struct row {
	int call, state, sw;
	size_t ci;
	double *wall, *cpu;
};

static int parse_counts(const char *s, struct pc *p)
{
	char *end;

	p->ncounts = 0;
	while (*s) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v < 1 || v > PC_MAX_FDS || p->ncounts == PC_MAX_COUNTS)
			return -EINVAL;
		p->counts[p->ncounts++] = v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return p->ncounts ? 0 : -EINVAL;
}

static int set_ready(struct pc *p, bool ready)
{
	uint64_t v = 1;
	int i;

	for (i = 0; i < PC_MAX_FDS; i++) {
		if (ready) {
			if (write(p->fd[i], &v, sizeof(v)) != sizeof(v))
				return -errno;
		} else if (read(p->fd[i], &v, sizeof(v)) < 0 && errno != EAGAIN) {
			return -errno;
		}
	}
	return 0;
}

static int do_call(struct pc *p, int call, size_t ci)
{
	int n = (int)p->counts[ci];

	switch (call) {
	case CALL_SELECT: {
		struct timeval tv = { 0, 0 };

		memcpy(p->wset, p->rset, p->words * sizeof(unsigned long));
		return select(p->sel_nfds, (fd_set *)p->wset, NULL, NULL, &tv);
	}
	case CALL_POLL:
		return poll(p->pfd, n, 0);
	default:
		return epoll_wait(p->epfd[ci], p->evs, n, 0);
	}
}

/* select()'s bitmap of the first n fds, and its nfds */
static void select_bits(struct pc *p, unsigned long n)
{
	unsigned long i;

	memset(p->rset, 0, p->words * sizeof(unsigned long));
	p->sel_nfds = 0;
	for (i = 0; i < n; i++) {
		p->rset[p->fd[i] / BITS_PER_UL] |= 1ul << (p->fd[i] % BITS_PER_UL);
		if (p->fd[i] + 1 > p->sel_nfds)
			p->sel_nfds = p->fd[i] + 1;
	}
}

static int setup(struct pc *p)
{
	struct rlimit rl;
	size_t c;
	int i;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < PC_MAX_FDS + 64) {
		rl.rlim_cur = PC_MAX_FDS + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return -errno;
	}
	for (i = 0; i < PC_MAX_FDS; i++) {
		p->fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (p->fd[i] < 0)
			return -errno;
	}
	for (i = 0; i < PC_MAX_FDS; i++)
		if (p->fd[i] + 1 > p->nfds)
			p->nfds = p->fd[i] + 1;
	p->words = (p->nfds + BITS_PER_UL - 1) / BITS_PER_UL;
	p->rset = calloc(p->words, sizeof(unsigned long));
	p->wset = calloc(p->words, sizeof(unsigned long));
	p->pfd = calloc(PC_MAX_FDS, sizeof(*p->pfd));
	p->evs = calloc(PC_MAX_FDS, sizeof(*p->evs));
	if (!p->rset || !p->wset || !p->pfd || !p->evs)
		return -ENOMEM;
	for (i = 0; i < PC_MAX_FDS; i++) {
		p->pfd[i].fd = p->fd[i];
		p->pfd[i].events = POLLIN;
	}
	for (c = 0; c < p->ncounts; c++) {
		unsigned long k;

		p->epfd[c] = epoll_create1(EPOLL_CLOEXEC);
		if (p->epfd[c] < 0)
			return -errno;
		for (k = 0; k < p->counts[c]; k++) {
			struct epoll_event ev = { .events = EPOLLIN, .data.u32 = k };

			if (epoll_ctl(p->epfd[c], EPOLL_CTL_ADD, p->fd[k], &ev))
				return -errno;
		}
	}
	return 0;
}

static unsigned long calls_for(unsigned long work, unsigned long n)
{
	return work / n < 16 ? 16 : work / n;
}

/* The reference: one sample of work getppid() calls, the minimum per round */
static void time_ref(struct row *ref, unsigned long r, unsigned long work)
{
	uint64_t w0 = vp_now_ns(), c0 = bench_thread_cpu_ns();
	double w, c;
	unsigned long q;

	for (q = 0; q < work; q++)
		syscall(SYS_getppid);
	c = (double)(bench_thread_cpu_ns() - c0) / work;
	w = (double)(vp_now_ns() - w0) / work;
	if (!ref->wall[r] || w < ref->wall[r])
		ref->wall[r] = w;
	if (!ref->cpu[r] || c < ref->cpu[r])
		ref->cpu[r] = c;
}

/* Sleep 0 to 4 ms, pseudo-random from *seed: a sample's start against the tick */
static void shift_phase(uint64_t *seed)
{
	struct timespec ts = { 0, 0 };

	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	ts.tv_nsec = (long)((*seed >> 33) % 4000000);
	nanosleep(&ts, NULL);
}

/* Round r of every call and count, in state st with the switch at sw */
static void time_rows(struct pc *p, struct row *rows, size_t nrows, int st,
		      int sw, unsigned long r, unsigned long work)
{
	static uint64_t seed = 1;

	shift_phase(&seed);
	time_ref(&rows[nrows], r, work);
	for (int m = 0; m < NR_CALLS; m++) {
		int call = (int)((m + r) % NR_CALLS);

		for (size_t i = 0; i < p->ncounts; i++) {
			unsigned long n = p->counts[i], calls = calls_for(work, n), q;
			long want = st == 0 ? (long)n : 0;
			struct row *w = NULL;
			uint64_t w0, c0;

			for (size_t x = 0; x < nrows; x++)
				if (rows[x].call == call && rows[x].state == st &&
				    rows[x].sw == sw && rows[x].ci == i)
					w = &rows[x];
			if (call == CALL_SELECT)
				select_bits(p, n);
			shift_phase(&seed);
			w0 = vp_now_ns();
			c0 = bench_thread_cpu_ns();
			for (q = 0; q < calls; q++) {
				int ret = do_call(p, call, i);

				if (ret != want && !p->bad++)
					snprintf(p->why, sizeof(p->why),
						 "%s on %lu fds (%s) returned %d, not %ld%s%s",
						 call_name[call], n, st ? "not ready" : "ready",
						 ret, want, ret < 0 ? ": " : "",
						 ret < 0 ? strerror(errno) : "");
			}
			w->cpu[r] = (double)(bench_thread_cpu_ns() - c0) / calls;
			w->wall[r] = (double)(vp_now_ns() - w0) / calls;
		}
	}
}

int bench_pollcore_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "counts", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "work", required_argument, NULL, 'w' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "switch", required_argument, NULL, 's' },
		{ 0 }
	};
	unsigned long rounds = 20, work = 16384, cpu = 0, r;
	bool sysctl, with_on = true;
	struct pc *p;
	struct row *rows;
	size_t nrows = 0, i;
	int c, nsw, err, old = 0;

	p = calloc(1, sizeof(*p));
	if (!p)
		return bench_fail("pollcore", "out of memory");
	parse_counts("1,64,1024", p);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:r:w:c:s:", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_counts(optarg, p))
				bench_usage_error("pollcore", "--counts wants numbers 1..1024 separated by commas, not", optarg);
			break;
		case 'r':
			if (vp_parse_uint(optarg, 1, 10000, &rounds))
				bench_usage_error("pollcore", "bad --rounds", optarg);
			break;
		case 'w':
			if (vp_parse_uint(optarg, 1, 100000000, &work))
				bench_usage_error("pollcore", "bad --work", optarg);
			break;
		case 'c':
			if (vp_parse_uint(optarg, 0, 1023, &cpu))
				bench_usage_error("pollcore", "bad --cpu", optarg);
			break;
		case 's':
			if (!strcmp(optarg, "off"))
				with_on = false;
			else if (strcmp(optarg, "both"))
				bench_usage_error("pollcore", "--switch is both or off, not", optarg);
			break;
		case ':':
			bench_usage_error("pollcore", "missing argument for", argv[optind - 1]);
		default:
			bench_usage_error("pollcore", "unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bench_usage_error("pollcore", "unexpected argument", argv[optind]);
	bench_pin((int)cpu);

	err = setup(p);
	if (err)
		return bench_fail("pollcore", "setting up %d eventfds: %s", PC_MAX_FDS,
				  strerror(-err));
	sysctl = vp_sysctl_present();
	if (sysctl && vp_sysctl_read(&old))
		return bench_fail("pollcore", "cannot read %s", VP_SYSCTL_PATH);
	nsw = sysctl && with_on ? 2 : 1;

	/* and the reference, after the rows */
	rows = calloc(2 * nsw * NR_CALLS * p->ncounts + 1, sizeof(*rows));
	if (!rows)
		return bench_fail("pollcore", "out of memory");
	for (int st = 0; st < 2; st++)
		for (int sw = 0; sw < nsw; sw++)
			for (int call = 0; call < NR_CALLS; call++)
				for (i = 0; i < p->ncounts; i++) {
					struct row *w = &rows[nrows++];

					w->call = call;
					w->state = st;
					w->sw = sw;
					w->ci = i;
					w->wall = calloc(rounds, sizeof(double));
					w->cpu = calloc(rounds, sizeof(double));
					if (!w->wall || !w->cpu)
						return bench_fail("pollcore", "out of memory");
				}
	rows[nrows].wall = calloc(rounds, sizeof(double));
	rows[nrows].cpu = calloc(rounds, sizeof(double));
	if (!rows[nrows].wall || !rows[nrows].cpu)
		return bench_fail("pollcore", "out of memory");

	for (r = 0; r < rounds && !p->bad; r++) {
		for (int s = 0; s < 2 && !p->bad; s++) {
			int st = (int)((s + r) % 2);	/* 0 ready, 1 not ready */

			err = set_ready(p, st == 0);
			if (err)
				return bench_fail("pollcore", "eventfd: %s", strerror(-err));
			for (int k = 0; k < nsw && !p->bad; k++) {
				int sw = (int)((k + r / 2) % nsw);

				if (sysctl && vp_sysctl_write(sw) < 0)
					return bench_fail("pollcore", "cannot write %d to %s",
							  sw, VP_SYSCTL_PATH);
				time_rows(p, rows, nrows, st, sw, r, work);
			}
		}
	}
	if (sysctl)
		vp_sysctl_write(old);
	if (p->bad)
		return bench_fail("pollcore", "%lu calls returned a wrong count; the first: %s",
				  p->bad, p->why);

	for (i = 0; i < nrows; i++) {
		struct row *w = &rows[i];
		unsigned long n = p->counts[w->ci];
		struct bench_json j;

		bj_begin(&j, "pollcore");
		bj_str(&j, "call", call_name[w->call]);
		bj_int(&j, "fds", (long long)n);
		bj_str(&j, "state", w->state ? "not_ready" : "ready");
		bj_str(&j, "switch", !sysctl ? "absent" : w->sw ? "on" : "off");
		bj_bool(&j, "sysctl", sysctl);
		bj_int(&j, "calls", (long long)calls_for(work, n));
		bj_int(&j, "rounds", (long long)rounds);
		bj_num(&j, "min_ns", bench_pct(w->wall, rounds, 0));
		bj_num(&j, "p50_ns", bench_pct(w->wall, rounds, 0.5));
		bj_num(&j, "cpu_min_ns", bench_pct(w->cpu, rounds, 0));
		bj_num(&j, "cpu_p50_ns", bench_pct(w->cpu, rounds, 0.5));
		bj_end(&j);
	}
	{
		struct row *w = &rows[nrows];
		struct bench_json j;

		bj_begin(&j, "pollcore");
		bj_str(&j, "call", "getppid");
		bj_int(&j, "fds", 0);
		bj_str(&j, "state", "reference");
		bj_str(&j, "switch", !sysctl ? "absent" : "any");
		bj_bool(&j, "sysctl", sysctl);
		bj_int(&j, "calls", (long long)work);
		bj_int(&j, "rounds", (long long)rounds);
		bj_num(&j, "min_ns", bench_pct(w->wall, rounds, 0));
		bj_num(&j, "p50_ns", bench_pct(w->wall, rounds, 0.5));
		bj_num(&j, "cpu_min_ns", bench_pct(w->cpu, rounds, 0));
		bj_num(&j, "cpu_p50_ns", bench_pct(w->cpu, rounds, 0.5));
		bj_end(&j);
	}
	return 0;
}
