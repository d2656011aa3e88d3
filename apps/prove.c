// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-prove: run the poll_requested_events() matrix on a vivpoll device
 * and compare every cell with what the kernel sources say it must be (see
 * prove-expect.c). Rows: wait API x situation x requested events; columns:
 * fs.poll_legacy_null_table off (today) and on (pre-v3.4 semantics).
 *
 * A cell: open the video fd, subscribe it to V4L2_EVENT_CTRL for
 * V4L2_CID_BRIGHTNESS, reset the record of the driver's .poll calls (the
 * vivpoll_poll trace event, in a tracefs instance), wait with the row's API
 * (in situation (a) a thread changes brightness from a second fd once the
 * waiter is blocked), then record whether the engine started (the Engine
 * Starts control delta), whether the event was delivered (POLLPRI reported
 * and DQEVENT returns it) and which requested mask the driver saw; close
 * everything (the engine stops with its owner) before the next cell.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common.h"
#include "prove.h"

#define WAKE_TIMEOUT_MS		3000	/* deadline of a wake cell */
#define READY_TIMEOUT_MS	1000	/* timeout of a ready cell (returns
					 * at once: the eventfd is ready) */
#define RAISE_WAIT_MS		2000	/* raiser: wait at most this long
					 * for the waiter's first ->poll() */
#define RAISE_BLIND_MS		150	/* or this long for epoll_wait(),
					 * which does not poll first */
#define RAISE_DELAY_MS		100	/* then this long before raising */
#define IDLE_WAIT_MS		3000	/* engine stop after a cell */

enum { COL_OFF, COL_ON, COL_COUNT };
static const unsigned int reqs[] = { REQ_PRI, REQ_IN, REQ_BOTH };
#define REQ_N	3

struct cell {
	bool run;
	struct prove_expect exp;
	struct prove_result res;
	bool pass;
};

static struct prove {
	char dev[64];
	int ctl_fd;
	int inst;
	bool tap_only;
	bool col[COL_COUNT];
	bool api_on[API_COUNT];
	bool sit_on[SIT_COUNT];
	bool sysctl_present;
	bool sysctl_touched;
	struct v4l2_query_ext_ctrl bright;
	int32_t bright_orig;
	struct cell cells[API_COUNT][SIT_COUNT][REQ_N][COL_COUNT];
	unsigned int tap_n;
	unsigned int failed;
} P = { .ctl_fd = -1, .inst = -1 };

/* ---- switch handling / cleanup ---------------------------------------- */

/* What the driver's .poll was asked, from the vivpoll_poll trace event */
static struct vp_polltrace PT;

static void restore_switch(void)
{
	if (P.sysctl_touched)
		vp_sysctl_write(0);
	vp_polltrace_close(&PT);
}

static void on_signal(int sig)
{
	/* open/write/close are async-signal-safe */
	if (P.sysctl_touched) {
		int fd = open(VP_SYSCTL_PATH, O_WRONLY);

		if (fd >= 0) {
			if (write(fd, "0\n", 2) < 0) {
				/* nothing more we can do */
			}
			close(fd);
		}
	}
	/* the tracefs instance is removed by hand: rmdir <instance> */
	signal(sig, SIG_DFL);
	raise(sig);
}

static int set_switch(bool on, char *err, size_t len)
{
	int r, cur;

	if (!P.sysctl_present) {
		if (!on)
			return 0;	/* no sysctl: today's behaviour */
		snprintf(err, len, "%s missing", VP_SYSCTL_PATH);
		return -ENOENT;
	}
	if (!vp_sysctl_read(&cur) && cur == (int)on)
		return 0;
	P.sysctl_touched = true;
	r = vp_sysctl_write(on);
	if (r < 0) {
		snprintf(err, len, "cannot write %s: %s (need root)",
			 VP_SYSCTL_PATH, strerror(-r));
		return r;
	}
	return 0;
}

/* ---- raiser thread ------------------------------------------------------ */

struct raiser {
	pthread_t th;
	int fd;
	uint64_t baseline;	/* .poll calls before the wait */
	unsigned int wait_ms;	/* how long to wait for its ->poll() */
	int32_t value;
	int rc;
};

