// SPDX-License-Identifier: GPL-2.0
/*
 * The users of vivpoll.0's video node under unbind and rmmod, the one
 * scenario 82-unbind-loop reports cycle by cycle and 92-leaks repeats to
 * measure what it leaves behind; see lib.h.
 *
 * Each user is a process in a role: an idle open file, a queue owner
 * (streaming by mmap, starved and blocked in VIDIOC_DQBUF, or streaming by
 * blocking read()), processes blocked in select(), poll() and epoll_wait()
 * on exceptfds and readfds, one blocked in VIDIOC_DQEVENT, racers issuing
 * ioctls and opening the node in a loop, and read() and poll(POLLIN)
 * loops that start the engine and close again.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "common.h"
#include "lib.h"

#define MAX_ROLES	16
#define FRAME_MAX	(320 * 240 * 2)
/* where a vivpoll debugfs folder would be (the driver makes none) */
#define VIVPOLL_DEBUGFS	"/sys/kernel/debug/vivpoll"

enum kind {
	K_IDLE,			/* an open file, nothing else */
	K_OWNER_STARVED,	/* streaming, all buffers dequeued, in DQBUF */
	K_OWNER_MMAP,		/* streaming by mmap: poll(POLLIN)+DQBUF+QBUF */
	K_OWNER_READ,		/* streaming by blocking read() */
	K_SELECT_EX,		/* select() on exceptfds, subscribed */
	K_POLL_PRI,		/* poll(POLLPRI), subscribed */
	K_EPOLL_PRI,		/* epoll_wait(EPOLLPRI), subscribed */
	K_SELECT_RDEX,		/* select() on readfds+exceptfds, not owner */
	K_EPOLL_IN,		/* epoll_wait(EPOLLIN), not the owner */
	K_DQEVENT,		/* blocked in VIDIOC_DQEVENT, subscribed */
	K_RACER,		/* ioctls and opens in a loop */
	K_READ_LOOP,		/* open, blocking read() of a frame, close */
	K_POLLIN_LOOP,		/* open, poll(POLLIN), close */
};

static const char *const kind_names[] = {
	[K_IDLE] = "idle open file",
	[K_OWNER_STARVED] = "owner blocked in DQBUF",
	[K_OWNER_MMAP] = "owner streaming by mmap",
	[K_OWNER_READ] = "owner streaming by read()",
	[K_SELECT_EX] = "select(exceptfds)",
	[K_POLL_PRI] = "poll(POLLPRI)",
	[K_EPOLL_PRI] = "epoll(EPOLLPRI)",
	[K_SELECT_RDEX] = "select(readfds, exceptfds) of a non-owner",
	[K_EPOLL_IN] = "epoll(EPOLLIN) of a non-owner",
	[K_DQEVENT] = "blocked VIDIOC_DQEVENT",
	[K_RACER] = "racer",
	[K_READ_LOOP] = "read() loop",
	[K_POLLIN_LOOP] = "poll(POLLIN) loop",
};

struct role {
	enum kind kind;
	pid_t pid;
	volatile int ready;	/* set up, about to block */
	volatile int done;	/* the blocking call returned */
	uint64_t t_done;	/* when */
	int ret, err;		/* its return value and errno */
	uint32_t revents;	/* poll/epoll events; select: POLLIN/POLLPRI */
	uint64_t frames;	/* streaming owners: frames so far */
	uint64_t calls;		/* racers, loops: calls made */
	int after_err;		/* errno of QUERYCAP afterwards, 0 if it worked */
	short after_rev;	/* what a poll of the file said afterwards */
	char fail[160];		/* set-up or unexpected failure */
};

struct shared {
	volatile int stop;	/* children: finish up and exit */
	volatile int unbound;	/* the unbind returned */
	struct role r[MAX_ROLES];
};

static struct shared *sh;
static int nroles;
static unsigned int scale, wake_ms;
/* the node of vivpoll.0 now, and as it was first found */
static char devpath[32], node0[32], node0_dev[16];
static struct vt_users_stats stats;

static void on_usr1(int sig)
{
	(void)sig;
}

/* ---- the users ------------------------------------------------------------ */

static void role_fail(struct role *r, const char *what, int e)
{
	if (!r->fail[0])
		snprintf(r->fail, sizeof(r->fail), "%s: %s", what,
			 vt_errname(e));
}

