// SPDX-License-Identifier: GPL-2.0
/*
 * 92-leaks: what unbind/bind and rmmod/modprobe leave behind, on any kernel
 * (kmemleak is only in the debug kernel, which CI does not run).
 *
 * Each cycle starts users of vivpoll.0's video node: a queue owner (by
 * turns streaming by mmap, blocked in VIDIOC_DQBUF on a starved queue, or
 * streaming by blocking read()), a poll(POLLPRI) and a select(exceptfds)
 * subscriber blocked on a control event, and an idle open file.
 *
 * An unbind cycle unbinds vivpoll.0 under them (they wake up and exit),
 * then binds it again. An rmmod cycle checks rmmod is refused while they
 * hold their files, kills them (their files are released while streaming
 * or blocked), unloads the module, checks nothing of it is left (no
 * vivpoll.N device, no debugfs folder, no video node) and loads it again.
 *
 * After every cycle: no engine thread is left (/proc task names
 * "vivpoll-N-cap"), and the device comes back with the same video node
 * (name and major:minor) as before the first cycle, and no debugfs folder
 * (the driver makes none).
 *
 * After all cycles, with the page cache and the slab caches dropped and
 * SLUB's caches shrunk, /proc/meminfo's Slab and VmallocUsed are at most
 * SLAB_BOUND_KB (256 kB) above, and MemAvailable plus the pages in the
 * per-CPU page lists (/proc/zoneinfo; they move by MBs and MemAvailable
 * does not count them) at most AVAIL_BOUND_KB (1 MB) below, their values
 * after one warm-up cycle of each kind (which creates the slab caches,
 * the sysfs inodes, and the module's first load). Measured
 * under TCG (20+20 and 100+100 cycles): Slab -64 to +36 kB, VmallocUsed
 * -16 to +16 kB, MemAvailable plus the lists -72 to -8 kB. A leak of one
 * 4 kB allocation per probe is +820 kB of Slab over 100+100 cycles; the
 * quick tier's 20+20 catch leaks from about 7 kB per cycle.
 *
 *   92-leaks [--unbind-cycles N] [--rmmod-cycles N]
 *
 * On the debug kernel, kmemleak scans at the end as well (KASAN's
 * quarantine holds freed objects: shrinking each cache empties its part).
 *
 * Defaults: 100 of each (30 to 70 s under TCG, with the host's load);
 * VIVPOLL_TIER=quick: 20 of each (6 to 14 s).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "common.h"
#include "lib.h"

/* where a vivpoll debugfs folder would be (the driver makes none) */
#define VIVPOLL_DEBUGFS "/sys/kernel/debug/vivpoll"

#define SLAB_BOUND_KB	256
#define AVAIL_BOUND_KB	1024
#define NBUF		4
#define NROLES		4

enum kind { R_OWNER, R_POLLPRI, R_SELECT, R_IDLE };
enum owner { O_MMAP, O_STARVED, O_READ };

static const char *const owner_names[] = {
	[O_MMAP] = "streaming by mmap",
	[O_STARVED] = "blocked in DQBUF",
	[O_READ] = "streaming by read()",
};

struct role {
	pid_t pid;
	volatile int ready;
	char fail[128];
};

struct shared {
	volatile int stop;
	struct role r[NROLES];
};

static struct shared *sh;
static unsigned int scale;

/* what a healthy device looks like: from the first load */
static char node[32], node_dev[16];

static void on_usr1(int sig)
{
	(void)sig;
}

/* ---- the users ----------------------------------------------------------- */

static void role_fail(struct role *r, const char *what)
{
	snprintf(r->fail, sizeof(r->fail), "%s: %s", what, vt_errname(errno));
}

