// SPDX-License-Identifier: GPL-2.0
/*
 * 82-unbind-loop: unbind/bind vivpoll.0 through sysfs, and rmmod/modprobe
 * vivpoll, over and over while the device is in use by other processes:
 * files open, a queue streaming (by mmap, by read(), or starved with its
 * owner blocked in VIDIOC_DQBUF), processes blocked in select(), poll()
 * and epoll_wait() on exceptfds and readfds, and racers issuing ioctls and
 * opening the node in a loop.
 *
 * Unbind: the unbind itself returns, every blocked process wakes within a
 * bounded time (select/poll/epoll report the fd with POLLERR|POLLHUP and
 * POLLPRI, DQBUF and read() fail with ENODEV/EINVAL/EIO/EPIPE), later
 * ioctls fail with ENODEV and opens fail; after bind the device comes back
 * and captures. rmmod: refused (EWOULDBLOCK, "in use") while a file is
 * open, even after an unbind, without disturbing the users; succeeds once
 * they are gone; the reloaded device captures. No process dies from a
 * signal, nothing hangs. Then the checks of vt_health().
 *
 * A process blocked in VIDIOC_DQEVENT when the device is unbound is not
 * woken by the unbind (v4l2_event_dequeue() only waits for an event); the
 * test reports that as a diagnostic and wakes it with a signal.
 *
 * Race cycles: processes that open, start the engine by read() or
 * poll(POLLIN) and close, over and over, while the device is unbound: no
 * engine thread may run after the unbind (see race_cycle()).
 *
 * The health checks at the end include the counter controls: a snapshot
 * after the last cycle, then a capture of 5 frames by mmap, which the
 * Frames Produced control must account for.
 *
 *   82-unbind-loop [--cycles N] [--rmmod-cycles N] [--race-cycles N] [--secs S]
 *
 * Defaults: 6*scale unbind cycles, 4*scale rmmod cycles and 6*scale race
 * cycles (3, 2 and 3 with VIVPOLL_TIER=quick), and no new cycle after
 * 15+15*scale seconds. A run that stops on that time budget must have done
 * at least MIN_CYCLES unbind and MIN_RMMOD_CYCLES rmmod cycles (or all it
 * was asked for, if fewer): the quick tier's count, which it does in about
 * 4 s under TCG on 2 vCPUs.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "common.h"
#include "lib.h"

#define MAX_ROLES	16
#define NBUF		4
/* what a run must reach, even when its time budget runs out */
#define MIN_CYCLES	3
#define MIN_RMMOD_CYCLES 2

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
	uint64_t calls;		/* racers: calls made */
	int after_err;		/* errno of QUERYCAP afterwards, 0 if it worked */
	char fail[160];		/* set-up or unexpected failure */
};

struct shared {
	volatile int stop;	/* children: finish up and exit */
	volatile int unbound;	/* the unbind returned */
	struct role r[MAX_ROLES];
};

static struct shared *sh;
static char devpath[32];
static unsigned int scale, wake_ms;
static unsigned int nprocs_total, nwaits_total;
static uint64_t max_wake_ns;

static void on_usr1(int sig)
{
	(void)sig;
}

/* ---- children ------------------------------------------------------------ */

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

/* streaming by mmap: REQBUFS, mmap, QBUF (all or one), STREAMON */
static int start_mmap(struct role *r, int fd, bool all, void **mem,
		      size_t *len)
{
	struct v4l2_requestbuffers rb = {
		.count = NBUF, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	unsigned int i;

	if (ioctl(fd, VIDIOC_REQBUFS, &rb) < 0) {
		role_fail(r, "REQBUFS", errno);
		return -1;
	}
	for (i = 0; i < NBUF && i < rb.count; i++) {
		struct v4l2_buffer b = {
			.index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_MMAP,
		};

		if (ioctl(fd, VIDIOC_QUERYBUF, &b) < 0) {
			role_fail(r, "QUERYBUF", errno);
			return -1;
		}
		mem[i] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd,
			      b.m.offset);
		if (mem[i] == MAP_FAILED) {
			mem[i] = NULL;
			role_fail(r, "mmap", errno);
			return -1;
		}
		len[i] = b.length;
		if ((all || i == 0) && ioctl(fd, VIDIOC_QBUF, &b) < 0) {
			role_fail(r, "QBUF", errno);
			return -1;
		}
	}
	if (ioctl(fd, VIDIOC_STREAMON, &type) < 0) {
		role_fail(r, "STREAMON", errno);
		return -1;
	}
	return 0;
}