static void *raiser_main(void *arg)
{
	struct raiser *r = arg;
	uint64_t end = vp_now_ns() + r->wait_ms * 1000000ull, calls;

	/*
	 * Wait until the waiter has polled the driver (its first pass has
	 * registered on the wait queues), or RAISE_BLIND_MS for APIs that do
	 * not poll when they start waiting (epoll_wait), then a little more
	 * so that it is asleep. An event that arrived between its first
	 * ->poll() and its sleep would still be seen by a second pass.
	 */
	while (vp_now_ns() < end) {
		if (!vp_polltrace_read(&PT, &calls, NULL) &&
		    calls > r->baseline)
			break;
		vp_sleep_ms(2);
	}
	vp_sleep_ms(RAISE_DELAY_MS);
	r->rc = vp_ctrl_set(r->fd, V4L2_CID_BRIGHTNESS, r->value);
	return NULL;
}

/* ---- one cell ----------------------------------------------------------- */

static int wait_engine_idle(unsigned int ms)
{
	uint64_t end = vp_now_ns() + ms * 1000000ull;
	int32_t running = 1;

	while (vp_now_ns() < end) {
		/* the control, on a file that is never polled */
		if (vp_ctrl_get(P.ctl_fd, VIVPOLL_CID_ENGINE_RUNNING, &running))
			return -EIO;
		if (!running)
			return 0;
		vp_sleep_ms(5);
	}
	return -EBUSY;
}

/* Put efd before (or after) vfd in fd-number order, keeping the file. */
static int order_fds(int *vfd, int *efd, bool efd_first)
{
	int *hi = efd_first ? vfd : efd, *lo = efd_first ? efd : vfd, n;

	if (*hi > *lo)
		return 0;
	n = fcntl(*hi, F_DUPFD_CLOEXEC, *lo + 1);
	if (n < 0)
		return -errno;
	close(*hi);
	*hi = n;
	return 0;
}

/* Read whatever frames are done on a non-blocking fd in read() mode. */
static void drain_frames(int fd)
{
	static char buf[64 * 1024];
	unsigned int n = 0;

	while (read(fd, buf, sizeof(buf)) > 0 && ++n < 4096)
		;
}

/*
 * Whether a ->poll() started file-io on the queue, seen through the V4L2
 * API and not through the driver's counters: vb2_fop_poll() makes the
 * polling file the queue's owner when it starts file-io, and a
 * VIDIOC_REQBUFS from any other file then fails with EBUSY. (With no
 * owner, REQBUFS of 0 buffers frees nothing and succeeds.)
 */
static bool queue_taken(void)
{
	struct v4l2_requestbuffers rb = {
		.count = 0, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};

	return ioctl(P.ctl_fd, VIDIOC_REQBUFS, &rb) < 0 && errno == EBUSY;
}

static bool dq_brightness_event(int fd)
{
	struct v4l2_event ev;

	memset(&ev, 0, sizeof(ev));
	if (ioctl(fd, VIDIOC_DQEVENT, &ev) < 0)
		return false;
	return ev.type == V4L2_EVENT_CTRL && ev.id == V4L2_CID_BRIGHTNESS;
}

#define CELL_FAIL(...) do { \
	res->error = true; \
	snprintf(res->err, sizeof(res->err), __VA_ARGS__); \
	goto out; \
} while (0)

static void run_cell(enum prove_api api, enum prove_sit sit, unsigned int req,
		     bool legacy, const struct prove_expect *e,
		     struct prove_result *res)
{
	const struct wait_ops *ops = prove_wait_ops[api];
	struct wait_ctx w;
	struct raiser rz = { .fd = -1 };
	bool raiser_started = false, set_up = false;
	uint64_t before, after, t0, calls0, calls1;
	uint32_t seen;
	uint32_t rev;
	bool done;
	int vfd = -1, efd = -1, r;
	int32_t cur;

	memset(res, 0, sizeof(*res));
	memset(&w, 0, sizeof(w));
	w.epfd = -1;
	res->ev = EV_NA;

	if (set_switch(legacy, res->err, sizeof(res->err))) {
		res->error = true;
		return;
	}
	r = wait_engine_idle(IDLE_WAIT_MS);
	if (r)
		CELL_FAIL("engine still running before the cell (%s)",
			  strerror(-r));