static void mark_done(struct role *r, int ret, int err, uint32_t revents)
{
	r->ret = ret;
	r->err = err;
	r->revents = revents;
	r->t_done = vp_now_ns();
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static void wait_stop(void)
{
	while (!sh->stop)
		vp_sleep_ms(5);
}

static void racer(struct role *r, struct vt_rng *rng)
{
	int fd = open(devpath, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		role_fail(r, "open", errno);
		return;
	}
	r->ready = 1;
	while (!sh->stop) {
		struct v4l2_capability cap;
		struct v4l2_format fmt = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		};
		struct v4l2_control c = {
			.id = V4L2_CID_CONTRAST,
			.value = (int32_t)vt_below(rng, 256),
		};
		struct pollfd p = { .fd = fd, .events = POLLPRI };
		int ret = 0, e = 0, fd2;

		r->calls++;
		switch (vt_below(rng, 5)) {
		case 0:
			ret = ioctl(fd, VIDIOC_QUERYCAP, &cap);
			break;
		case 1:
			ret = ioctl(fd, VIDIOC_TRY_FMT, &fmt);
			break;
		case 2:
			/* not a control the waiters subscribed to */
			ret = ioctl(fd, VIDIOC_S_CTRL, &c);
			break;
		case 3:
			ret = poll(&p, 1, 0) < 0 ? -1 : 0;
			break;
		case 4:
			fd2 = open(devpath, O_RDWR | O_NONBLOCK | O_CLOEXEC);
			if (fd2 >= 0)
				close(fd2);
			else if (errno != ENOENT && errno != ENODEV &&
				 errno != ENXIO)
				role_fail(r, "open (racer)", errno);
			break;
		}
		e = errno;
		if (ret < 0 && e == ENODEV) {
			if (!r->done)
				mark_done(r, ret, e, 0);
		} else if (ret < 0 && !(sh->stop && e == EINTR)) {
			/* at the end, the SIGUSR1 may interrupt a call */
			role_fail(r, "racer ioctl", e);
		}
		if (r->done)
			vp_sleep_ms(5);
	}
	close(fd);
}

/*
 * Each pass a new file starts the engine by read() or poll(POLLIN) on an
 * idle queue (or finds it busy: EBUSY, POLLERR) and closes it again. It
 * stops at the unbind (ENODEV, POLLHUP, no node to open) and keeps its
 * last file open: an engine started through it would run until the close.
 */
static void looper(struct role *r)
{
	bool rd = r->kind == K_READ_LOOP;
	static char buf[640 * 480 * 2];
	int fd = -1;

	r->ready = 1;
	while (!sh->stop) {
		struct pollfd p = { .events = POLLIN };
		int ret, e;

		fd = open(devpath, O_RDWR | O_CLOEXEC | (rd ? 0 : O_NONBLOCK));
		if (fd < 0) {
			mark_done(r, -1, errno, 0);
			break;
		}
		r->calls++;
		if (rd) {
			ret = read(fd, buf, sizeof(buf)) < 0 ? -1 : 0;
		} else {
			p.fd = fd;
			ret = poll(&p, 1, 100);
		}
		e = errno;
		if ((ret < 0 && e == ENODEV) || (p.revents & POLLHUP) ||
		    sh->unbound) {
			mark_done(r, ret, ret < 0 ? e : 0, p.revents);
			break;
		}
		if (rd && !ret)
			r->frames++;
		close(fd);
		fd = -1;
		if (ret < 0)	/* EBUSY: another file owns the queue */
			vp_sleep_ms(1);
	}
	wait_stop();
	if (fd >= 0)
		close(fd);
}

static bool nonblocking(enum kind k)
{
	return k == K_OWNER_MMAP || k == K_IDLE || k == K_SELECT_EX ||
	       k == K_POLL_PRI || k == K_EPOLL_PRI || k == K_SELECT_RDEX ||
	       k == K_EPOLL_IN;
}

static bool subscribed(enum kind k)
{
	return k == K_SELECT_EX || k == K_POLL_PRI || k == K_EPOLL_PRI ||
	       k == K_DQEVENT || k == K_SELECT_RDEX;
}