static int owner_start(int fd, bool all, struct role *r)
{
	struct v4l2_requestbuffers rb = {
		.count = NBUF, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	unsigned int i;

	if (ioctl(fd, VIDIOC_REQBUFS, &rb) < 0) {
		role_fail(r, "REQBUFS");
		return -1;
	}
	for (i = 0; i < rb.count && i < NBUF; i++) {
		struct v4l2_buffer b = {
			.index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_MMAP,
		};

		if (ioctl(fd, VIDIOC_QUERYBUF, &b) < 0 ||
		    mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd,
			 b.m.offset) == MAP_FAILED) {
			role_fail(r, "QUERYBUF/mmap");
			return -1;
		}
		if ((all || !i) && ioctl(fd, VIDIOC_QBUF, &b) < 0) {
			role_fail(r, "QBUF");
			return -1;
		}
	}
	if (ioctl(fd, VIDIOC_STREAMON, &type) < 0) {
		role_fail(r, "STREAMON");
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

static void owner(struct role *r, int fd, enum owner o)
{
	static char buf[320 * 240 * 2];
	struct v4l2_buffer b;
	struct pollfd p;

	/* small frames: cheap under TCG */
	if (vp_set_format(fd, 320, 240, V4L2_PIX_FMT_YUYV, NULL, NULL) < 0) {
		role_fail(r, "S_FMT");
		return;
	}
	switch (o) {
	case O_MMAP:
		if (owner_start(fd, true, r))
			return;
		while (!sh->stop) {
			p.fd = fd;
			p.events = POLLIN;
			if (poll(&p, 1, 5000) != 1 ||
			    (p.revents & (POLLERR | POLLHUP)) ||
			    dqbuf(fd, &b) < 0)
				return;
			r->ready = 1;
			if (ioctl(fd, VIDIOC_QBUF, &b) < 0)
				return;
		}
		break;
	case O_STARVED:
		if (owner_start(fd, false, r))
			return;
		if (dqbuf(fd, &b) < 0) {
			role_fail(r, "first DQBUF");
			return;
		}
		r->ready = 1;
		dqbuf(fd, &b);		/* blocks: no buffer queued */
		break;
	case O_READ:
		while (!sh->stop && read(fd, buf, sizeof(buf)) > 0)
			r->ready = 1;
		break;
	}
}

static void child(struct role *r, enum kind k, enum owner o)
{
	struct pollfd p;
	fd_set ex;
	int fd;

	fd = open(node, O_RDWR | O_CLOEXEC |
		  (k == R_OWNER && o == O_MMAP ? O_NONBLOCK : 0));
	if (fd < 0) {
		role_fail(r, "open");
		_exit(0);
	}
	if ((k == R_POLLPRI || k == R_SELECT) &&
	    vp_subscribe(fd, V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0) < 0) {
		role_fail(r, "SUBSCRIBE_EVENT");
		_exit(0);
	}
	switch (k) {
	case R_OWNER:
		owner(r, fd, o);
		break;
	case R_POLLPRI:
		p.fd = fd;
		p.events = POLLPRI;
		r->ready = 1;
		poll(&p, 1, 60000 * scale);
		break;
	case R_SELECT:
		FD_ZERO(&ex);
		FD_SET(fd, &ex);
		r->ready = 1;
		select(fd + 1, NULL, NULL, &ex, NULL);
		break;
	case R_IDLE:
		r->ready = 1;
		break;
	}
	while (!sh->stop)
		vp_sleep_ms(5);
	close(fd);
	_exit(0);
}

/* Start the users; false (and why) if they could not all be set up. */
static bool users_start(enum owner o, char *why, size_t len)
{
	uint64_t end;
	int i;

	memset(sh, 0, sizeof(*sh));
	fflush(stdout);
	for (i = 0; i < NROLES; i++) {
		pid_t pid = fork();

		if (pid == 0)
			child(&sh->r[i], (enum kind)i, o);
		sh->r[i].pid = pid;
		/* the owner first: its queue is the one the others see */
		end = vp_now_ns() + 10000000000ull * scale;
		while (i == R_OWNER && !sh->r[i].ready && !sh->r[i].fail[0] &&
		       vp_now_ns() < end)
			vp_sleep_ms(2);
	}
	end = vp_now_ns() + 10000000000ull * scale;
	for (i = 0; i < NROLES; i++) {
		while (!sh->r[i].ready && !sh->r[i].fail[0] &&
		       vp_now_ns() < end)
			vp_sleep_ms(2);
		if (sh->r[i].fail[0] || !sh->r[i].ready) {
			snprintf(why, len, "user %d (%s): %s", i,
				 i == R_OWNER ? owner_names[o] : "waiter",
				 sh->r[i].fail[0] ? sh->r[i].fail :
				 "not ready in time");
			return false;
		}
	}
	/* let the waiters get into poll()/select() */
	vp_sleep_ms(20);
	return true;
}

/* Stop the users (sig: SIGUSR1 to wake them, SIGKILL to kill them). */
static int users_stop(int sig)
{
	pid_t pids[NROLES];
	int st[NROLES], i, bad = 0;

	sh->stop = 1;
	for (i = 0; i < NROLES; i++) {
		pids[i] = sh->r[i].pid;
		if (pids[i] > 0)
			kill(pids[i], sig);
	}
	vt_reap(pids, st, NROLES, vp_now_ns() + 10000000000ull * scale);
	for (i = 0; i < NROLES; i++)
		if (st[i] < 0 || (sig != SIGKILL && (!WIFEXITED(st[i]) ||
						     WEXITSTATUS(st[i]))))
			bad++;
	return bad;
}

/* ---- what vivpoll leaves ------------------------------------------------- */

/* The engine threads left ("vivpoll-N-cap"), in buf. */
static int engine_threads(char *buf, size_t len)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t used = 0;
	int n = 0;

	buf[0] = 0;
	while (d && (e = readdir(d))) {
		char path[64], comm[32];

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/comm", e->d_name);
		if (vt_read_file(path, comm, sizeof(comm)) <= 0 ||
		    strncmp(comm, "vivpoll-", 8) || !strstr(comm, "-cap"))
			continue;
		comm[strcspn(comm, "\n")] = 0;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s%s (pid %s)", n ? ", " : "", comm,
				 e->d_name);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* Engine threads gone, waiting up to 5 s for the last ones to exit. */
static bool no_engine(char *why, size_t len)
{
	uint64_t end = vp_now_ns() + 5000000000ull * scale;
	char buf[256];

	while (engine_threads(buf, sizeof(buf))) {
		if (vp_now_ns() > end) {
			snprintf(why, len, "engine threads left: %s", buf);
			return false;
		}
		vp_sleep_ms(10);
	}
	return true;
}

/* The entries of a directory, space separated, sorted by readdir order. */
static void dir_list(const char *path, char *buf, size_t len)
{
	DIR *d = opendir(path);
	struct dirent *e;
	size_t used = 0;

	buf[0] = 0;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			used += snprintf(buf + used, used < len ?
					 len - used : 0, "%s%s",
					 used ? " " : "", e->d_name);
	if (d)
		closedir(d);
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
 * vivpoll.0 is back as it was: same node, same major:minor (the driver has
 * no debugfs folder: none may appear either).
 */
static bool same_device(char *why, size_t len)
{
	char path[32], dev[16], dbg[256];

	if (node_now(path, sizeof(path), dev, sizeof(dev))) {
		snprintf(why, len, "no video node for vivpoll.0");
		return false;
	}
	if (strcmp(path, node) || strcmp(dev, node_dev)) {
		snprintf(why, len, "video node %s (%s), not %s (%s)", path,
			 dev, node, node_dev);
		return false;
	}
	if (!access(VIVPOLL_DEBUGFS, F_OK)) {
		dir_list(VIVPOLL_DEBUGFS, dbg, sizeof(dbg));
		snprintf(why, len, "debugfs %s exists ('%.100s')",
			 VIVPOLL_DEBUGFS, dbg);
		return false;
	}
	return true;
}

/* Nothing of an unloaded vivpoll is left. */
static bool nothing_left(char *why, size_t len)
{
	char buf[512];

	if (vt_module_loaded()) {
		snprintf(why, len, "the module is still loaded");
		return false;
	}
	if (!access("/sys/bus/platform/devices/vivpoll.0", F_OK)) {
		snprintf(why, len, "platform device vivpoll.0 is left");
		return false;
	}
	if (!access(VIVPOLL_DEBUGFS, F_OK)) {
		dir_list(VIVPOLL_DEBUGFS, buf, sizeof(buf));
		snprintf(why, len, "debugfs %s is left (%.100s)", VIVPOLL_DEBUGFS,
			 buf);
		return false;
	}
	if (!access(node, F_OK)) {
		snprintf(why, len, "%s is left", node);
		return false;
	}
	return true;
}

/* Write VT_PDEV to the driver's bind or unbind file. */
static int bind_write(const char *what)
{
	char path[96];

	snprintf(path, sizeof(path), VT_DRV_DIR "/%s", what);
	return vt_write_file(path, VT_PDEV);
}

/* ---- the cycles ---------------------------------------------------------- */

struct tally {
	unsigned int done, failed;
	char first[400];
};

static void tally(struct tally *t, unsigned int cycle, const char *why)
{
	t->done++;
	if (!why[0])
		return;
	if (!t->failed++)
		snprintf(t->first, sizeof(t->first), "cycle %u: %s", cycle + 1,
			 why);
}

static void unbind_cycle(unsigned int cycle, struct tally *t)
{
	enum owner o = cycle % 3;
	char why[300] = "";
	int r, bad;

	if (!users_start(o, why, sizeof(why))) {
		users_stop(SIGKILL);
		goto out;
	}
	r = bind_write("unbind");
	/* blocked users wake on the unbind; the others are told to stop */
	bad = users_stop(SIGUSR1);
	if (r) {
		snprintf(why, sizeof(why), "unbind: %s", vt_errname(-r));
		goto out;
	}
	if (bad) {
		snprintf(why, sizeof(why), "%d user(s) hung or died after the "
			 "unbind (owner %s)", bad, owner_names[o]);
		goto out;
	}
	if (!no_engine(why, sizeof(why)))
		goto out;
	r = bind_write("bind");
	if (r) {
		snprintf(why, sizeof(why), "bind: %s", vt_errname(-r));
		goto out;
	}
	same_device(why, sizeof(why));
out:
	tally(t, cycle, why);
}

static void rmmod_cycle(unsigned int cycle, struct tally *t)
{
	enum owner o = cycle % 3;
	char why[300] = "";
	uint64_t end;
	int r;

	if (!users_start(o, why, sizeof(why))) {
		users_stop(SIGKILL);
		goto out;
	}
	r = vt_rmmod();
	if (r != -EWOULDBLOCK && r != -EBUSY) {
		users_stop(SIGKILL);
		snprintf(why, sizeof(why), "rmmod with files open: %s",
			 r ? vt_errname(-r) : "it worked");
		goto out;
	}
	/* their files are released while streaming or blocked */
	users_stop(SIGKILL);
	end = vp_now_ns() + 5000000000ull * scale;
	while ((r = vt_rmmod()) == -EWOULDBLOCK && vp_now_ns() < end)
		vp_sleep_ms(10);
	if (r) {
		snprintf(why, sizeof(why), "rmmod after the users are gone: %s",
			 vt_errname(-r));
		goto out;
	}
	if (!no_engine(why, sizeof(why)) || !nothing_left(why, sizeof(why)))
		goto out;
	if (vt_modprobe(NULL)) {
		snprintf(why, sizeof(why), "modprobe vivpoll failed");
		goto out;
	}
	same_device(why, sizeof(why));
out:
	tally(t, cycle, why);
}

/* ---- memory -------------------------------------------------------------- */

struct mem {
	long avail, pcp, slab, sunreclaim, vmalloc;
};

/* kB in the per-CPU page lists (/proc/zoneinfo "count:"), not "free" */
static long pcp_kb(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	char line[256];
	long n = 0, v;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %ld", &v) == 1)
			n += v;
	if (f)
		fclose(f);
	return n * (sysconf(_SC_PAGESIZE) / 1024);
}

static long meminfo_kb(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* SLUB: give the empty slabs and the per-CPU slabs of every cache back */
static void slab_shrink(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	char path[320];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		vt_write_file(path, "1");
	}
	if (d)
		closedir(d);
}

/*
 * /proc/meminfo after dropping the page cache and the slab caches, and the
 * per-CPU page lists, which MemAvailable does not count as free
 */
static void mem_read(struct mem *m)
{
	char buf[4096];

	sync();
	vt_write_file("/proc/sys/vm/drop_caches", "3");
	/* RCU callbacks and deferred frees (the engine's task_struct) */
	vp_sleep_ms(500);
	vt_write_file("/proc/sys/vm/drop_caches", "3");
	slab_shrink();
	vt_read_file("/proc/meminfo", buf, sizeof(buf));
	m->pcp = pcp_kb();
	m->avail = meminfo_kb(buf, "\nMemAvailable:");
	m->slab = meminfo_kb(buf, "\nSlab:");
	m->sunreclaim = meminfo_kb(buf, "\nSUnreclaim:");
	m->vmalloc = meminfo_kb(buf, "\nVmallocUsed:");
}

static void mem_check(const char *name, long before, long after, int sign,
		      long bound)
{
	char desc[160];
	long grew = sign * (after - before);

	snprintf(desc, sizeof(desc), "%s %s by at most %ld kB (%ld -> %ld kB)",
		 name, sign > 0 ? "grew" : "shrank", bound, before, after);
	vt_ok(before >= 0 && after >= 0 && grew <= bound, desc, "%+ld kB",
	      after - before);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "unbind-cycles", required_argument, NULL, 'u' },
		{ "rmmod-cycles", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long ucycles, rcycles, i;
	struct tally tu = { 0 }, tr = { 0 }, warm = { 0 };
	struct sigaction sa;
	struct mem m0, m1;
	char why[256] = "";
	const char *rwhy;
	uint64_t t0;
	int c, r;

	scale = vt_scale();
	ucycles = rcycles = vt_quick() ? 20 : 100;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			if (vp_parse_uint(optarg, 0, 10000, &ucycles))
				goto usage;
			break;
		case 'r':
			if (vp_parse_uint(optarg, 0, 10000, &rcycles))
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	vt_begin("92-leaks: unbind/bind and rmmod/modprobe with users leave "
		 "nothing behind");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART: wakes blocked calls */
	sigaction(SIGUSR1, &sa, NULL);
	sh = vt_shared(sizeof(*sh));

	r = vt_reload(NULL, 5000 * scale, &rwhy);
	if (!vt_ok(!r && !node_now(node, sizeof(node), node_dev,
				   sizeof(node_dev)),
		   "vivpoll is loaded and vivpoll.0 has a video node", "%s",
		   r ? rwhy : "no video node"))
		return vt_end();
	vt_diag("vivpoll.0: %s (%s); %lu unbind and %lu rmmod cycles", node,
		node_dev, ucycles, rcycles);
	vt_klog_mark(argv[0]);

	/* warm-up: one cycle of each kind, then the baseline */
	unbind_cycle(0, &warm);
	rmmod_cycle(0, &warm);
	if (!vt_ok(!warm.failed, "a warm-up unbind and rmmod cycle", "%s",
		   warm.first))
		return vt_end();
	mem_read(&m0);
	vt_kmemleak_begin();

	t0 = vp_now_ns();
	for (i = 0; i < ucycles; i++)
		unbind_cycle(i, &tu);
	vt_diag("%lu unbind cycles in %.1f s", ucycles,
		(vp_now_ns() - t0) / 1e9);
	t0 = vp_now_ns();
	for (i = 0; i < rcycles; i++)
		rmmod_cycle(i, &tr);
	vt_diag("%lu rmmod cycles in %.1f s", rcycles,
		(vp_now_ns() - t0) / 1e9);
	snprintf(why, sizeof(why), "%u unbind cycles with users: the users "
		 "exit, no engine thread is left, the same video node comes "
		 "back (no debugfs folder)", tu.done);
	vt_ok(!tu.failed, why, "%u failed, the first: %s", tu.failed,
	      tu.first);
	snprintf(why, sizeof(why), "%u rmmod cycles with users: refused while "
		 "in use, then nothing is left, and the same video node comes "
		 "back (no debugfs folder)", tr.done);
	vt_ok(!tr.failed, why, "%u failed, the first: %s", tr.failed,
	      tr.first);

	mem_read(&m1);
	vt_diag("meminfo after the warm-up and at the end: MemAvailable %ld -> "
		"%ld kB (per-CPU page lists %ld -> %ld kB), Slab %ld -> %ld kB "
		"(SUnreclaim %ld -> %ld), VmallocUsed %ld -> %ld kB", m0.avail,
		m1.avail, m0.pcp, m1.pcp, m0.slab, m1.slab, m0.sunreclaim,
		m1.sunreclaim, m0.vmalloc, m1.vmalloc);
	mem_check("Slab", m0.slab, m1.slab, 1, SLAB_BOUND_KB);
	mem_check("VmallocUsed", m0.vmalloc, m1.vmalloc, 1, SLAB_BOUND_KB);
	mem_check("MemAvailable plus the per-CPU page lists", m0.avail + m0.pcp,
		  m1.avail + m1.pcp, -1, AVAIL_BOUND_KB);
	vt_klog_check();
	/* the debug kernel: what kmemleak finds, besides the totals */
	if (vt_kmemleak_present())
		vt_kmemleak_check();
	vt_restore_defaults();
	return vt_end();

usage:
	fprintf(stderr, "usage: %s [--unbind-cycles N] [--rmmod-cycles N]\n",
		argv[0]);
	return VP_EXIT_USAGE;
}
