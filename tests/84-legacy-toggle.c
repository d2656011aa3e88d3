// SPDX-License-Identifier: GPL-2.0
/*
 * 84-legacy-toggle: flip fs.poll_legacy_null_table between 0 and 1 as fast
 * as possible while processes wait for events on several fds of two
 * vivpoll devices with select(), pselect(), poll(), ppoll() and epoll
 * (exceptfds/POLLPRI, sometimes readfds/POLLIN too, with a timeout or
 * none), while another process raises control and source change
 * events, and the waiters read frames when POLLIN says so.
 *
 * The run has a fixed length. Then the toggling and the event raiser stop,
 * the switch is at 0, and one marker event is raised on each device (a
 * brightness value the raiser never sets): every waiter must receive it
 * on every device, within a bounded time, a wake-up lost while the switch
 * flipped would leave one waiting. The longest gap between two events a
 * waiter saw during the run is reported.
 *
 * Checks: nobody dies or hangs; only the errnos the API allows; every
 * waiter gets the marker of every device; the switch is toggled at least
 * 100 times and is 0 at the end; then, with the switch at 0, a waiter that
 * asks for POLLPRI only (select exceptfds, poll, epoll; zero and non-zero
 * timeouts, with an event pending or not) neither starts the engine nor is
 * seen asking for POLLIN; and with the switch at 1 a zero-timeout select()
 * on exceptfds does start it (the pre-v3.4 behaviour, so the toggle really
 * switched something). Then the checks of vt_health(). The switch is
 * restored to 0 on every exit, signals included.
 *
 *   84-legacy-toggle [--seed N] [--waiters N] [--secs S]
 *
 * Defaults: 6 waiters (2 fds on each device each), 15*scale seconds
 * (4 with VIVPOLL_TIER=quick). The run's clock starts once every waiter
 * and the event raiser are ready (fds open, events subscribed): on a
 * starved guest, setting them up can take seconds.
 * vivpoll is reloaded with n_devs=2 and afterwards with its defaults.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "common.h"
#include "lib.h"

#define NDEV		2
#define FDS_PER_DEV	2
#define NFD		(NDEV * FDS_PER_DEV)
#define MAX_WAITERS	32
#define MAX_MSGS	4
/* the brightness of the marker event: the raiser sets 0 to 254 */
#define MARKER		255
/* toggles of the switch a run makes at the least, however long it takes */
#define MIN_TOGGLES	100

struct waiter {
	uint64_t waits, events, reads, reopens, max_gap_ms, zero_timeouts;
	uint64_t ev_first[NDEV];	/* when its first event of each device */
	uint64_t ev_last[NDEV];		/* and its last came (0: none yet) */
	uint64_t ev_n[NDEV];
	uint64_t t_start;		/* the run started for it */
	int ready;			/* its fds open and subscribed */
	int marker[NDEV];		/* the marker event came */
	int calm;			/* saw quiet: reopens no more */
	uint64_t t_last_ev;
	unsigned int unexpected, nmsg;
	char cur[80];
	char msg[MAX_MSGS][160];
};

struct raiser {
	uint64_t ctrl, src;
	int ready;
	unsigned int unexpected, nmsg;
	char msg[MAX_MSGS][160];
};

struct shared {
	uint64_t t0, t_end;	/* when the run started and stopped */
	int go, stop;		/* set by the parent: the run starts, stops */
	int quiet;		/* the raiser stops: the marker is next */
	struct raiser raiser;
	struct waiter w[MAX_WAITERS];
};

static struct shared *sh;
static struct vt_dev devs[VT_MAX_DEVS];
static int ndevs;
static pid_t kids[MAX_WAITERS + 1];
static int nkids;
static bool have_switch;

static bool running(void)
{
	return !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE);
}