static void child(struct role *r, uint64_t seed)
{
	static char buf[FRAME_MAX];
	struct vt_rng rng = { seed };
	struct vt_stream s = { .fd = -1 };
	struct v4l2_capability cap;
	struct v4l2_buffer b;
	struct pollfd p;
	fd_set rd, ex;
	struct timeval tv;
	struct epoll_event ev;
	int fd, ep, ret;

	if (r->kind == K_RACER) {
		racer(r, &rng);
		_exit(0);
	}
	if (r->kind == K_READ_LOOP || r->kind == K_POLLIN_LOOP) {
		looper(r);
		_exit(0);
	}
	fd = open(devpath, O_RDWR | O_CLOEXEC |
		  (nonblocking(r->kind) ? O_NONBLOCK : 0));
	if (fd < 0) {
		role_fail(r, "open", errno);
		_exit(0);
	}
	if (subscribed(r->kind) &&
	    vp_subscribe(fd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0) < 0) {
		role_fail(r, "SUBSCRIBE_EVENT", errno);
		_exit(0);
	}
	/* small frames: cheap under TCG */
	if ((r->kind == K_OWNER_STARVED || r->kind == K_OWNER_MMAP ||
	     r->kind == K_OWNER_READ) &&
	    vp_set_format(fd, 320, 240, V4L2_PIX_FMT_YUYV, NULL, NULL) < 0) {
		role_fail(r, "S_FMT 320x240", errno);
		_exit(0);
	}
	switch (r->kind) {
	case K_IDLE:
		r->ready = 1;
		wait_stop();
		break;
	case K_OWNER_STARVED:
		ret = vt_stream_start(&s, fd, 4, 1);
		if (!ret)
			ret = vt_dqbuf(fd, &b, -1);
		if (ret) {
			role_fail(r, s.step ? s.step : "first DQBUF", -ret);
			break;
		}
		r->frames++;
		r->ready = 1;
		ret = vt_dqbuf(fd, &b, -1);
		mark_done(r, ret ? -1 : 0, -ret, 0);
		wait_stop();
		break;
	case K_OWNER_MMAP:
		ret = vt_stream_start(&s, fd, 4, VT_MAX_BUFS);
		if (ret) {
			role_fail(r, s.step, -ret);
			break;
		}
		for (;;) {
			p.fd = fd;
			p.events = POLLIN;
			ret = poll(&p, 1, 10000 * scale);
			if (ret <= 0) {
				if (sh->stop && ret < 0 && errno == EINTR)
					break;
				mark_done(r, ret, ret ? errno : ETIMEDOUT, 0);
				break;
			}
			if (p.revents & (POLLERR | POLLHUP)) {
				mark_done(r, ret, 0, p.revents);
				break;
			}
			ret = vt_dqbuf(fd, &b, -1);
			if (ret) {
				mark_done(r, -1, -ret, p.revents);
				break;
			}
			r->frames++;
			r->ready = 1;
			if (ioctl(fd, VIDIOC_QBUF, &b) < 0) {
				mark_done(r, -1, errno, 0);
				break;
			}
			if (sh->stop)
				break;
		}
		wait_stop();
		break;
	case K_OWNER_READ:
		for (;;) {
			ssize_t n = read(fd, buf, sizeof(buf));

			if (n <= 0) {
				if (!(sh->stop && n < 0 && errno == EINTR))
					mark_done(r, (int)n, n ? errno : 0, 0);
				break;
			}
			r->frames++;
			r->ready = 1;
			if (sh->stop)
				break;
		}
		wait_stop();
		break;
	case K_SELECT_EX:
	case K_SELECT_RDEX:
		FD_ZERO(&rd);
		FD_ZERO(&ex);
		FD_SET(fd, &ex);
		if (r->kind == K_SELECT_RDEX)
			FD_SET(fd, &rd);
		tv.tv_sec = 60 * scale;
		tv.tv_usec = 0;
		r->ready = 1;
		ret = select(fd + 1, &rd, NULL, &ex, &tv);
		mark_done(r, ret, errno, (FD_ISSET(fd, &rd) ? POLLIN : 0) |
			  (FD_ISSET(fd, &ex) ? POLLPRI : 0));
		wait_stop();
		break;
	case K_POLL_PRI:
		p.fd = fd;
		p.events = POLLPRI;
		p.revents = 0;
		r->ready = 1;
		ret = poll(&p, 1, 60000 * scale);
		mark_done(r, ret, errno, p.revents);
		wait_stop();
		break;
	case K_EPOLL_PRI:
	case K_EPOLL_IN:
		ep = epoll_create1(EPOLL_CLOEXEC);
		memset(&ev, 0, sizeof(ev));
		ev.events = r->kind == K_EPOLL_PRI ? EPOLLPRI : EPOLLIN;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			role_fail(r, "EPOLL_CTL_ADD", errno);
			break;
		}
		r->ready = 1;
		memset(&ev, 0, sizeof(ev));
		ret = epoll_wait(ep, &ev, 1, 60000 * scale);
		mark_done(r, ret, errno, ev.events);
		close(ep);
		wait_stop();
		break;
	case K_DQEVENT: {
		struct v4l2_event e;

		r->ready = 1;
		ret = ioctl(fd, VIDIOC_DQEVENT, &e);
		mark_done(r, ret, errno, 0);
		wait_stop();
		break;
	}
	case K_RACER:
	case K_READ_LOOP:
	case K_POLLIN_LOOP:
		break;
	}
	/* what the file says now: dead after an unbind, alive otherwise */
	memset(&cap, 0, sizeof(cap));
	r->after_err = ioctl(fd, VIDIOC_QUERYCAP, &cap) < 0 ? errno : 0;
	p.fd = fd;
	p.events = POLLIN | POLLPRI;
	p.revents = 0;
	r->after_rev = poll(&p, 1, 0) == 1 ? p.revents : 0;
	vt_stream_unmap(&s);
	close(fd);
	_exit(0);
}

/* ---- the parent ------------------------------------------------------------ */

static void add_role(enum kind k)
{
	memset(&sh->r[nroles], 0, sizeof(sh->r[0]));
	sh->r[nroles++].kind = k;
}