	vfd = vp_open(P.dev, O_RDWR | O_NONBLOCK);
	if (vfd < 0)
		CELL_FAIL("open %s: %s", P.dev, strerror(-vfd));
	r = vp_subscribe(vfd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0);
	if (r)
		CELL_FAIL("VIDIOC_SUBSCRIBE_EVENT: %s", strerror(-r));

	if (sit == SIT_WAKE) {
		rz.fd = vp_open(P.dev, O_RDWR | O_NONBLOCK);
		if (rz.fd < 0)
			CELL_FAIL("open %s: %s", P.dev, strerror(-rz.fd));
		r = vp_ctrl_get(rz.fd, V4L2_CID_BRIGHTNESS, &cur);
		if (r)
			CELL_FAIL("VIDIOC_G_CTRL brightness: %s",
				  strerror(-r));
		rz.value = cur == P.bright.minimum ? P.bright.maximum :
			   P.bright.minimum;
	}
	if (sit == SIT_READY_BEFORE || sit == SIT_READY_AFTER) {
		efd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
		if (efd < 0)
			CELL_FAIL("eventfd: %s", strerror(errno));
		r = order_fds(&vfd, &efd, sit == SIT_READY_BEFORE);
		if (r)
			CELL_FAIL("F_DUPFD: %s", strerror(-r));
	}

	if (vp_engine_starts(vfd, P.inst, &before))
		CELL_FAIL("cannot read engine_starts");
	r = vp_polltrace_reset(&PT);
	if (r)
		CELL_FAIL("reset the poll trace: %s", strerror(-r));

	w.api = api;
	w.sit = sit;
	w.req = req;
	w.vfd = vfd;
	w.efd = efd;
	w.efd_first = sit == SIT_READY_BEFORE;
	w.timeout_ms = sit == SIT_WAKE ? WAKE_TIMEOUT_MS :
		       sit == SIT_ZERO ? 0 : READY_TIMEOUT_MS;

	t0 = vp_now_ns();
	if (ops->setup) {
		r = ops->setup(&w);
		set_up = true;
		if (r)
			CELL_FAIL("setup: %s", w.err[0] ? w.err :
				  strerror(-r));
	} else {
		set_up = true;
	}
	if (sit == SIT_WAKE) {
		if (vp_polltrace_read(&PT, &rz.baseline, NULL))
			CELL_FAIL("cannot read the poll trace");
		rz.wait_ms = api == API_EPOLL_ADD || api == API_EPOLL_MOD ?
			     RAISE_BLIND_MS : RAISE_WAIT_MS;
		if (pthread_create(&rz.th, NULL, raiser_main, &rz))
			CELL_FAIL("pthread_create failed");
		raiser_started = true;
	}