/* A child: say it is ready, then wait for the run to start */
static void child_ready(int *ready)
{
	__atomic_store_n(ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		vp_sleep_ms(1);
}

/* ---- the switch, restored on every exit ------------------------------------ */

static void switch_restore_raw(void)
{
	int fd = open(VP_SYSCTL_PATH, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "0\n", 2) < 0) {
			/* nothing more to do in a signal handler */
		}
		close(fd);
	}
}

static void on_fatal(int sig)
{
	static const char msg[] = "not ok - 84-legacy-toggle interrupted; "
				  "fs.poll_legacy_null_table restored to 0\n";
	int i;

	if (have_switch)
		switch_restore_raw();
	for (i = 0; i < nkids; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	if (write(1, msg, sizeof(msg) - 1) < 0) {
		/* ignore */
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* the children clear have_switch and leave with _exit() */
static void at_exit(void)
{
	if (have_switch)
		switch_restore_raw();
}

/* ---- children ----------------------------------------------------------------- */

#define MSG(who, ...) do {						\
	(who)->unexpected++;						\
	if ((who)->nmsg < MAX_MSGS)					\
		snprintf((who)->msg[(who)->nmsg++],			\
			 sizeof((who)->msg[0]), __VA_ARGS__);		\
} while (0)

static void raiser_main(void)
{
	struct raiser *r = &sh->raiser;
	int fd[NDEV], d, v = 0;
	uint64_t n = 0;

	for (d = 0; d < ndevs; d++) {
		fd[d] = open(devs[d].path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd[d] < 0) {
			MSG(r, "raiser: open %.31s: %s", devs[d].path,
			    vt_errname(errno));
			_exit(1);
		}
	}
	child_ready(&r->ready);
	while (!__atomic_load_n(&sh->quiet, __ATOMIC_ACQUIRE)) {
		n++;
		v = (v + 1) % MARKER;
		for (d = 0; d < ndevs; d++) {
			int e;

			if (vp_ctrl_set(fd[d], V4L2_CID_BRIGHTNESS, v) < 0)
				MSG(r, "raiser: S_CTRL brightness: %s",
				    vt_errname(errno));
			else
				r->ctrl++;
			if (n % 11 == 0) {
				e = vp_ctrl_set(fd[d], VIVPOLL_CID_CAM2_SIGNAL,
						(int)(n / 11 % 2));
				if (e < 0)
					MSG(r, "raiser: Camera 2 signal: %s",
					    vt_errname(-e));
				else
					r->src++;
			}
		}
		vp_sleep_ms(10);
	}
	/* leave the signal on */
	for (d = 0; d < ndevs; d++) {
		vp_ctrl_set(fd[d], VIVPOLL_CID_CAM2_SIGNAL, 1);
		close(fd[d]);
	}
	_exit(0);
}

struct wfd {
	int fd, dev;
	bool nb;
	int no_in;	/* don't ask for POLLIN for this many waits */
};

static void w_open(struct waiter *w, struct wfd *f, int *ep)
{
	int i;

	*ep = epoll_create1(EPOLL_CLOEXEC);
	for (i = 0; i < NFD; i++) {
		struct epoll_event e = { .events = EPOLLPRI, .data.u32 = i };

		f[i].dev = i / FDS_PER_DEV % ndevs;
		f[i].nb = i % FDS_PER_DEV == 0;
		f[i].no_in = 0;
		f[i].fd = open(devs[f[i].dev].path, O_RDWR | O_CLOEXEC |
			       (f[i].nb ? O_NONBLOCK : 0));
		if (f[i].fd < 0) {
			MSG(w, "open %s: %s", devs[f[i].dev].path,
			    vt_errname(errno));
			_exit(1);
		}
		if (vp_subscribe(f[i].fd, V4L2_EVENT_CTRL,
				 V4L2_CID_BRIGHTNESS, 0) < 0 ||
		    vp_subscribe(f[i].fd, V4L2_EVENT_SOURCE_CHANGE,
				 VIVPOLL_INPUT_CAM2, 0) < 0)
			MSG(w, "SUBSCRIBE_EVENT: %s", vt_errname(errno));
		if (epoll_ctl(*ep, EPOLL_CTL_ADD, f[i].fd, &e) < 0)
			MSG(w, "EPOLL_CTL_ADD: %s", vt_errname(errno));
	}
}

static void w_close(struct wfd *f, int ep)
{
	int i;

	close(ep);
	for (i = 0; i < NFD; i++)
		close(f[i].fd);
}

static void w_events(struct waiter *w, struct wfd *f)
{
	int i;

	/* POLLPRI: an event is pending; a blocking fd takes just that one */
	for (i = 0; i < (f->nb ? 32 : 1); i++) {
		struct v4l2_event ev;
		uint64_t now;

		memset(&ev, 0, sizeof(ev));
		snprintf(w->cur, sizeof(w->cur), "DQEVENT on %s%s",
			 devs[f->dev].path, f->nb ? " (O_NONBLOCK)" : "");
		if (ioctl(f->fd, VIDIOC_DQEVENT, &ev) < 0) {
			if (!i || errno != ENOENT)
				MSG(w, "DQEVENT after POLLPRI: %s",
				    vt_errname(errno));
			return;
		}
		now = vp_now_ns();
		w->events++;
		w->ev_n[f->dev]++;
		if (!w->ev_first[f->dev])
			w->ev_first[f->dev] = now;
		w->ev_last[f->dev] = now;
		if (w->t_last_ev &&
		    (now - w->t_last_ev) / 1000000 > w->max_gap_ms)
			w->max_gap_ms = (now - w->t_last_ev) / 1000000;
		w->t_last_ev = now;
		if (ev.type != V4L2_EVENT_CTRL &&
		    ev.type != V4L2_EVENT_SOURCE_CHANGE)
			MSG(w, "DQEVENT: unexpected event type %u", ev.type);
		if (ev.type == V4L2_EVENT_CTRL && ev.id == V4L2_CID_BRIGHTNESS &&
		    ev.u.ctrl.value == MARKER)
			w->marker[f->dev] = 1;
	}
}

static void w_read(struct waiter *w, struct wfd *f, uint8_t *buf)
{
	ssize_t n;

	snprintf(w->cur, sizeof(w->cur), "read on %s", devs[f->dev].path);
	n = read(f->fd, buf, 1920 * 1080 * 4);
	if (n > 0) {
		w->reads++;
		return;
	}
	/* EBUSY: another fd owns the queue; EAGAIN: nothing yet */
	if (n < 0 && errno != EBUSY && errno != EAGAIN)
		MSG(w, "read after POLLIN: %s", vt_errname(errno));
	f->no_in = 20;
}

static void waiter_main(struct waiter *w, uint64_t seed)
{
	struct vt_rng rng = { seed };
	struct wfd f[NFD];
	uint8_t *buf = malloc(1920 * 1080 * 4);
	int ep, i;

	if (!buf)
		_exit(3);
	w_open(w, f, &ep);
	child_ready(&w->ready);
	w->t_start = vp_now_ns();
	while (running()) {
		int api = (int)vt_below(&rng, 8), r;
		int ms = vt_one_in(&rng, 8) ? 0 : 200;
		int in_fd = -1;	/* index of the fd that also asks for POLLIN */
		short rev[NFD] = { 0 };
		struct pollfd p[NFD];

		/* a file reopened after the marker was raised misses it */
		if (__atomic_load_n(&sh->quiet, __ATOMIC_ACQUIRE))
			__atomic_store_n(&w->calm, 1, __ATOMIC_RELEASE);
		if (!w->calm && vt_one_in(&rng, 60)) {
			w_close(f, ep);
			w_open(w, f, &ep);
			w->reopens++;
		}
		for (i = 0; i < NFD; i++)
			if (f[i].no_in)
				f[i].no_in--;
		/* now and then one non-blocking fd also waits for frames */
		i = (int)vt_below(&rng, NFD);
		if ((api == 1 || api == 3 || api == 5) && f[i].nb &&
		    !f[i].no_in)
			in_fd = i;
		w->waits++;
		w->zero_timeouts += !ms;
		snprintf(w->cur, sizeof(w->cur), "wait api %d, %d ms", api, ms);
		if (api <= 1 || api == 7) {
			fd_set rd, ex;
			struct timeval tv = { 0, ms * 1000 };
			struct timespec ts = { 0, ms * 1000000L };
			int maxfd = 0;

			FD_ZERO(&rd);
			FD_ZERO(&ex);
			for (i = 0; i < NFD; i++) {
				FD_SET(f[i].fd, &ex);
				if (i == in_fd)
					FD_SET(f[i].fd, &rd);
				if (f[i].fd > maxfd)
					maxfd = f[i].fd;
			}
			r = api == 7 ? pselect(maxfd + 1, &rd, NULL, &ex, &ts,
					       NULL) :
				select(maxfd + 1, &rd, NULL, &ex, &tv);
			for (i = 0; r > 0 && i < NFD; i++)
				rev[i] = (FD_ISSET(f[i].fd, &ex) ? POLLPRI : 0) |
					 (FD_ISSET(f[i].fd, &rd) ? POLLIN : 0);
		} else if (api == 2 || api == 3 || api == 6) {
			struct timespec ts = { 0, ms * 1000000L };

			for (i = 0; i < NFD; i++) {
				p[i].fd = f[i].fd;
				p[i].events = POLLPRI |
					      (i == in_fd ? POLLIN : 0);
				p[i].revents = 0;
			}
			r = api == 6 ? ppoll(p, NFD, &ts, NULL) :
				poll(p, NFD, ms);
			for (i = 0; r > 0 && i < NFD; i++) {
				rev[i] = p[i].revents;
				if (rev[i] & (POLLERR | POLLHUP | POLLNVAL) &&
				    i != in_fd)
					MSG(w, "poll: revents 0x%x for POLLPRI",
					    rev[i]);
			}
		} else {
			struct epoll_event ev[NFD];
			int tmp = -1, e = ep;

			if (api == 5) {
				/* a new set, one fd with EPOLLIN too */
				tmp = epoll_create1(EPOLL_CLOEXEC);
				for (i = 0; i < NFD; i++) {
					struct epoll_event a = {
						.events = EPOLLPRI |
							  (i == in_fd ? EPOLLIN : 0),
						.data.u32 = i,
					};

					epoll_ctl(tmp, EPOLL_CTL_ADD, f[i].fd,
						  &a);
				}
				e = tmp;
			} else if (vt_one_in(&rng, 4)) {
				/* EPOLL_CTL_MOD re-polls the fd */
				struct epoll_event a = { .events = EPOLLPRI };

				i = (int)vt_below(&rng, NFD);
				a.data.u32 = i;
				if (epoll_ctl(ep, EPOLL_CTL_MOD, f[i].fd, &a))
					MSG(w, "EPOLL_CTL_MOD: %s",
					    vt_errname(errno));
			}
			r = epoll_wait(e, ev, NFD, ms);
			for (i = 0; i < r; i++)
				rev[ev[i].data.u32] = ev[i].events;
			if (tmp >= 0)
				close(tmp);
		}
		if (r < 0) {
			MSG(w, "wait api %d: %s", api, vt_errname(errno));
			continue;
		}
		for (i = 0; i < NFD; i++) {
			if (rev[i] & POLLPRI)
				w_events(w, &f[i]);
			if (i == in_fd && (rev[i] & POLLIN) &&
			    !(rev[i] & POLLERR))
				w_read(w, &f[i], buf);
			else if (i == in_fd && (rev[i] & POLLERR))
				f[i].no_in = 20;
		}
	}
	w_close(f, ep);
	free(buf);
	snprintf(w->cur, sizeof(w->cur), "done");
	_exit(0);
}

/* ---- the checks at the end ------------------------------------------------- */

/*
 * With the switch at 0, POLLPRI-only waits on an idle device in many forms:
 * the engine must not start, and the driver must never see POLLIN asked.
 */
/* A device's engine starts, from its read-only control (0 if unreadable). */
static uint64_t dev_starts(int d)
{
	uint64_t v = 0;
	int fd = open(devs[d].path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0) {
		vp_engine_starts(fd, devs[d].inst, &v);
		close(fd);
	}
	return v;
}

static void check_pri_only(int d, unsigned int *nwaits, char *why,
			   size_t len)
{
	struct vp_polltrace pt = { "" };
	uint64_t starts0, starts1, running;
	uint32_t seen;
	int64_t run;
	int fd, fd2, ep, k, r;

	why[0] = 0;
	fd = open(devs[d].path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	fd2 = open(devs[d].path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fd2 < 0) {
		snprintf(why, len, "open: %s", vt_errname(errno));
		goto out;
	}
	vp_subscribe(fd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	{
		struct epoll_event e = { .events = EPOLLPRI };

		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
	}
	r = vp_polltrace_open(&pt, devs[d].inst);
	if (r) {
		snprintf(why, len, "cannot trace the poll calls: %s",
			 vt_errname(-r));
		goto out_ep;
	}
	if (vp_engine_starts(fd, devs[d].inst, &starts0)) {
		snprintf(why, len, "no Engine Starts control");
		goto out_ep;
	}
	for (k = 0; k < 16; k++) {
		int ms = k % 2 ? 30 : 0;
		struct epoll_event e;
		struct v4l2_event ev;
		struct pollfd p = { .fd = fd, .events = POLLPRI };
		fd_set ex;
		struct timeval tv = { 0, ms * 1000 };

		/* every other round with an event pending */
		if (k % 4 >= 2)
			vp_ctrl_set(fd2, V4L2_CID_BRIGHTNESS, 10 + k);
		FD_ZERO(&ex);
		FD_SET(fd, &ex);
		switch (k / 4) {
		case 0:
			r = select(fd + 1, NULL, NULL, &ex, &tv);
			break;
		case 1:
			r = poll(&p, 1, ms);
			break;
		case 2:
			r = epoll_wait(ep, &e, 1, ms);
			break;
		default:
			r = ppoll(&p, 1, &(struct timespec){ 0, ms * 1000000L },
				  NULL);
			break;
		}
		(*nwaits)++;
		if (r < 0)
			snprintf(why, len, "wait %d: %s", k, vt_errname(errno));
		while (ioctl(fd, VIDIOC_DQEVENT, &ev) == 0)
			;
	}
	vp_engine_starts(fd, devs[d].inst, &starts1);
	running = vp_ctrl_get64(fd, VIVPOLL_CID_ENGINE_RUNNING, &run) ? 0 : (uint64_t)run;
	if (vp_polltrace_read(&pt, NULL, &seen))
		snprintf(why, len, "cannot read the poll trace");
	else if (starts1 != starts0 || running)
		snprintf(why, len, "the engine started (%" PRIu64 " -> %" PRIu64
			 " starts, running %" PRIu64 ")", starts0, starts1,
			 running);
	else if (seen & (POLLIN | POLLRDNORM))
		snprintf(why, len, "the driver saw POLLIN requested "
			 "(requested masks 0x%08" PRIx32 ")", seen);
	else if (!(seen & POLLPRI))
		snprintf(why, len, "the driver never saw POLLPRI requested "
			 "(requested masks 0x%08" PRIx32 ")", seen);
out_ep:
	vp_polltrace_close(&pt);
	close(ep);
out:
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
}

/* With the switch at 1, a zero-timeout select() on exceptfds starts it. */
static void check_legacy_starts(int d, char *why, size_t len)
{
	uint64_t starts0 = 0, starts1 = 0;
	struct timeval tv = { 0, 0 };
	fd_set ex;
	int fd;

	why[0] = 0;
	fd = open(devs[d].path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "open: %s", vt_errname(errno));
		return;
	}
	vp_subscribe(fd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0);
	vp_engine_starts(fd, devs[d].inst, &starts0);
	if (vp_sysctl_write(1)) {
		snprintf(why, len, "cannot set the switch");
	} else {
		FD_ZERO(&ex);
		FD_SET(fd, &ex);
		select(fd + 1, NULL, NULL, &ex, &tv);
		vp_sysctl_write(0);
		vp_engine_starts(fd, devs[d].inst, &starts1);
		if (starts1 != starts0 + 1)
			snprintf(why, len, "engine starts %" PRIu64 " -> %"
				 PRIu64, starts0, starts1);
	}
	close(fd);
}

static bool all_ready(unsigned long nwaiters)
{
	unsigned long i;

	for (i = 0; i < nwaiters; i++)
		if (!__atomic_load_n(&sh->w[i].ready, __ATOMIC_ACQUIRE))
			return false;
	return __atomic_load_n(&sh->raiser.ready, __ATOMIC_ACQUIRE);
}

/* The waiter x device pairs without the marker (in why), how many */
static unsigned int markers_missing(unsigned long nwaiters, char *why,
				    size_t len)
{
	unsigned int i, n = 0;
	int d;

	why[0] = 0;
	for (i = 0; i < nwaiters; i++)
		for (d = 0; d < ndevs; d++)
			if (!__atomic_load_n(&sh->w[i].marker[d],
					     __ATOMIC_ACQUIRE)) {
				n++;
				vt_appendf(why, len, "waiter %u, %.31s (%" PRIu64
					   " events before); ", i,
					   devs[d].path, sh->w[i].ev_n[d]);
			}
	return n;
}

int main(int argc, char **argv)
{
	unsigned int scale = vt_scale();
	unsigned long nwaiters = 6, secs = vt_quick() ? 4 : 15 * scale;
	const struct vt_opt opts[] = {
		{ "waiters", 1, MAX_WAITERS - 1, &nwaiters, NULL },
		{ "secs", 1, 3600, &secs, NULL },
		{ NULL, 0, 0, NULL, NULL },
	};
	uint64_t seed = vt_default_seed(), toggles = 0, starts0 = 0, starts1;
	char why[1024], st[64];
	struct vt_rng rng;
	struct sigaction sa;
	struct vt_snap snap;
	unsigned int i, bad = 0, nwaits = 0, missing;
	int status[MAX_WAITERS + 1], c, d, v = -1;
	const char *rwhy;
	uint64_t tot_waits = 0, tot_events = 0, tot_reads = 0, max_gap = 0;
	uint64_t tot_zero = 0, tot_reopens = 0, t_fork, now, end, t_marker;
	bool ready;

	vt_options(argc, argv, opts, &seed);
	vt_begin("84-legacy-toggle: flip fs.poll_legacy_null_table under "
		 "waiters and events");
	vt_plan(15 + vt_health_plan(NDEV));
	rng.s = seed;
	sh = vt_shared(sizeof(*sh));
	have_switch = vp_sysctl_present();
	/* the patched kernel always has the switch: its absence fails */
	if (!vt_ok(have_switch, "the kernel has fs.poll_legacy_null_table",
		   "no " VP_SYSCTL_PATH ": not the patched kernel"))
		return vt_end();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	atexit(at_exit);
	/* whatever happens, this process ends in bounded time */
	alarm(secs + 300 * scale);

	c = vt_reload("n_devs=2", 5000 * scale, &rwhy);
	if (!vt_ok(!c, "vivpoll reloaded with n_devs=2", "%s", rwhy))
		return vt_end();
	ndevs = vt_devices(devs, VT_MAX_DEVS);
	if (!vt_ok(ndevs == NDEV, "two vivpoll devices", "%d found", ndevs))
		goto restore;
	vt_diag("seed %" PRIu64 ", scale %u: %lu waiters with %d fds each, "
		"1 event raiser, %lu s", seed, scale, nwaiters, NFD, secs);
	vt_klog_mark(argv[0]);
	vt_kmemleak_begin();
	vt_snapshot(&snap);
	for (d = 0; d < ndevs; d++)
		starts0 += dev_starts(d);

	fflush(stdout);
	t_fork = vp_now_ns();
	for (i = 0; i <= nwaiters; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			have_switch = false;	/* only the parent restores */
			if (i == nwaiters)
				raiser_main();
			waiter_main(&sh->w[i], seed + 77 * (i + 1));
		}
		kids[nkids++] = pid;
	}
	/* the run starts when every child is ready (or a minute has gone by) */
	while (!all_ready(nwaiters) &&
	       vp_now_ns() - t_fork < 60000000000ull * scale)
		vp_sleep_ms(5);
	ready = all_ready(nwaiters);
	sh->t0 = vp_now_ns();
	end = sh->t0 + secs * 1000000000ull;
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	/*
	 * the toggler: secs seconds, and at least MIN_TOGGLES toggles (a
	 * count, not a rate: a vCPU the host does not run toggles nothing),
	 * which may take at most a minute more
	 */
	while ((now = vp_now_ns()) < end ||
	       (toggles < MIN_TOGGLES &&
		now < end + 60000000000ull * scale)) {
		if (vp_sysctl_write(1) || vp_sysctl_write(0)) {
			vt_diag("writing the switch failed");
			break;
		}
		toggles++;
		if (vt_one_in(&rng, 2))
			vp_sleep_ms(vt_below(&rng, 3));
	}
	sh->t_end = now;
	vp_sysctl_write(0);
	/*
	 * The toggling and the raiser stop; then one marker event on each
	 * device, which every waiter must receive
	 */
	__atomic_store_n(&sh->quiet, 1, __ATOMIC_RELEASE);
	vt_reap(&kids[nwaiters], &status[nwaiters], 1,
		vp_now_ns() + 10000000000ull * scale);
	/* no waiter is reopening its files (bounded: a dead one never is) */
	end = vp_now_ns() + 10000000000ull * scale;
	for (i = 0; i < nwaiters && vp_now_ns() < end; i++)
		while (!__atomic_load_n(&sh->w[i].calm, __ATOMIC_ACQUIRE) &&
		       vp_now_ns() < end)
			vp_sleep_ms(2);
	for (d = 0; d < ndevs; d++) {
		int fd = open(devs[d].path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

		if (fd < 0 || vp_ctrl_set(fd, V4L2_CID_BRIGHTNESS, MARKER) < 0)
			vt_diag("cannot raise the marker on %s: %s",
				devs[d].path, vt_errname(errno));
		if (fd >= 0)
			close(fd);
	}
	t_marker = vp_now_ns();
	end = t_marker + 5000000000ull * scale;
	while ((missing = markers_missing(nwaiters, why, sizeof(why))) &&
	       vp_now_ns() < end)
		vp_sleep_ms(5);
	if (!missing)
		vt_diag("the marker reached every waiter %.0f ms after it was "
			"raised", (vp_now_ns() - t_marker) / 1e6);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	vt_reap(kids, status, (int)nwaiters, vp_now_ns() + 30000000000ull * scale);

	why[0] = 0;
	for (i = 0; i < (unsigned int)nkids; i++) {
		bool is_raiser = i == nwaiters;

		if (status[i] >= 0 && WIFEXITED(status[i]) &&
		    !WEXITSTATUS(status[i]))
			continue;
		bad++;
		vt_appendf(why, sizeof(why), "%s %u: %s in %s; ",
			   is_raiser ? "raiser" : "waiter", i,
			   vt_status_str(status[i], st, sizeof(st)),
			   is_raiser ? "-" : sh->w[i].cur);
	}
	for (i = 0; i < nwaiters; i++) {
		struct waiter *w = &sh->w[i];

		tot_waits += w->waits;
		tot_events += w->events;
		tot_reads += w->reads;
		tot_zero += w->zero_timeouts;
		tot_reopens += w->reopens;
		if (w->max_gap_ms > max_gap)
			max_gap = w->max_gap_ms;
	}
	starts1 = 0;
	for (d = 0; d < ndevs; d++)
		starts1 += dev_starts(d);
	vt_diag("%" PRIu64 " toggles of the switch; %lu waiters: %" PRIu64
		" waits (%" PRIu64 " with a zero timeout), %" PRIu64
		" events, %" PRIu64 " frames read, %" PRIu64 " reopens; "
		"raised %" PRIu64 " control, %" PRIu64
		" source change events; %" PRIu64 " engine starts",
		toggles, nwaiters, tot_waits, tot_zero, tot_events, tot_reads,
		tot_reopens, sh->raiser.ctrl, sh->raiser.src,
		starts1 - starts0);
	vt_diag("the waiters and the event raiser were ready %" PRIu64
		" ms after they were started; the run took %.1f s; the longest "
		"gap between two events of a waiter was %" PRIu64 " ms",
		(sh->t0 - t_fork) / 1000000, (sh->t_end - sh->t0) / 1e9,
		max_gap);
	vt_ok(ready, "the waiters and the event raiser were ready within a "
	      "minute", "not all of them");
	vt_ok(!bad, "the waiters and the event raiser exited normally", "%s",
	      why);
	vt_ok(!vp_sysctl_read(&v) && v == 0, "the switch is back at 0",
	      "it is %d", v);
	vt_ok(toggles >= MIN_TOGGLES, "the switch was toggled at least 100 "
	      "times", "only %" PRIu64 " in %.1f s", toggles,
	      (sh->t_end - sh->t0) / 1e9);

	why[0] = 0;
	for (i = 0; i < nwaiters; i++) {
		unsigned int m;

		for (m = 0; m < sh->w[i].nmsg; m++) {
			vt_diag("waiter %u: %s", i, sh->w[i].msg[m]);
			vt_appendf(why, sizeof(why), "[%u] %s; ", i,
				   sh->w[i].msg[m]);
		}
	}
	for (i = 0; i < sh->raiser.nmsg; i++)
		vt_appendf(why, sizeof(why), "[raiser] %s; ",
			   sh->raiser.msg[i]);
	vt_ok(!*why, "no unexpected errno, event or poll result", "%s", why);

	missing = markers_missing(nwaiters, why, sizeof(why));
	vt_ok(!missing, "after the run, every waiter receives the marker event "
	      "of every device", "%u missing: %s", missing, why);

	/* the engines stop once the waiters are gone */
	vt_ok(vt_wait_engines_stopped(5000 * scale, why, sizeof(why)),
	      "the engines stop once the waiters are gone", "still running: %s",
	      why);
	for (d = 0; d < ndevs; d++) {
		char desc[160];

		nwaits = 0;
		check_pri_only(d, &nwaits, why, sizeof(why));
		snprintf(desc, sizeof(desc), "switch at 0: %u POLLPRI-only "
			 "waits on idle %.31s neither start the engine nor ask "
			 "for POLLIN", nwaits, devs[d].path);
		vt_ok(!*why, desc, "%s", why);
	}
	check_legacy_starts(0, why, sizeof(why));
	vt_ok(!*why, "switch at 1: a zero-timeout select() on exceptfds "
	      "starts the engine, as before v3.4", "%s", why);
	vt_ok(!vp_sysctl_read(&v) && v == 0, "the switch is at 0 again",
	      "it is %d", v);
	vt_health(&snap, NULL, NDEV);
restore:
	vt_restore_defaults();
	return vt_end();
}