static void spawn(uint64_t seed)
{
	int i;

	sh->stop = 0;
	sh->unbound = 0;
	fflush(stdout);
	for (i = 0; i < nroles; i++) {
		pid_t pid = fork();

		if (pid == 0)
			child(&sh->r[i], seed + i);
		sh->r[i].pid = pid;
		stats.procs++;
		/* let the queue owner go first: the others depend on it */
		if (i == 0) {
			uint64_t end = vp_now_ns() + 10000000000ull * scale;

			while (!sh->r[0].ready && !sh->r[0].fail[0] &&
			       !sh->r[0].done && vp_now_ns() < end)
				vp_sleep_ms(2);
		}
	}
}

/* Wait until every role is ready (or failed); false (and why) if not. */
static bool wait_ready(char *why, size_t len)
{
	uint64_t end = vp_now_ns() + 10000000000ull * scale;
	int i;

	for (;;) {
		bool all = true;

		for (i = 0; i < nroles; i++)
			if (!sh->r[i].ready && !sh->r[i].fail[0])
				all = false;
		if (all)
			break;
		if (vp_now_ns() > end) {
			snprintf(why, len, "users not ready after %u s",
				 10 * scale);
			return false;
		}
		vp_sleep_ms(5);
	}
	for (i = 0; i < nroles; i++)
		if (sh->r[i].fail[0]) {
			snprintf(why, len, "%s: %s", kind_names[sh->r[i].kind],
				 sh->r[i].fail);
			return false;
		}
	/* let the waiters get into their calls */
	vp_sleep_ms(20);
	return true;
}

/*
 * End the users: told to finish (SIGUSR1 wakes their blocking calls) or
 * killed (SIGKILL: their files are released while streaming or blocked).
 * Appends to why those that hung or died otherwise.
 */
static void finish(int sig, char *why, size_t len)
{
	pid_t pids[MAX_ROLES];
	int status[MAX_ROLES], i;
	char st[64];

	sh->stop = 1;
	for (i = 0; i < nroles; i++) {
		pids[i] = sh->r[i].pid;
		if (pids[i] > 0)
			kill(pids[i], sig);
	}
	vt_reap(pids, status, nroles, vp_now_ns() + 10000000000ull * scale);
	for (i = 0; i < nroles; i++) {
		if (status[i] >= 0 &&
		    (sig == SIGKILL ||
		     (WIFEXITED(status[i]) && !WEXITSTATUS(status[i]))))
			continue;
		vt_appendf(why, len, "%s: %s; ", kind_names[sh->r[i].kind],
			   vt_status_str(status[i], st, sizeof(st)));
	}
}

/* "echo VT_PDEV > VT_DRV_DIR/<what>" in a child, bounded in time */
static int sysfs_write_bounded(const char *what, unsigned int ms)
{
	char path[96];
	int st, i;
	pid_t pid;

	snprintf(path, sizeof(path), VT_DRV_DIR "/%s", what);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(-vt_write_file(path, VT_PDEV) & 0xff);
	for (i = 0; i < (int)ms / 10; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? -WEXITSTATUS(st) : -EIO;
		vp_sleep_ms(10);
	}
	return -ETIMEDOUT;	/* stuck in the kernel */
}

static bool revents_ok(const struct role *r)
{
	switch (r->kind) {
	case K_SELECT_EX:
		return r->ret >= 1 && (r->revents & POLLPRI);
	case K_SELECT_RDEX:
		return r->ret >= 1 && (r->revents & POLLPRI) &&
		       (r->revents & POLLIN);
	case K_POLL_PRI:
		return r->ret == 1 && (r->revents & POLLERR) &&
		       (r->revents & POLLHUP) && (r->revents & POLLPRI);
	case K_EPOLL_PRI:
		return r->ret == 1 && (r->revents & EPOLLERR) &&
		       (r->revents & EPOLLHUP) && (r->revents & EPOLLPRI);
	case K_EPOLL_IN:
		return r->ret == 1 && (r->revents & EPOLLERR) &&
		       (r->revents & EPOLLHUP);
	case K_OWNER_STARVED:
	case K_OWNER_READ:
		return r->ret < 0 && (r->err == ENODEV || r->err == EINVAL ||
				      r->err == EIO || r->err == EPIPE);
	case K_OWNER_MMAP:
		/* poll reported the hang-up, or DQBUF/QBUF failed */
		return (r->ret > 0 && (r->revents & (POLLERR | POLLHUP))) ||
		       (r->ret < 0 && (r->err == ENODEV || r->err == EINVAL ||
				       r->err == EIO || r->err == EPIPE));
	case K_RACER:
		return r->err == ENODEV;
	default:
		return true;
	}
}

/* ---- what vivpoll leaves --------------------------------------------------- */

/* No engine thread, waiting up to 5 s for the last ones to exit. */
static void no_engine(char *why, size_t len)
{
	uint64_t end = vp_now_ns() + 5000000000ull * scale;
	char buf[256];

	while (vt_engine_threads(buf, sizeof(buf)) > 0) {
		if (vp_now_ns() > end) {
			vt_appendf(why, len, "engine threads left: %s; ", buf);
			return;
		}
		vp_sleep_ms(10);
	}
}