	/*
	 * (a): wait until POLLPRI is reported (re-waiting while only
	 * POLLIN comes back, e.g. frames of an engine that runs), or, if
	 * POLLPRI is not requested, until the first readiness. (b)-(d): one
	 * call.
	 */
	for (;;) {
		uint64_t now = vp_now_ns(), left;

		left = (t0 + w.timeout_ms * 1000000ull > now) ?
			(t0 + w.timeout_ms * 1000000ull - now) / 1000000 : 0;
		if (sit != SIT_ZERO && !left)
			break;
		rev = 0;
		if (e->needs_repoll && vp_polltrace_read(&PT, &calls0, NULL))
			CELL_FAIL("cannot read the poll trace");
		r = ops->wait_once(&w, sit == SIT_ZERO ? 0 : left, &rev);
		res->calls++;
		if (w.refused) {
			res->refused = true;
			break;
		}
		if (r < 0)
			CELL_FAIL("wait call %u: %s", res->calls,
				  w.err[0] ? w.err : strerror(-r));
		if (e->needs_repoll) {
			if (vp_polltrace_read(&PT, &calls1, NULL))
				CELL_FAIL("cannot read the poll trace");
			if (calls1 - calls0 >= 2)
				res->repolled = true;
		}
		if (rev & POLLPRI)
			res->pri = true;
		if (rev & POLLIN)
			res->in = true;
		done = sit != SIT_WAKE || res->pri || !(req & REQ_PRI);
		/*
		 * Frames only, found by the call's first ->poll(): it never
		 * slept, so the pass after a wake-up did not happen yet.
		 * Read the frames and wait again. (An event reported on a
		 * first pass stays pending: waiting again would return at
		 * once, so a cell ends there, and fails if nothing has
		 * re-polled.)
		 */
		if (done && r > 0 && e->needs_repoll && !res->repolled &&
		    !res->pri) {
			res->rewaits++;
			drain_frames(vfd);
			continue;
		}
		if (done)
			break;
		if (r == 0)	/* timed out */
			break;
		/*
		 * Only frames so far: read them (vfd is non-blocking), so
		 * that the next call sleeps until the event instead of
		 * finding POLLIN ready on its first pass. Without this, a
		 * frame done before the next call's first pass looks at the
		 * queue makes every call return at once,
		 * and the pass after a wake-up (the one the switch turns
		 * NULL) never happens.
		 */
		drain_frames(vfd);
	}
	res->ms = (vp_now_ns() - t0) / 1e6;

out:
	if (raiser_started) {
		pthread_join(rz.th, NULL);
		if (rz.rc && !res->error) {
			res->error = true;
			snprintf(res->err, sizeof(res->err),
				 "raising the control event: %s",
				 strerror(-rz.rc));
		}
	}
	if (set_up && ops->teardown)
		ops->teardown(&w);
	if (!res->error) {
		res->taken = queue_taken();
		if (res->refused)
			res->ev = EV_REFUSED;
		else if (sit == SIT_WAKE && (req & REQ_PRI))
			res->ev = (res->pri && dq_brightness_event(vfd)) ?
				  EV_YES : EV_NO;
		if (vp_polltrace_read(&PT, NULL, &seen) ||
		    vp_engine_starts(vfd, P.inst, &after)) {
			res->error = true;
			snprintf(res->err, sizeof(res->err),
				 "cannot read the counters after the cell");
		} else {
			res->mask = seen;
			res->starts_delta = after - before;
			res->started = after > before;
		}
	}
	if (efd >= 0)
		close(efd);
	if (rz.fd >= 0)
		close(rz.fd);
	if (vfd >= 0)
		close(vfd);
}

/* ---- output ------------------------------------------------------------- */

static bool cell_matches(const struct cell *c)
{
	const struct prove_expect *e = &c->exp;
	const struct prove_result *r = &c->res;

	if (r->error)
		return false;
	if (r->started != e->started)
		return false;
	if (r->ev != e->ev && !(e->ready_may_pass && r->ev == EV_NA))
		return false;
	if (e->needs_repoll && !r->repolled)
		return false;
	if ((r->mask & e->mask_must) != e->mask_must)
		return false;
	return !(r->mask & ~(e->mask_must | e->mask_may));
}

static const char *ev_str(int ev)
{
	return ev == EV_YES ? "yes" : ev == EV_NO ? "no" :
	       ev == EV_REFUSED ? "EINVAL" : "-";
}

static void expect_str(const struct prove_expect *e, char *buf, size_t len)
{
	if (e->mask_may)
		snprintf(buf, len, "start=%s ev=%s mask=0x%08x(+0x%x)",
			 e->started ? "YES" : "no", ev_str(e->ev),
			 e->mask_must, e->mask_may);
	else
		snprintf(buf, len, "start=%s ev=%s mask=0x%08x",
			 e->started ? "YES" : "no", ev_str(e->ev),
			 e->mask_must);
}

static void tap_cell(enum prove_api a, enum prove_sit s, unsigned int ri,
		     int col)
{
	const struct cell *c = &P.cells[a][s][ri][col];
	char exp[96];

	P.tap_n++;
	if (c->res.error) {
		printf("not ok %u - %s %s %s switch=%s # error: %s\n", P.tap_n,
		       prove_api_name(a), prove_sit_name(s),
		       prove_req_name(reqs[ri]), col ? "on" : "off",
		       c->res.err);
		return;
	}
	printf("%sok %u - %s %s %s switch=%s: start=%s ev=%s mask=0x%08x",
	       c->pass ? "" : "not ", P.tap_n, prove_api_name(a),
	       prove_sit_name(s), prove_req_name(reqs[ri]),
	       col ? "on" : "off", c->res.started ? "YES" : "no",
	       ev_str(c->res.ev), c->res.mask);
	if (!c->pass) {
		expect_str(&c->exp, exp, sizeof(exp));
		printf(" # expected %s (%s)", exp, c->exp.why);
		if (c->exp.needs_repoll && !c->res.repolled)
			printf("; no wait call polled the fd again after a "
			       "wake-up");
	}
	printf("\n");
	if (c->res.rewaits)
		printf("# %u wait call(s) repeated: a frame was ready at the "
		       "first ->poll()\n", c->res.rewaits);
}