static int dqbuf(int fd, struct v4l2_buffer *b)
{
	memset(b, 0, sizeof(*b));
	b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	b->memory = V4L2_MEMORY_MMAP;
	return ioctl(fd, VIDIOC_DQBUF, b);
}

static void racer(struct role *r, struct vt_rng *rng)
{
	int fd = open(devpath, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	bool gone = false;

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
			ret = poll(&p, 1, 0);
			if (ret == 1 && !gone &&
			    (p.revents & (POLLERR | POLLHUP)))
				gone = true;
			ret = ret < 0 ? -1 : 0;
			break;
		case 4:
			fd2 = open(devpath, O_RDWR | O_NONBLOCK | O_CLOEXEC);
			if (fd2 >= 0) {
				close(fd2);
			} else if (errno != ENOENT && errno != ENODEV &&
				   errno != ENXIO) {
				role_fail(r, "open (racer)", errno);
			} else if (!gone) {
				gone = true;
			}
			break;
		}
		e = errno;
		if (ret < 0 && e == ENODEV) {
			if (!r->done)
				mark_done(r, ret, e, 0);
		} else if (ret < 0 && !(sh->stop && e == EINTR)) {
			/* at the end, finish()'s SIGUSR1 may interrupt a call */
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
	char *buf = rd ? malloc(1920 * 1080 * 4) : NULL;
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
			ret = read(fd, buf, 1920 * 1080 * 4) < 0 ? -1 : 0;
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
	free(buf);
}

static void child(struct role *r, uint64_t seed)
{
	struct vt_rng rng = { seed };
	void *mem[NBUF] = { 0 };
	size_t len[NBUF] = { 0 };
	struct v4l2_capability cap;
	struct v4l2_buffer b;
	struct pollfd p;
	fd_set rd, ex;
	struct timeval tv;
	struct epoll_event ev;
	char *buf = NULL;
	int fd, ep, ret, i;
	bool nb = r->kind == K_OWNER_MMAP || r->kind == K_IDLE ||
		  r->kind == K_SELECT_EX || r->kind == K_POLL_PRI ||
		  r->kind == K_EPOLL_PRI || r->kind == K_SELECT_RDEX ||
		  r->kind == K_EPOLL_IN;

	if (r->kind == K_RACER) {
		racer(r, &rng);
		_exit(0);
	}
	if (r->kind == K_READ_LOOP || r->kind == K_POLLIN_LOOP) {
		looper(r);
		_exit(0);
	}
	fd = open(devpath, O_RDWR | O_CLOEXEC | (nb ? O_NONBLOCK : 0));
	if (fd < 0) {
		role_fail(r, "open", errno);
		_exit(0);
	}
	if ((r->kind == K_SELECT_EX || r->kind == K_POLL_PRI ||
	     r->kind == K_EPOLL_PRI || r->kind == K_DQEVENT ||
	     r->kind == K_SELECT_RDEX) &&
	    vp_subscribe(fd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0) < 0) {
		role_fail(r, "SUBSCRIBE_EVENT", errno);
		_exit(0);
	}
	switch (r->kind) {
	case K_IDLE:
		r->ready = 1;
		wait_stop();
		break;
	case K_OWNER_STARVED:
		if (start_mmap(r, fd, false, mem, len) || dqbuf(fd, &b) < 0) {
			role_fail(r, "first DQBUF", errno);
			break;
		}
		r->frames++;
		r->ready = 1;
		ret = dqbuf(fd, &b);
		mark_done(r, ret, errno, 0);
		wait_stop();
		break;
	case K_OWNER_MMAP:
		if (start_mmap(r, fd, true, mem, len))
			break;
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
			if (dqbuf(fd, &b) < 0) {
				mark_done(r, -1, errno, p.revents);
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
		buf = malloc(1920 * 1080 * 4);
		for (;;) {
			ssize_t n = read(fd, buf, 1920 * 1080 * 4);

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
	memset(&cap, 0, sizeof(cap));
	r->after_err = ioctl(fd, VIDIOC_QUERYCAP, &cap) < 0 ? errno : 0;
	for (i = 0; i < NBUF; i++)
		if (mem[i])
			munmap(mem[i], len[i]);
	free(buf);
	close(fd);
	_exit(0);
}

/* ---- parent --------------------------------------------------------------- */

static int nroles;

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
		nprocs_total++;
		/* let the queue owner go first: the others depend on it */
		if (i == 0) {
			uint64_t end = vp_now_ns() + 10000000000ull * scale;

			while (!sh->r[0].ready && !sh->r[0].fail[0] &&
			       !sh->r[0].done && vp_now_ns() < end)
				vp_sleep_ms(5);
		}
	}
}

/* Wait until every role is ready (or failed); false on timeout. */
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
			snprintf(why, len, "children not ready after %u s",
				 10 * scale);
			return false;
		}
		vp_sleep_ms(10);
	}
	for (i = 0; i < nroles; i++)
		if (sh->r[i].fail[0]) {
			snprintf(why, len, "%s: %s", kind_names[sh->r[i].kind],
				 sh->r[i].fail);
			return false;
		}
	return true;
}