/* /dev/videoN of vivpoll.0 and its major:minor from sysfs. */
static int node_now(char *path, size_t plen, char *dev, size_t dlen)
{
	char sys[96];
	int r = vt_find_pdev_node(0, path, plen, 3000 * scale);

	if (r)
		return r;
	snprintf(sys, sizeof(sys), "/sys/class/video4linux/%s/dev",
		 path + strlen("/dev/"));
	if (vt_read_file(sys, dev, dlen) <= 0)
		return -ENOENT;
	dev[strcspn(dev, "\n")] = 0;
	return 0;
}

/*
 * vivpoll.0 is back as it was: the same node with the same major:minor,
 * and no debugfs folder (the driver makes none); with capture, it captures.
 */
static void same_device(bool capture, char *why, size_t len)
{
	char dev[16], w[160];

	if (node_now(devpath, sizeof(devpath), dev, sizeof(dev))) {
		vt_appendf(why, len, "no video node for vivpoll.0; ");
		return;
	}
	if (strcmp(devpath, node0) || strcmp(dev, node0_dev))
		vt_appendf(why, len, "video node %s (%s), not %s (%s); ",
			   devpath, dev, node0, node0_dev);
	if (!access(VIVPOLL_DEBUGFS, F_OK))
		vt_appendf(why, len, "debugfs %s exists; ", VIVPOLL_DEBUGFS);
	if (capture && vt_capture(devpath, 3, 10000 * scale, w, sizeof(w)))
		vt_appendf(why, len, "%s does not capture: %s; ", devpath, w);
}

/* Nothing of an unloaded vivpoll is left. */
static void nothing_left(char *why, size_t len)
{
	if (vt_module_loaded())
		vt_appendf(why, len, "the module is still loaded; ");
	if (!access("/sys/bus/platform/devices/vivpoll.0", F_OK))
		vt_appendf(why, len, "platform device vivpoll.0 is left; ");
	if (!access(VIVPOLL_DEBUGFS, F_OK))
		vt_appendf(why, len, "debugfs %s is left; ", VIVPOLL_DEBUGFS);
	if (!access(node0, F_OK))
		vt_appendf(why, len, "%s is left; ", node0);
}

/* ---- the cycles ------------------------------------------------------------ */

static void step(struct vt_cycle *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* the next step of c, described by fmt; its reason starts empty */
static void step(struct vt_cycle *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->desc[c->n], sizeof(c->desc[0]), fmt, ap);
	va_end(ap);
	c->why[c->n][0] = 0;
	c->n++;
}

#define WHY(c) (c)->why[(c)->n - 1], sizeof((c)->why[0])

/* the steps up to n that the failed set-up left out */
static void not_run(struct vt_cycle *c, unsigned int n, const char *what)
{
	while (c->n < n) {
		step(c, "%s", what);
		snprintf(WHY(c), "not run: the users could not be set up");
	}
}

int vt_users_init(char *why, size_t len)
{
	struct sigaction sa;
	const char *rwhy;
	int r;

	scale = vt_scale();
	wake_ms = 3000 * scale;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART: wakes blocked calls */
	sigaction(SIGUSR1, &sa, NULL);
	sh = vt_shared(sizeof(*sh));
	/* start from a freshly loaded module with default parameters */
	r = vt_reload(NULL, 5000 * scale, &rwhy);
	if (r) {
		snprintf(why, len, "%s: %s", rwhy, vt_errname(-r));
		return r;
	}
	r = node_now(node0, sizeof(node0), node0_dev, sizeof(node0_dev));
	if (r || !vt_pdev_bound()) {
		snprintf(why, len, "vivpoll.0 is not bound or has no node");
		return r ? r : -ENODEV;
	}
	snprintf(devpath, sizeof(devpath), "%s", node0);
	return 0;
}

const char *vt_users_node(void)
{
	return devpath;
}

void vt_users_get_stats(struct vt_users_stats *st)
{
	*st = stats;
}

void vt_cycle_report(const struct vt_cycle *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		vt_ok(!c->why[i][0], c->desc[i], "%s", c->why[i]);
}

const char *vt_cycle_failed(const struct vt_cycle *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (c->why[i][0])
			return c->why[i];
	return NULL;
}

/* whatever happened, go on with a loaded module and a bound device */
static void back_to_bound(void)
{
	const char *why;

	if (!vt_module_loaded())
		vt_reload(NULL, 1000, &why);
	if (!vt_pdev_bound())
		sysfs_write_bounded("bind", 10000 * scale);
	vt_find_pdev_node(0, devpath, sizeof(devpath), 3000 * scale);
}

void vt_unbind_cycle(unsigned int cycle, uint64_t seed, bool light,
		     struct vt_cycle *c)
{
	static const enum kind owners[] = {
		K_OWNER_STARVED, K_OWNER_MMAP, K_OWNER_READ,
	};
	enum kind owner = owners[cycle % 3];
	uint64_t t_unbind, t_unbound, end;
	bool dqevent = cycle == 0 && !light;
	char mask[64];
	int i, r, dq = -1;