static void table_header(const char *pfx)
{
	printf("%s%-10s %-13s %-7s| %-30s| %-30s\n", pfx, "", "", "",
	       "poll_legacy_null_table=0", "poll_legacy_null_table=1");
	printf("%s%-10s %-13s %-7s| %-5s %-6s %-10s %-5s | %-5s %-6s %-10s "
	       "%-5s\n", pfx, "API", "SITUATION", "REQ", "START", "EV",
	       "MASK", "", "START", "EV", "MASK", "");
}

static void table_cell(const struct cell *c, char *buf, size_t len)
{
	if (!c->run)
		snprintf(buf, len, "%-5s %-6s %-10s %-5s", "", "", "", "skip");
	else if (c->res.error)
		snprintf(buf, len, "%-5s %-6s %-10s %-5s", "?", "?", "?",
			 "ERROR");
	else
		snprintf(buf, len, "%-5s %-6s 0x%08x %-5s",
			 c->res.started ? "YES" : "no", ev_str(c->res.ev),
			 c->res.mask, c->pass ? "ok" : "FAIL");
}

static void table_row(const char *pfx, enum prove_api a, enum prove_sit s,
		      unsigned int ri)
{
	char cells[COL_COUNT][64], exp[96];
	int col;

	for (col = 0; col < COL_COUNT; col++)
		table_cell(&P.cells[a][s][ri][col], cells[col],
			   sizeof(cells[col]));
	printf("%s%-10s %-13s %-7s| %s | %s\n", pfx, prove_api_name(a),
	       prove_sit_name(s), prove_req_name(reqs[ri]), cells[0],
	       cells[1]);
	for (col = 0; col < COL_COUNT; col++) {
		const struct cell *c = &P.cells[a][s][ri][col];

		if (!c->run || c->pass)
			continue;
		if (c->res.error) {
			printf("%s    ^ switch=%s: error: %s\n", pfx,
			       col ? "on" : "off", c->res.err);
			continue;
		}
		expect_str(&c->exp, exp, sizeof(exp));
		printf("%s    ^ switch=%s: expected %s: %s%s\n", pfx,
		       col ? "on" : "off", exp, c->exp.why,
		       c->exp.needs_repoll && !c->res.repolled ?
		       "; no wait call polled the fd again after a wake-up" :
		       "");
	}
	fflush(stdout);
}

static void tap_on_missing(bool missing)
{
	if (!missing)
		return;
	P.tap_n++;
	P.failed++;
	printf("not ok %u - switch=on column: %s missing (kernel without "
	       "the poll_legacy_null_table patch)\n", P.tap_n,
	       VP_SYSCTL_PATH);
}

/* ---- claims: the statements the matrix exists to demonstrate ---------- */

/*
 * Each cell judges "started" by the Engine Starts control, the driver's
 * own counter. A claim judges the same cells through the V4L2 API instead
 * (queue_taken(): file-io owns the queue), so that it is evidence of its
 * own: a claim fails when the API disagrees, even if every cell passed.
 */
struct claim_acc {
	bool any;	/* some cell ran */
	bool ok;	/* all that ran satisfy it */
};

static void acc(struct claim_acc *c, const struct cell *cell, bool want)
{
	if (!cell->run)
		return;
	c->any = true;
	c->ok = c->ok && !cell->res.error && cell->res.taken == want;
}

/* claims() only counts them: for the plan, stated before any result */
static bool counting;

static void claim(const struct claim_acc *c, bool want, const char *what)
{
	if (!c->any)
		return;
	P.tap_n++;
	if (counting)
		return;
	if (!c->ok)
		P.failed++;
	printf("%sok %u - claim: %s (seen through the API: file-io %s the "
	       "queue, VIDIOC_REQBUFS from another file %s EBUSY)\n",
	       c->ok ? "" : "not ", P.tap_n, what, want ? "took" : "never took",
	       want ? "got" : "never got");
}