/* Tell the children to finish, wake them with SIGUSR1, collect them. */
static void finish(char *why, size_t len, size_t *used)
{
	pid_t pids[MAX_ROLES];
	int status[MAX_ROLES], i;
	char st[64];

	sh->stop = 1;
	for (i = 0; i < nroles; i++) {
		pids[i] = sh->r[i].pid;
		if (pids[i] > 0)
			kill(pids[i], SIGUSR1);
	}
	vt_reap(pids, status, nroles,
		vp_now_ns() + 10000000000ull * scale);
	for (i = 0; i < nroles; i++) {
		if (status[i] >= 0 && WIFEXITED(status[i]) &&
		    !WEXITSTATUS(status[i]))
			continue;
		*used += snprintf(why + *used, *used < len ? len - *used : 0,
				  "%s: %s; ", kind_names[sh->r[i].kind],
				  vt_status_str(status[i], st, sizeof(st)));
	}
}

/* Run "echo VT_PDEV > VT_DRV_DIR/<what>" in a child, bounded in time. */
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

static void unbind_cycle(unsigned int cycle, uint64_t seed)
{
	static const enum kind owners[] = {
		K_OWNER_STARVED, K_OWNER_MMAP, K_OWNER_READ,
	};
	enum kind owner = owners[cycle % 3];
	char why[1024] = "", desc[160];
	size_t used = 0;
	uint64_t t_unbind, t_unbound, end;
	bool dqevent = cycle == 0;
	int i, r, dq = -1;

#define WHY(...) (used += snprintf(why + used, used < sizeof(why) ? \
				   sizeof(why) - used : 0, __VA_ARGS__))
	nroles = 0;
	add_role(owner);
	add_role(K_IDLE);
	add_role(K_SELECT_EX);
	add_role(K_POLL_PRI);
	add_role(K_EPOLL_PRI);
	if (owner == K_OWNER_STARVED) {
		/* frames would wake these while streaming */
		add_role(K_SELECT_RDEX);
		add_role(K_EPOLL_IN);
	}
	add_role(K_RACER);
	add_role(K_RACER);
	if (dqevent) {
		dq = nroles;
		add_role(K_DQEVENT);
	}
	spawn(seed);
	snprintf(desc, sizeof(desc), "unbind cycle %u (%s, %d processes): "
		 "the users are set up", cycle + 1, kind_names[owner], nroles);
	if (!vt_ok(wait_ready(why, sizeof(why)), desc, "%s", why)) {
		finish(why, sizeof(why), &used);
		return;
	}
	vp_sleep_ms(300);
	for (i = 0; i < nroles; i++)
		if (sh->r[i].kind != K_RACER && sh->r[i].done)
			WHY("%s returned before the unbind (ret %d, %s); ",
			    kind_names[sh->r[i].kind], sh->r[i].ret,
			    vt_errname(sh->r[i].err));

	t_unbind = vp_now_ns();
	r = sysfs_write_bounded("unbind", 10000 * scale);
	t_unbound = vp_now_ns();
	if (r)
		WHY("unbind: %s; ", r == -ETIMEDOUT ? "hangs" : vt_errname(-r));
	else if (vt_pdev_bound())
		WHY("still bound after unbind; ");
	vt_diag("cycle %u: unbind took %.1f ms", cycle + 1,
		(t_unbound - t_unbind) / 1e6);

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
		char mask[64];

		if (ro->done && cycle < 3)
			vt_diag("cycle %u: %s returned %d (%s), events %s, "
				"after %.1f ms", cycle + 1,
				kind_names[ro->kind], ro->ret,
				ro->ret < 0 ? vt_errname(ro->err) : "-",
				vp_poll_mask_str(ro->revents, mask,
						 sizeof(mask)),
				(ro->t_done - t_unbind) / 1e6);
		if (i == dq || ro->kind == K_IDLE)
			continue;
		if (!ro->done) {
			WHY("%s still blocked %u ms after the unbind; ",
			    kind_names[ro->kind], wake_ms);
			continue;
		}
		nwaits_total++;
		if (ro->t_done > t_unbind && ro->t_done - t_unbind > max_wake_ns)
			max_wake_ns = ro->t_done - t_unbind;
		if (!revents_ok(ro))
			WHY("%s returned %d, %s, events %s; ",
			    kind_names[ro->kind], ro->ret,
			    vt_errname(ro->err),
			    vp_poll_mask_str(ro->revents, mask, sizeof(mask)));
	}
	if (dq >= 0) {
		if (sh->r[dq].done)
			vt_diag("cycle %u: the blocked VIDIOC_DQEVENT returned "
				"%d (%s) after the unbind", cycle + 1,
				sh->r[dq].ret, vt_errname(sh->r[dq].err));
		else
			vt_diag("cycle %u: note: a VIDIOC_DQEVENT blocked at "
				"the unbind is still blocked %u ms later "
				"(v4l2_event_dequeue() waits for an event "
				"only); woken by a signal", cycle + 1, wake_ms);
	}
	snprintf(desc, sizeof(desc), "unbind cycle %u: the unbind returns and "
		 "every blocked process wakes with an error or POLLERR|POLLHUP",
		 cycle + 1);
	vt_ok(!*why, desc, "%s", why);

	/* the files are dead but safe; then everybody closes */
	used = 0;
	why[0] = 0;
	finish(why, sizeof(why), &used);
	for (i = 0; i < nroles; i++)
		if (sh->r[i].kind != K_RACER && sh->r[i].after_err != ENODEV)
			WHY("%s: QUERYCAP after the unbind: %s; ",
			    kind_names[sh->r[i].kind],
			    vt_errname(sh->r[i].after_err));
		else if (sh->r[i].fail[0])
			WHY("%s: %s; ", kind_names[sh->r[i].kind],
			    sh->r[i].fail);
	snprintf(desc, sizeof(desc), "unbind cycle %u: later ioctls fail with "
		 "ENODEV, every process exits normally", cycle + 1);
	vt_ok(!*why, desc, "%s", why);

	used = 0;
	why[0] = 0;
	r = sysfs_write_bounded("bind", 10000 * scale);
	if (r)
		WHY("bind: %s; ", r == -ETIMEDOUT ? "hangs" : vt_errname(-r));
	else if (vt_find_pdev_node(0, devpath, sizeof(devpath), 3000 * scale))
		WHY("no video node after bind; ");
	else if (vt_capture(devpath, 3, 10000 * scale, why + used,
			    sizeof(why) - used))
		used = strlen(why);
	snprintf(desc, sizeof(desc), "unbind cycle %u: after bind, %s "
		 "captures again", cycle + 1, devpath);
	vt_ok(!*why, desc, "%s", why);