	memset(c, 0, sizeof(*c));
	nroles = 0;
	add_role(owner);
	add_role(K_IDLE);
	add_role(K_SELECT_EX);
	add_role(K_POLL_PRI);
	if (!light) {
		add_role(K_EPOLL_PRI);
		if (owner == K_OWNER_STARVED) {
			/* frames would wake these while streaming */
			add_role(K_SELECT_RDEX);
			add_role(K_EPOLL_IN);
		}
		add_role(K_RACER);
		add_role(K_RACER);
	}
	if (dqevent) {
		dq = nroles;
		add_role(K_DQEVENT);
	}
	spawn(seed);
	step(c, "unbind cycle %u (%s, %d processes): the users are set up",
	     cycle + 1, kind_names[owner], nroles);
	if (!wait_ready(WHY(c))) {
		finish(SIGKILL, WHY(c));
		not_run(c, VT_UNBIND_STEPS, "unbind cycle: the later steps");
		back_to_bound();
		return;
	}
	step(c, "unbind cycle %u: the unbind returns and every blocked "
	     "process wakes with an error or POLLERR|POLLHUP", cycle + 1);
	for (i = 0; i < nroles; i++)
		if (sh->r[i].kind != K_RACER && sh->r[i].done)
			vt_appendf(WHY(c), "%s returned before the unbind "
				   "(ret %d, %s); ", kind_names[sh->r[i].kind],
				   sh->r[i].ret, vt_errname(sh->r[i].err));
	t_unbind = vp_now_ns();
	r = sysfs_write_bounded("unbind", 10000 * scale);
	t_unbound = vp_now_ns();
	sh->unbound = 1;
	if (r)
		vt_appendf(WHY(c), "unbind: %s; ",
			   r == -ETIMEDOUT ? "hangs" : vt_errname(-r));
	else if (vt_pdev_bound())
		vt_appendf(WHY(c), "still bound after unbind; ");
	/* every waiter returns, soon */
	end = t_unbound + wake_ms * 1000000ull;
	for (;;) {
		bool all = true;

		for (i = 0; i < nroles; i++)
			if (i != dq && !sh->r[i].done &&
			    sh->r[i].kind != K_IDLE)
				all = false;
		if (all || vp_now_ns() > end)
			break;
		vp_sleep_ms(5);
	}
	for (i = 0; i < nroles; i++) {
		struct role *ro = &sh->r[i];

		if (i == dq || ro->kind == K_IDLE)
			continue;
		if (!ro->done) {
			vt_appendf(WHY(c), "%s still blocked %u ms after the "
				   "unbind; ", kind_names[ro->kind], wake_ms);
			continue;
		}
		stats.wakeups++;
		if (ro->t_done > t_unbind &&
		    ro->t_done - t_unbind > stats.max_wake_ns)
			stats.max_wake_ns = ro->t_done - t_unbind;
		if (!revents_ok(ro))
			vt_appendf(WHY(c), "%s returned %d, %s, events %s; ",
				   kind_names[ro->kind], ro->ret,
				   vt_errname(ro->err),
				   vp_poll_mask_str(ro->revents, mask,
						    sizeof(mask)));
	}
	if (dq >= 0 && !sh->r[dq].done)
		vt_diag("cycle %u: note: a VIDIOC_DQEVENT blocked at the "
			"unbind is still blocked %u ms later "
			"(v4l2_event_dequeue() waits for an event only); "
			"woken by a signal", cycle + 1, wake_ms);

	/* the files are dead but safe; then everybody closes */
	step(c, "unbind cycle %u: later ioctls fail with ENODEV, a poll "
	     "says POLLERR|POLLHUP, every process exits normally, no engine "
	     "thread is left", cycle + 1);
	finish(SIGUSR1, WHY(c));
	for (i = 0; i < nroles; i++) {
		struct role *ro = &sh->r[i];

		if (ro->fail[0])
			vt_appendf(WHY(c), "%s: %s; ", kind_names[ro->kind],
				   ro->fail);
		if (ro->kind == K_RACER)
			continue;
		if (ro->after_err != ENODEV)
			vt_appendf(WHY(c), "%s: QUERYCAP after the unbind: "
				   "%s; ", kind_names[ro->kind],
				   vt_errname(ro->after_err));
		if ((ro->after_rev & (POLLERR | POLLHUP)) !=
		    (POLLERR | POLLHUP))
			vt_appendf(WHY(c), "%s: poll after the unbind: %s; ",
				   kind_names[ro->kind],
				   vp_poll_mask_str((uint32_t)ro->after_rev,
						    mask, sizeof(mask)));
	}
	no_engine(WHY(c));

	step(c, "unbind cycle %u: after bind, the same video node comes "
	     "back%s", cycle + 1, light ? "" : " and captures");
	r = sysfs_write_bounded("bind", 10000 * scale);
	if (r)
		vt_appendf(WHY(c), "bind: %s; ",
			   r == -ETIMEDOUT ? "hangs" : vt_errname(-r));
	else
		same_device(!light, WHY(c));
	back_to_bound();
}