static void claims(void)
{
	struct claim_acc c;
	int a, s, ri;

#define RESET() (c.any = false, c.ok = true)
	RESET();
	acc(&c, &P.cells[API_SELECT][SIT_WAKE][0][COL_ON], true);
	claim(&c, true, "switch=on: select on exceptfds only, woken by a "
	      "control event, starts the engine");
	RESET();
	acc(&c, &P.cells[API_SELECT][SIT_ZERO][0][COL_ON], true);
	claim(&c, true, "switch=on: select on exceptfds only with a zero "
	      "timeout starts the engine");
	RESET();
	for (s = 0; s < SIT_COUNT; s++)
		acc(&c, &P.cells[API_EPOLL_ADD][s][0][COL_ON], true);
	claim(&c, true, "switch=on: epoll ADD with EPOLLPRI only starts the "
	      "engine");
	RESET();
	for (a = 0; a < API_COUNT; a++)
		for (s = 0; s < SIT_COUNT; s++)
			acc(&c, &P.cells[a][s][0][COL_OFF], false);
	claim(&c, false, "switch=off: no POLLPRI-only row starts the engine");
	RESET();
	for (a = 0; a < API_COUNT; a++)
		for (s = 0; s < SIT_COUNT; s++)
			for (ri = 1; ri < REQ_N; ri++)
				acc(&c, &P.cells[a][s][ri][COL_OFF], true);
	claim(&c, true, "switch=off: every row requesting POLLIN starts the "
	      "engine");
#undef RESET
}

/* ---- main --------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vivpoll-prove [options]\n"
"Run the poll_requested_events() matrix on a vivpoll device and check each\n"
"cell against the expectations derived from the kernel sources.\n"
"\n"
"  -d, --device DEV     video device (path or number; default: first vivpoll)\n"
"  -t, --tap-only       print TAP only (the table as TAP comments at the end)\n"
"  -s, --switch=WHICH   off, on or both (default): fs.poll_legacy_null_table\n"
"                       values to run; needs root, restored to 0 at exit\n"
"  -a, --api=LIST       only these rows, comma separated: select, pselect,\n"
"                       poll, ppoll, epoll-add, epoll-mod, io_uring, aio\n"
"  -S, --situation=LIST only these situations: wake, zero-timeout,\n"
"                       ready-before, ready-after\n"
"  -e, --expect=WHICH   print what the sources say every cell must show with\n"
"                       the switch off or on, one line a cell: NAME started|idle,\n"
"                       NAME as API_SITUATION_REQUEST (lower case, '_' for '-',\n"
"                       the test names of media_tests/video_poll_test); no device\n"
"                       needed\n"
"  -h, --help           this text\n"
"\n"
"Exit status: 0 all cells as expected, 1 a mismatch or error, 2 bad usage.\n");
}

static int parse_list(const char *arg, bool *on, int n,
		      const char *(*name)(int))
{
	char *dup = strdup(arg), *tok, *save = NULL;
	int i, found;

	if (!dup)
		return -ENOMEM;
	memset(on, 0, n * sizeof(*on));
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		found = 0;
		for (i = 0; i < n; i++)
			if (!strcmp(tok, name(i))) {
				on[i] = true;
				found = 1;
			}
		if (!found) {
			fprintf(stderr, "vivpoll-prove: unknown name '%s'\n",
				tok);
			free(dup);
			return -EINVAL;
		}
	}
	free(dup);
	return 0;
}

static const char *api_name_i(int i) { return prove_api_name(i); }
static const char *sit_name_i(int i) { return prove_sit_name(i); }

static void bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "vivpoll-prove: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'vivpoll-prove --help'.\n");
	exit(VP_EXIT_USAGE);
}

/*
 * --expect: the engine start of every cell, named as the kernel selftest
 * media_tests/video_poll_test names its cases, for the guest suite that
 * runs it (tests/87-media-selftest.sh): one source for what the switch breaks.
 */