#undef WHY
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
static void race_cycle(unsigned int cycle, uint64_t seed)
{
	struct vt_rng rng = { seed };
	struct v4l2_streamparm parm = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.parm.capture.timeperframe = { 1, 5 },
	};
	char why[1024] = "", desc[192], threads[256];
	size_t used = 0;
	uint64_t end, calls = 0;
	int32_t running = -1;
	int i, r, n, fd;

#define WHY(...) (used += snprintf(why + used, used < sizeof(why) ? \
				   sizeof(why) - used : 0, __VA_ARGS__))
	fd = open(devpath, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, VIDIOC_S_PARM, &parm) < 0)
		WHY("S_PARM 1/5 s: %s; ", vt_errname(errno));
	if (fd >= 0)
		close(fd);
	nroles = 0;
	add_role(K_READ_LOOP);
	add_role(K_POLLIN_LOOP);
	add_role(K_READ_LOOP);
	add_role(K_POLLIN_LOOP);
	add_role(K_RACER);
	spawn(seed);
	snprintf(desc, sizeof(desc), "race cycle %u (%d processes): the "
		 "readers and pollers are set up", cycle + 1, nroles);
	if (!vt_ok(!*why && wait_ready(why, sizeof(why)), desc, "%s", why)) {
		finish(why, sizeof(why), &used);
		return;
	}
	vp_sleep_ms(200 + vt_below(&rng, 400));

	r = sysfs_write_bounded("unbind", 10000 * scale);
	sh->unbound = 1;
	if (r)
		WHY("unbind: %s; ", r == -ETIMEDOUT ? "hangs" : vt_errname(-r));
	end = vp_now_ns() + wake_ms * 1000000ull;
	for (i = 0; i < nroles; i++) {
		while (sh->r[i].kind != K_RACER && !sh->r[i].done &&
		       vp_now_ns() < end)
			vp_sleep_ms(5);
		if (sh->r[i].kind != K_RACER && !sh->r[i].done)
			WHY("%s still running %u ms after the unbind; ",
			    kind_names[sh->r[i].kind], wake_ms);
		calls += sh->r[i].kind != K_RACER ? sh->r[i].calls : 0;
	}
	/* the files of the readers and pollers are all still open */
	n = vt_engine_threads(threads, sizeof(threads));
	if (n)
		WHY("%d engine thread(s) run after the unbind: %s; ", n,
		    threads);
	vt_diag("race cycle %u: %" PRIu64 " reads and polls before the "
		"unbind", cycle + 1, calls);
	snprintf(desc, sizeof(desc), "race cycle %u: after an unbind among "
		 "read() and poll(POLLIN) loops, no engine thread runs",
		 cycle + 1);
	vt_ok(!*why, desc, "%s", why);

	used = 0;
	why[0] = 0;
	finish(why, sizeof(why), &used);
	r = sysfs_write_bounded("bind", 10000 * scale);
	if (r)
		WHY("bind: %s; ", r == -ETIMEDOUT ? "hangs" : vt_errname(-r));
	else if (vt_find_pdev_node(0, devpath, sizeof(devpath), 3000 * scale))
		WHY("no video node after bind; ");
	fd = r ? -1 : open(devpath, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (!r && (fd < 0 ||
		   vp_ctrl_get(fd, VIVPOLL_CID_ENGINE_RUNNING, &running)))
		WHY("cannot read Engine Running: %s; ", vt_errname(errno));
	else if (running)
		WHY("Engine Running is %d on the re-bound device; ", running);
	if (fd >= 0)
		close(fd);
	n = vt_engine_threads(threads, sizeof(threads));
	if (n)
		WHY("%d engine thread(s) with nobody streaming: %s; ", n,
		    threads);
	snprintf(desc, sizeof(desc), "race cycle %u: the re-bound device "
		 "says Engine Running 0, and no engine thread runs", cycle + 1);
	vt_ok(!*why, desc, "%s", why);
#undef WHY
}