/*
 * read() and poll(POLLIN) start the engine through vb2's read() emulator.
 * Started while the node is still registered, or by a call that was
 * blocked on the queue lock as the unbind began, it must not outlive the
 * unbind: judged as an admin would, by the kernel threads in /proc, while
 * every file is still open, and after bind by the new device's Engine
 * Running control. At 5 fps a blocking read() waits 200 ms for its first
 * frame, the queue lock released, before it becomes the queue's owner.
 */
void vt_race_cycle(unsigned int cycle, uint64_t seed, struct vt_cycle *c)
{
	struct vt_rng rng = { seed };
	struct v4l2_streamparm parm = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.parm.capture.timeperframe = { 1, 5 },
	};
	char threads[256];
	uint64_t end, calls = 0;
	int32_t running = -1;
	int i, r, n, fd;

	memset(c, 0, sizeof(*c));
	step(c, "race cycle %u: the readers and pollers are set up",
	     cycle + 1);
	fd = open(devpath, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, VIDIOC_S_PARM, &parm) < 0)
		vt_appendf(WHY(c), "S_PARM 1/5 s: %s; ", vt_errname(errno));
	if (fd >= 0)
		close(fd);
	nroles = 0;
	add_role(K_READ_LOOP);
	add_role(K_POLLIN_LOOP);
	add_role(K_READ_LOOP);
	add_role(K_POLLIN_LOOP);
	add_role(K_RACER);
	spawn(seed);
	if (c->why[0][0] || !wait_ready(WHY(c))) {
		finish(SIGKILL, WHY(c));
		not_run(c, VT_RACE_STEPS, "race cycle: the later steps");
		back_to_bound();
		return;
	}
	vp_sleep_ms(200 + vt_below(&rng, 400));

	step(c, "race cycle %u: after an unbind among read() and "
	     "poll(POLLIN) loops, no engine thread runs", cycle + 1);
	r = sysfs_write_bounded("unbind", 10000 * scale);
	sh->unbound = 1;
	if (r)
		vt_appendf(WHY(c), "unbind: %s; ",
			   r == -ETIMEDOUT ? "hangs" : vt_errname(-r));
	end = vp_now_ns() + wake_ms * 1000000ull;
	for (i = 0; i < nroles; i++) {
		while (sh->r[i].kind != K_RACER && !sh->r[i].done &&
		       vp_now_ns() < end)
			vp_sleep_ms(5);
		if (sh->r[i].kind != K_RACER && !sh->r[i].done)
			vt_appendf(WHY(c), "%s still running %u ms after the "
				   "unbind; ", kind_names[sh->r[i].kind],
				   wake_ms);
		calls += sh->r[i].kind != K_RACER ? sh->r[i].calls : 0;
	}
	/* the files of the readers and pollers are all still open */
	n = vt_engine_threads(threads, sizeof(threads));
	if (n)
		vt_appendf(WHY(c), "%d engine thread(s) run after the unbind: "
			   "%s; ", n, threads);
	vt_diag("race cycle %u: %" PRIu64 " reads and polls before the "
		"unbind", cycle + 1, calls);

	step(c, "race cycle %u: the re-bound device says Engine Running 0, "
	     "and no engine thread runs", cycle + 1);
	finish(SIGUSR1, WHY(c));
	r = sysfs_write_bounded("bind", 10000 * scale);
	if (r)
		vt_appendf(WHY(c), "bind: %s; ",
			   r == -ETIMEDOUT ? "hangs" : vt_errname(-r));
	else if (vt_find_pdev_node(0, devpath, sizeof(devpath), 3000 * scale))
		vt_appendf(WHY(c), "no video node after bind; ");
	fd = r ? -1 : open(devpath, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (!r && (fd < 0 ||
		   vp_ctrl_get(fd, VIVPOLL_CID_ENGINE_RUNNING, &running)))
		vt_appendf(WHY(c), "cannot read Engine Running: %s; ",
			   vt_errname(errno));
	else if (running)
		vt_appendf(WHY(c), "Engine Running is %d on the re-bound "
			   "device; ", running);
	if (fd >= 0)
		close(fd);
	n = vt_engine_threads(threads, sizeof(threads));
	if (n)
		vt_appendf(WHY(c), "%d engine thread(s) with nobody streaming: "
			   "%s; ", n, threads);
	back_to_bound();
}

/*
 * Odd cycles unbind first, with one file left open (the device structure
 * outlives the unbind: the module must too); the others keep a queue
 * owner, select() and epoll waiters, an idle file (and a racer) on the
 * bound device. Every other pair of cycles the users are killed (their
 * files released while streaming or blocked) rather than told to exit.
 */
void vt_rmmod_cycle(unsigned int cycle, uint64_t seed, bool light,
		    struct vt_cycle *c)
{
	bool unbind_first = cycle % 2, killed = cycle / 2 % 2;
	uint64_t frames0, end;
	const char *rwhy;
	int i, r, fd;