static void print_expect(bool legacy)
{
	struct prove_expect e;
	char name[64], *p;
	int a, s, ri;

	for (a = 0; a < API_COUNT; a++)
		for (s = 0; s < SIT_COUNT; s++)
			for (ri = 0; ri < REQ_N; ri++) {
				prove_expect(a, s, reqs[ri], legacy, &e);
				snprintf(name, sizeof(name), "%s_%s_%s",
					 prove_api_name(a), prove_sit_name(s),
					 prove_req_name(reqs[ri]));
				for (p = name; *p; p++)
					*p = *p == '-' ? '_' : *p == '|' ? '_' :
					     *p >= 'A' && *p <= 'Z' ?
					     *p - 'A' + 'a' : *p;
				printf("%s %s\n", name,
				       e.started ? "started" : "idle");
			}
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "tap-only", no_argument, NULL, 't' },
		{ "switch", required_argument, NULL, 's' },
		{ "api", required_argument, NULL, 'a' },
		{ "situation", required_argument, NULL, 'S' },
		{ "expect", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, i;

	P.col[COL_OFF] = P.col[COL_ON] = true;
	for (i = 0; i < API_COUNT; i++)
		P.api_on[i] = true;
	for (i = 0; i < SIT_COUNT; i++)
		P.sit_on[i] = true;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:ts:a:S:e:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			snprintf(P.dev, sizeof(P.dev), "%s", optarg);
			break;
		case 't':
			P.tap_only = true;
			break;
		case 's':
			if (!strcmp(optarg, "off"))
				P.col[COL_ON] = false;
			else if (!strcmp(optarg, "on"))
				P.col[COL_OFF] = false;
			else if (strcmp(optarg, "both"))
				bad_usage("--switch must be off, on or both, "
					  "not '%s'", optarg);
			break;
		case 'a':
			if (parse_list(optarg, P.api_on, API_COUNT,
				       api_name_i))
				bad_usage("bad --api list '%s'", optarg);
			break;
		case 'S':
			if (parse_list(optarg, P.sit_on, SIT_COUNT,
				       sit_name_i))
				bad_usage("bad --situation list '%s'", optarg);
			break;
		case 'e':
			if (strcmp(optarg, "off") && strcmp(optarg, "on"))
				bad_usage("--expect must be off or on, not '%s'",
					  optarg);
			print_expect(!strcmp(optarg, "on"));
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			bad_usage("option '%s' needs an argument",
				  argv[optind - 1]);
			break;
		default:
			bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
}