static void rmmod_cycle(unsigned int cycle, uint64_t seed)
{
	bool unbind_first = cycle % 2;
	char why[1024] = "", desc[192];
	size_t used = 0;
	uint64_t frames0;
	const char *rwhy;
	int i, r, fd;

#define WHY(...) (used += snprintf(why + used, used < sizeof(why) ? \
				   sizeof(why) - used : 0, __VA_ARGS__))
	nroles = 0;
	if (!unbind_first) {
		add_role(cycle % 4 == 0 ? K_OWNER_MMAP : K_OWNER_STARVED);
		add_role(K_SELECT_EX);
		add_role(K_EPOLL_PRI);
		add_role(K_RACER);
	}
	add_role(K_IDLE);
	spawn(seed);
	snprintf(desc, sizeof(desc), "rmmod cycle %u (%s): the users are set "
		 "up", cycle + 1, unbind_first ? "unbound, a file open" :
		 kind_names[sh->r[0].kind]);
	if (!vt_ok(wait_ready(why, sizeof(why)), desc, "%s", why)) {
		finish(why, sizeof(why), &used);
		return;
	}
	if (unbind_first) {
		r = sysfs_write_bounded("unbind", 10000 * scale);
		if (r)
			WHY("unbind: %s; ", vt_errname(-r));
	}
	frames0 = sh->r[0].frames;
	r = vt_rmmod();
	if (r != -EWOULDBLOCK && r != -EBUSY)
		WHY("rmmod while in use: %s, not EWOULDBLOCK; ",
		    r ? vt_errname(-r) : "it worked");
	if (!vt_module_loaded())
		WHY("the module is gone; ");
	vp_sleep_ms(500);
	for (i = 0; i < nroles; i++)
		if (sh->r[i].kind != K_RACER && sh->r[i].done)
			WHY("%s was woken by the rmmod (ret %d, %s); ",
			    kind_names[sh->r[i].kind], sh->r[i].ret,
			    vt_errname(sh->r[i].err));
		else if (sh->r[i].kind == K_RACER && sh->r[i].done)
			WHY("the racer got ENODEV after the rmmod; ");
	if (sh->r[0].kind == K_OWNER_MMAP && sh->r[0].frames == frames0)
		WHY("streaming stopped after the rmmod; ");
	snprintf(desc, sizeof(desc), "rmmod cycle %u: rmmod is refused as in "
		 "use and disturbs nobody", cycle + 1);
	vt_ok(!*why, desc, "%s", why);

	/* an event wakes the select()/epoll waiters as usual */
	used = 0;
	why[0] = 0;
	if (!unbind_first) {
		fd = open(devpath, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || vp_ctrl_set(fd, V4L2_CID_BRIGHTNESS,
					  (int32_t)(cycle * 7 % 256)) < 0)
			WHY("cannot raise a control event: %s; ",
			    vt_errname(errno));
		if (fd >= 0)
			close(fd);
		for (i = 0; i < 300 * (int)scale; i++) {
			if (sh->r[1].done && sh->r[2].done)
				break;
			vp_sleep_ms(10);
		}
		if (!sh->r[1].done || sh->r[1].ret != 1 ||
		    !(sh->r[1].revents & POLLPRI))
			WHY("select(exceptfds) did not get the event; ");
		if (!sh->r[2].done || sh->r[2].ret != 1 ||
		    !(sh->r[2].revents & EPOLLPRI))
			WHY("epoll did not get the event; ");
	}
	finish(why, sizeof(why), &used);
	for (i = 0; i < nroles; i++)
		if (sh->r[i].fail[0])
			WHY("%s: %s; ", kind_names[sh->r[i].kind],
			    sh->r[i].fail);
	r = vt_reload(NULL, 5000 * scale, &rwhy);
	if (r)
		WHY("%s: %s; ", rwhy, vt_errname(-r));
	else if (vt_find_pdev_node(0, devpath, sizeof(devpath), 3000 * scale))
		WHY("no video node after modprobe; ");
	else if (vt_capture(devpath, 3, 10000 * scale, why + used,
			    sizeof(why) - used))
		used = strlen(why);
	snprintf(desc, sizeof(desc), "rmmod cycle %u: events still arrive, "
		 "rmmod succeeds after the last close, the reloaded device "
		 "captures", cycle + 1);
	vt_ok(!*why, desc, "%s", why);