	memset(c, 0, sizeof(*c));
	nroles = 0;
	if (!unbind_first) {
		add_role(cycle % 4 == 0 ? K_OWNER_MMAP : K_OWNER_STARVED);
		add_role(K_SELECT_EX);
		add_role(K_EPOLL_PRI);
		if (!light)
			add_role(K_RACER);
	}
	add_role(K_IDLE);
	spawn(seed);
	step(c, "rmmod cycle %u (%s): the users are set up", cycle + 1,
	     unbind_first ? "unbound, a file open" : kind_names[sh->r[0].kind]);
	if (!wait_ready(WHY(c))) {
		finish(SIGKILL, WHY(c));
		not_run(c, VT_RMMOD_STEPS, "rmmod cycle: the later steps");
		back_to_bound();
		return;
	}
	if (unbind_first) {
		r = sysfs_write_bounded("unbind", 10000 * scale);
		if (r)
			vt_appendf(WHY(c), "unbind: %s; ", vt_errname(-r));
	}

	step(c, "rmmod cycle %u: rmmod is refused as in use and disturbs "
	     "nobody", cycle + 1);
	frames0 = sh->r[0].frames;
	r = vt_rmmod();
	if (r != -EWOULDBLOCK && r != -EBUSY)
		vt_appendf(WHY(c), "rmmod while in use: %s, not "
			   "EWOULDBLOCK; ", r ? vt_errname(-r) : "it worked");
	if (!vt_module_loaded())
		vt_appendf(WHY(c), "the module is gone; ");
	vp_sleep_ms(300);
	for (i = 0; i < nroles; i++)
		if (sh->r[i].kind != K_RACER && sh->r[i].done)
			vt_appendf(WHY(c), "%s was woken by the rmmod (ret "
				   "%d, %s); ", kind_names[sh->r[i].kind],
				   sh->r[i].ret, vt_errname(sh->r[i].err));
		else if (sh->r[i].kind == K_RACER && sh->r[i].done)
			vt_appendf(WHY(c), "the racer got ENODEV after the "
				   "rmmod; ");
	/*
	 * The owner streams on: a frame after the rmmod, waited for as long
	 * as a frame may take (10 s), not judged by the 300 ms above, which
	 * a vCPU that did not run may take whole.
	 */
	for (i = 0; sh->r[0].kind == K_OWNER_MMAP &&
	     sh->r[0].frames == frames0 && (unsigned int)i < 1000 * scale; i++)
		vp_sleep_ms(10);
	if (sh->r[0].kind == K_OWNER_MMAP && sh->r[0].frames == frames0)
		vt_appendf(WHY(c), "streaming stopped after the rmmod (no "
			   "frame in %u s); ", 10 * scale);

	step(c, "rmmod cycle %u: events still arrive; once the users are %s, "
	     "rmmod succeeds, nothing of vivpoll is left, modprobe brings "
	     "the same video node back%s", cycle + 1,
	     killed ? "killed" : "gone", light ? "" : ", which captures");
	if (!unbind_first) {
		/* an event wakes the select() and epoll waiters as usual */
		fd = open(devpath, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || vp_ctrl_set(fd, V4L2_CID_BRIGHTNESS,
					  (int32_t)(cycle * 7 % 256)) < 0)
			vt_appendf(WHY(c), "cannot raise a control event: "
				   "%s; ", vt_errname(errno));
		if (fd >= 0)
			close(fd);
		for (i = 0; i < 300 * (int)scale; i++) {
			if (sh->r[1].done && sh->r[2].done)
				break;
			vp_sleep_ms(10);
		}
		if (!sh->r[1].done || sh->r[1].ret != 1 ||
		    !(sh->r[1].revents & POLLPRI))
			vt_appendf(WHY(c), "select(exceptfds) did not get the "
				   "event; ");
		if (!sh->r[2].done || sh->r[2].ret != 1 ||
		    !(sh->r[2].revents & EPOLLPRI))
			vt_appendf(WHY(c), "epoll did not get the event; ");
	}
	finish(killed ? SIGKILL : SIGUSR1, WHY(c));
	for (i = 0; i < nroles; i++)
		if (sh->r[i].fail[0])
			vt_appendf(WHY(c), "%s: %s; ",
				   kind_names[sh->r[i].kind], sh->r[i].fail);
	/* the last close may take a moment after the exit */
	end = vp_now_ns() + 5000000000ull * scale;
	while ((r = vt_rmmod()) == -EWOULDBLOCK && vp_now_ns() < end)
		vp_sleep_ms(10);
	if (r) {
		vt_appendf(WHY(c), "rmmod after the users are gone: %s; ",
			   vt_errname(-r));
	} else {
		no_engine(WHY(c));
		nothing_left(WHY(c));
		r = vt_reload(NULL, 1000, &rwhy);
		if (r)
			vt_appendf(WHY(c), "%s: %s; ", rwhy, vt_errname(-r));
		else
			same_device(!light, WHY(c));
	}
	back_to_bound();
}