static int setup_device(void)
{
	char dev[64];
	int r;

	if (!P.dev[0]) {
		r = vp_find_device(dev, sizeof(dev));
		if (r) {
			fprintf(stderr, "vivpoll-prove: no vivpoll device "
				"found (is the module loaded?)\n");
			return r;
		}
		snprintf(P.dev, sizeof(P.dev), "%s", dev);
	} else if (P.dev[0] >= '0' && P.dev[0] <= '9') {
		snprintf(dev, sizeof(dev), "/dev/video%.50s", P.dev);
		snprintf(P.dev, sizeof(P.dev), "%s", dev);
	}
	P.ctl_fd = vp_open(P.dev, O_RDWR | O_NONBLOCK);
	if (P.ctl_fd < 0) {
		fprintf(stderr, "vivpoll-prove: %s: %s\n", P.dev,
			P.ctl_fd == -ENOTTY ? "not a vivpoll capture device" :
			strerror(-P.ctl_fd));
		return P.ctl_fd;
	}
	P.inst = vp_instance(P.ctl_fd);
	r = P.inst < 0 ? P.inst : vp_polltrace_open(&PT, P.inst);
	if (r) {
		fprintf(stderr, "vivpoll-prove: cannot record the vivpoll_poll "
			"trace event of %s (vivpoll-%d): %s; run as root with "
			"tracefs (/sys/kernel/tracing)\n", P.dev, P.inst,
			strerror(-r));
		return r;
	}
	r = vp_ctrl_query(P.ctl_fd, V4L2_CID_BRIGHTNESS, &P.bright);
	if (!r)
		r = vp_ctrl_get(P.ctl_fd, V4L2_CID_BRIGHTNESS,
				&P.bright_orig);
	if (r || P.bright.minimum == P.bright.maximum) {
		fprintf(stderr, "vivpoll-prove: %s: no usable brightness "
			"control\n", P.dev);
		vp_polltrace_close(&PT);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int a, s, ri, col, r;
	unsigned int plan;
	const char *pfx;
	bool on_missing;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup_device())
		return 1;
	P.sysctl_present = vp_sysctl_present();
	on_missing = P.col[COL_ON] && !P.sysctl_present;

	atexit(restore_switch);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);

	pfx = P.tap_only ? "# " : "";
	if (P.tap_only) {
		printf("TAP version 13\n");
		printf("# vivpoll-prove on %s (vivpoll-%d)\n", P.dev, P.inst);
	} else {
		printf("vivpoll-prove on %s (vivpoll-%d); engine started = "
		       "Engine Starts control delta > 0; EV = control event "
		       "reported as POLLPRI and dequeued (- = none raised or "
		       "not requested, EINVAL = the API refused the fd); "
		       "MASK = the OR of the requested events the driver saw "
		       "(vivpoll_poll trace event)\n\n", P.dev, P.inst);
		table_header("");
	}
	/*
	 * The plan first: the cells that will run (marked now), the claims
	 * about them, and the missing switch column
	 */
	for (a = 0; a < API_COUNT; a++)
		for (s = 0; s < SIT_COUNT; s++)
			for (ri = 0; ri < REQ_N; ri++)
				for (col = 0; col < COL_COUNT; col++)
					P.cells[a][s][ri][col].run =
						P.api_on[a] && P.sit_on[s] &&
						P.col[col] &&
						!(col == COL_ON && on_missing);
	counting = true;
	claims();
	counting = false;
	for (a = 0; a < API_COUNT; a++)
		for (s = 0; s < SIT_COUNT; s++)
			for (ri = 0; ri < REQ_N; ri++)
				for (col = 0; col < COL_COUNT; col++)
					P.tap_n += P.cells[a][s][ri][col].run;
	plan = P.tap_n + on_missing;
	P.tap_n = 0;
	if (P.tap_only) {
		printf("1..%u\n", plan);
		tap_on_missing(on_missing);
	}

	for (a = 0; a < API_COUNT; a++) {
		if (!P.api_on[a])
			continue;
		for (s = 0; s < SIT_COUNT; s++) {
			if (!P.sit_on[s])
				continue;
			for (ri = 0; ri < REQ_N; ri++) {
				for (col = 0; col < COL_COUNT; col++) {
					struct cell *c =
						&P.cells[a][s][ri][col];

					if (!c->run)
						continue;
					prove_expect(a, s, reqs[ri],
						     col == COL_ON, &c->exp);
					run_cell(a, s, reqs[ri], col == COL_ON,
						 &c->exp, &c->res);
					c->pass = cell_matches(c);
					if (!c->pass)
						P.failed++;
					if (P.tap_only)
						tap_cell(a, s, ri, col);
				}
				if (!P.tap_only)
					table_row("", a, s, ri);
			}
		}
	}

	/* Leave the switch off before reporting. */
	if (P.sysctl_touched) {
		r = vp_sysctl_write(0);
		if (r)
			fprintf(stderr, "vivpoll-prove: restoring %s: %s\n",
				VP_SYSCTL_PATH, strerror(-r));
		P.sysctl_touched = false;
	}
	vp_ctrl_set(P.ctl_fd, V4L2_CID_BRIGHTNESS, P.bright_orig);

	if (!P.tap_only) {
		printf("\nTAP version 13\n1..%u\n", plan);
		tap_on_missing(on_missing);
		for (a = 0; a < API_COUNT; a++)
			for (s = 0; s < SIT_COUNT; s++)
				for (ri = 0; ri < REQ_N; ri++)
					for (col = 0; col < COL_COUNT; col++)
						if (P.cells[a][s][ri][col].run)
							tap_cell(a, s, ri,
								 col);
	}
	claims();
	if (P.tap_n != plan)
		printf("# %u results for a plan of %u\n", P.tap_n, plan);
	if (P.tap_only) {
		printf("#\n");
		table_header(pfx);
		for (a = 0; a < API_COUNT; a++)
			for (s = 0; s < SIT_COUNT; s++)
				for (ri = 0; ri < REQ_N; ri++)
					if (P.cells[a][s][ri][COL_OFF].run ||
					    P.cells[a][s][ri][COL_ON].run)
						table_row(pfx, a, s, ri);
	}
	printf("%s%u of %u checks failed\n", pfx, P.failed, P.tap_n);
	close(P.ctl_fd);
	return P.failed || P.tap_n != plan ? 1 : 0;
}