#undef WHY
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cycles", required_argument, NULL, 'c' },
		{ "rmmod-cycles", required_argument, NULL, 'r' },
		{ "race-cycles", required_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 's' },
		{ "secs", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long cycles, rcycles, xcycles, done = 0, rdone = 0, xdone = 0;
	unsigned long i, secs, min_cycles, min_rcycles;
	uint64_t seed = vt_default_seed(), t0, stop_at;
	uint64_t min_frames[VT_MAX_DEVS] = { 0 };
	struct sigaction sa;
	const char *why;
	struct vt_snap snap;
	char cwhy[256];
	bool timed_out = false;
	int c, r;

	scale = vt_scale();
	cycles = vt_quick() ? MIN_CYCLES : 6 * scale;
	rcycles = vt_quick() ? MIN_RMMOD_CYCLES : 4 * scale;
	xcycles = vt_quick() ? 3 : 6 * scale;
	secs = 15 + 15 * scale;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (vp_parse_uint(optarg, 0, 1000, &cycles))
				goto usage;
			break;
		case 'r':
			if (vp_parse_uint(optarg, 0, 1000, &rcycles))
				goto usage;
			break;
		case 'R':
			if (vp_parse_uint(optarg, 0, 1000, &xcycles))
				goto usage;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			if (vp_parse_uint(optarg, 1, 3600, &secs))
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	vt_begin("82-unbind-loop: unbind/bind and rmmod/modprobe while in use");
	wake_ms = 3000 * scale;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART: wakes blocked calls */
	sigaction(SIGUSR1, &sa, NULL);
	sh = vt_shared(sizeof(*sh));

	/* start from a freshly loaded module with default parameters */
	r = vt_reload(NULL, 5000 * scale, &why);
	if (!vt_ok(!r && vt_pdev_bound() &&
		   !vt_find_pdev_node(0, devpath, sizeof(devpath), 3000 * scale),
		   "vivpoll is loaded and vivpoll.0 is bound", "%s",
		   r ? why : "no vivpoll.0 video node"))
		return vt_end();
	vt_diag("seed %" PRIu64 ", scale %u: %lu unbind cycles, %lu rmmod "
		"cycles on %s", seed, scale, cycles, rcycles, devpath);
	vt_klog_mark(argv[0]);
	vt_kmemleak_begin();

	t0 = vp_now_ns();
	stop_at = t0 + secs * 1000000000ull;
	for (i = 0; i < cycles || i < rcycles || i < xcycles; i++) {
		if (vp_now_ns() > stop_at) {
			vt_diag("time is up after %lu unbind, %lu rmmod and "
				"%lu race cycles", done, rdone, xdone);
			timed_out = true;
			break;
		}
		if (i < cycles) {
			unbind_cycle(i, seed + i * 1000);
			done++;
		}
		if (i < rcycles) {
			rmmod_cycle(i, seed + i * 1000 + 500);
			rdone++;
		}
		if (i < xcycles) {
			if (!vt_pdev_bound())
				sysfs_write_bounded("bind", 10000 * scale);
			vt_find_pdev_node(0, devpath, sizeof(devpath),
					  3000 * scale);
			race_cycle(i, seed + i * 1000 + 700);
			xdone++;
		}
		/* whatever happened, go on with a bound device */
		if (!vt_pdev_bound())
			sysfs_write_bounded("bind", 10000 * scale);
		if (!vt_module_loaded())
			vt_reload(NULL, 1000, &why);
		vt_find_pdev_node(0, devpath, sizeof(devpath), 3000 * scale);
	}
	vt_diag("%lu unbind, %lu rmmod and %lu race cycles in %.1f s: %u "
		"processes, %u wake-ups after an unbind, the slowest %.1f ms "
		"after the unbind began", done, rdone, xdone,
		(vp_now_ns() - t0) / 1e9, nprocs_total, nwaits_total,
		max_wake_ns / 1e6);

	min_cycles = cycles < MIN_CYCLES ? cycles : MIN_CYCLES;
	min_rcycles = rcycles < MIN_RMMOD_CYCLES ? rcycles : MIN_RMMOD_CYCLES;
	snprintf(cwhy, sizeof(cwhy), "at least %lu unbind and %lu rmmod cycles "
		 "ran%s", min_cycles, min_rcycles,
		 timed_out ? " before the time budget ran out" : "");
	vt_ok(done >= min_cycles && rdone >= min_rcycles, cwhy,
	      "%lu unbind and %lu rmmod cycles in %.1f s (time budget %lu s)",
	      done, rdone, (vp_now_ns() - t0) / 1e9, secs);

	/*
	 * Each cycle ends with a fresh device (bind or modprobe): its counter
	 * controls start from the snapshot taken now, and must account for a
	 * 5-frame capture.
	 */
	vt_snapshot(&snap);
	r = vt_capture(devpath, 5, 10000 * scale, cwhy, sizeof(cwhy));
	vt_ok(!r, "after the cycles, a capture of 5 frames by mmap", "%s",
	      cwhy);
	min_frames[0] = 5;
	vt_health(&snap, min_frames);
	vt_restore_defaults();
	return vt_end();

usage:
	fprintf(stderr, "usage: %s [--cycles N] [--rmmod-cycles N] "
		"[--race-cycles N] [--seed N] [--secs S]\n", argv[0]);
	return VP_EXIT_USAGE;
}
