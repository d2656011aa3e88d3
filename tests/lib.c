// SPDX-License-Identifier: GPL-2.0
/* The helper library of the vivpoll C tests; see lib.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <regex.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "common.h"
#include "lib.h"

/* ---- scale, TAP --------------------------------------------------------- */

unsigned int vt_scale(void)
{
	const char *s = getenv("VIVPOLL_SCALE");
	int v = s ? atoi(s) : 1;

	return v > 0 && v <= 100 ? (unsigned int)v : 1;
}

bool vt_quick(void)
{
	const char *s = getenv("VIVPOLL_TIER");

	return s && !strcmp(s, "quick");
}

static unsigned int vt_n, vt_failed, vt_planned;
static bool vt_have_plan;

void vt_begin(const char *what)
{
	/* the output is usually a file: keep it ordered across fork() */
	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
	printf("TAP version 13\n# %s\n", what);
}

void vt_plan(unsigned int n)
{
	vt_planned = n;
	vt_have_plan = true;
	printf("1..%u\n", n);
}

void vt_diag(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("# %s\n", buf);
}

void vt_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* VIVPOLL_FAULT is NAME: a deliberate fault of tools/check-harness.sh. */
static bool vt_fault(const char *name)
{
	const char *f = getenv("VIVPOLL_FAULT");

	return f && !strcmp(f, name);
}

/*
 * VIVPOLL_FAULT=short-plan (tools/check-harness.sh): the first result is
 * not printed, as if the suite had left it out without a word.
 */
static bool vt_drop_result(void)
{
	return vt_n == 1 && vt_fault("short-plan");
}

bool vt_ok(bool ok, const char *desc, const char *why, ...)
{
	char buf[512] = "";
	va_list ap;

	vt_n++;
	if (!ok)
		vt_failed++;
	if (vt_drop_result())
		return ok;
	if (ok) {
		printf("ok %u - %s\n", vt_n, desc);
		return true;
	}
	if (why) {
		va_start(ap, why);
		vsnprintf(buf, sizeof(buf), why, ap);
		va_end(ap);
	}
	printf("not ok %u - %s%s%s\n", vt_n, desc, *buf ? " # " : "", buf);
	return false;
}

void vt_skip(const char *desc, const char *why)
{
	vt_n++;
	if (!vt_drop_result())
		printf("ok %u - %s # SKIP %s\n", vt_n, desc, why);
}

void vt_not_run(unsigned int n, const char *desc, const char *why)
{
	while (n--)
		vt_ok(false, desc, "not run: %s", why);
}

int vt_end(void)
{
	if (!vt_have_plan) {
		printf("# %u results, and no plan stated before them\n", vt_n);
		vt_failed++;
	} else if (vt_n != vt_planned) {
		printf("# %u results for a plan of %u\n", vt_n, vt_planned);
		vt_failed++;
	}
	fflush(stdout);
	return vt_failed ? 1 : 0;
}

/* ---- options --------------------------------------------------------------- */

static void vt_usage(const char *prog, const struct vt_opt *opts, bool seed)
{
	const struct vt_opt *o;

	fprintf(stderr, "usage: %s", prog);
	for (o = opts; o && o->name; o++)
		fprintf(stderr, o->flag ? " [--%s]" : " [--%s N]", o->name);
	if (seed)
		fprintf(stderr, " [--seed N]");
	fprintf(stderr, "\n");
	exit(VP_EXIT_USAGE);
}

void vt_options(int argc, char **argv, const struct vt_opt *opts,
		uint64_t *seed)
{
	struct option lo[16];
	unsigned int n = 0, k;
	int c;

	for (; opts && opts[n].name && n < VT_ARRAY_SIZE(lo) - 2; n++)
		lo[n] = (struct option){ opts[n].name, opts[n].flag ?
					 no_argument : required_argument,
					 NULL, (int)n };
	k = n;
	if (seed)
		lo[k++] = (struct option){ "seed", required_argument, NULL,
					   's' };
	lo[k] = (struct option){ NULL, 0, NULL, 0 };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		char *end;

		if (c == 's') {
			errno = 0;
			*seed = strtoull(optarg, &end, 0);
			if (errno || !*optarg || *end)
				vt_usage(argv[0], opts, seed);
		} else if (c < 0 || c == '?' || (unsigned int)c >= n) {
			vt_usage(argv[0], opts, seed);
		} else if (opts[c].flag) {
			*opts[c].flag = true;
		} else if (vp_parse_uint(optarg, opts[c].min, opts[c].max,
					 opts[c].val)) {
			vt_usage(argv[0], opts, seed);
		}
	}
	if (optind < argc)
		vt_usage(argv[0], opts, seed);
}

/* ---- PRNG: splitmix64, deterministic for a given seed ------------------ */

uint64_t vt_rand64(struct vt_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t vt_rand32(struct vt_rng *r)
{
	return (uint32_t)(vt_rand64(r) >> 32);
}

uint32_t vt_below(struct vt_rng *r, uint32_t n)
{
	return (uint32_t)(((vt_rand64(r) >> 32) * n) >> 32);
}

bool vt_one_in(struct vt_rng *r, uint32_t n)
{
	return vt_below(r, n) == 0;
}

uint64_t vt_default_seed(void)
{
	return vp_now_ns() ^ ((uint64_t)getpid() << 32);
}

/* ---- files, sysfs, module -------------------------------------------- */

int vt_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int r = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		r = -errno;
	else if ((size_t)n != strlen(s))
		r = -EIO;
	close(fd);
	return r;
}

ssize_t vt_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t used = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (used + 1 < len && (n = read(fd, buf + used, len - 1 - used)) > 0)
		used += n;
	buf[used] = 0;
	close(fd);
	return (ssize_t)used;
}

bool vt_pdev_bound(void)
{
	return access(VT_DRV_DIR "/" VT_PDEV, F_OK) == 0;
}

bool vt_module_loaded(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/modules", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "vivpoll ", 8))
			found = true;
	fclose(f);
	return found;
}

int vt_rmmod(void)
{
	if (syscall(SYS_delete_module, "vivpoll", O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

int vt_modprobe(const char *params)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "modprobe vivpoll %s", params ? params : "");
	return system(cmd) ? -EIO : 0;
}

int vt_reload(const char *params, unsigned int wait_ms, const char **why)
{
	uint64_t end = vp_now_ns() + wait_ms * 1000000ull;
	int r;

	*why = "";
	while (vt_module_loaded()) {
		r = vt_rmmod();
		if (!r || r == -ENOENT)
			break;
		if (vp_now_ns() > end) {
			*why = "rmmod vivpoll keeps failing";
			return r;
		}
		vp_sleep_ms(50);
	}
	r = vt_modprobe(params);
	if (r)
		*why = "modprobe vivpoll failed";
	return r;
}

/* ---- devices ------------------------------------------------------------ */

int vt_devices(struct vt_dev *devs, int max)
{
	int i, n = 0, j;

	for (i = 0; i < 64 && n < max; i++) {
		char path[32];
		int fd, inst;

		snprintf(path, sizeof(path), "/dev/video%d", i);
		fd = vp_open(path, O_RDWR | O_NONBLOCK);
		if (fd < 0)
			continue;
		inst = vp_instance(fd);
		close(fd);
		if (inst < 0)
			continue;
		for (j = n; j > 0 && devs[j - 1].inst > inst; j--)
			devs[j] = devs[j - 1];
		snprintf(devs[j].path, sizeof(devs[j].path), "%s", path);
		devs[j].inst = inst;
		n++;
	}
	return n;
}

int vt_find_pdev_node(int inst, char *buf, size_t len, unsigned int wait_ms)
{
	uint64_t end = vp_now_ns() + wait_ms * 1000000ull;
	char dir[96];

	snprintf(dir, sizeof(dir),
		 "/sys/bus/platform/devices/vivpoll.%d/video4linux", inst);
	for (;;) {
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			if (strncmp(e->d_name, "video", 5))
				continue;
			snprintf(buf, len, "/dev/%.20s", e->d_name);
			if (!access(buf, F_OK)) {
				closedir(d);
				return 0;
			}
		}
		if (d)
			closedir(d);
		if (vp_now_ns() > end)
			return -ENODEV;
		vp_sleep_ms(10);
	}
}

/* ---- counters ----------------------------------------------------------- */

int vt_read_counts(int inst, struct vt_counts *c)
{
	int64_t v[3] = { 0 };
	int32_t running = 0;
	char path[32];
	int fd, r;

	memset(c, 0, sizeof(*c));
	r = vt_find_pdev_node(inst, path, sizeof(path), 0);
	if (r)
		return r;
	fd = vp_open(path, O_RDWR | O_NONBLOCK);
	if (fd < 0)
		return fd;
	r = vp_ctrl_get64(fd, VIVPOLL_CID_ENGINE_STARTS, &v[0]);
	if (!r)
		r = vp_ctrl_get64(fd, VIVPOLL_CID_FRAMES, &v[1]);
	if (!r)
		r = vp_ctrl_get64(fd, VIVPOLL_CID_DROPS, &v[2]);
	if (!r)
		r = vp_ctrl_get(fd, VIVPOLL_CID_ENGINE_RUNNING, &running);
	close(fd);
	if (r)
		return r;
	c->starts = (uint64_t)v[0];
	c->frames = (uint64_t)v[1];
	c->drops = (uint64_t)v[2];
	c->running = (uint64_t)running;
	c->present = true;
	return 0;
}

void vt_snapshot(struct vt_snap *s)
{
	int i;

	s->t_ns = vp_now_ns();
	for (i = 0; i < VT_MAX_DEVS; i++)
		vt_read_counts(i, &s->c[i]);
}

int vt_engine_threads(char *buf, size_t len)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir("/proc");

	if (len)
		buf[0] = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char path[300], comm[32];
		ssize_t r;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		r = vt_read_file(path, comm, sizeof(comm));
		if (r <= 0)
			continue;
		comm[strcspn(comm, "\n")] = 0;
		if (strncmp(comm, "vivpoll-", 8) || !strstr(comm, "-cap"))
			continue;
		n++;
		if (len)
			vt_appendf(buf, len, "%s%s (pid %s)", n > 1 ? ", " : "",
				   comm, e->d_name);
	}
	closedir(d);
	return n;
}

bool vt_wait_engines_stopped(unsigned int ms, char *buf, size_t len)
{
	uint64_t end = vp_now_ns() + ms * 1000000ull;

	for (;;) {
		bool all = true;
		int i;

		buf[0] = 0;
		for (i = 0; i < VT_MAX_DEVS; i++) {
			struct vt_counts c;

			if (vt_read_counts(i, &c) || !c.running)
				continue;
			vt_appendf(buf, len, "%svivpoll-%d", all ? "" : ", ", i);
			all = false;
		}
		if (all || vp_now_ns() > end)
			return all;
		vp_sleep_ms(20);
	}
}

/* ---- capture ------------------------------------------------------------- */

int vt_reqbufs(int fd, unsigned int count)
{
	struct v4l2_requestbuffers rb = {
		.count = count, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};

	if (ioctl(fd, VIDIOC_REQBUFS, &rb))
		return -errno;
	return (int)rb.count;
}

int vt_qbuf(int fd, unsigned int index)
{
	struct v4l2_buffer b = {
		.index = index, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};

	return ioctl(fd, VIDIOC_QBUF, &b) ? -errno : 0;
}

int vt_dqbuf(int fd, struct v4l2_buffer *b, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	memset(b, 0, sizeof(*b));
	b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	b->memory = V4L2_MEMORY_MMAP;
	if (ms >= 0 && poll(&p, 1, ms) != 1)
		return -ETIMEDOUT;
	return ioctl(fd, VIDIOC_DQBUF, b) ? -errno : 0;
}

int vt_stream_start(struct vt_stream *s, int fd, unsigned int count,
		    unsigned int queue)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE, r;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->step = "REQBUFS";
	r = vt_reqbufs(fd, count);
	if (r < 0)
		return r;
	s->n = (unsigned int)r < VT_MAX_BUFS ? (unsigned int)r : VT_MAX_BUFS;
	for (i = 0; i < s->n; i++) {
		struct v4l2_buffer b = {
			.index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_MMAP,
		};

		s->step = "QUERYBUF";
		if (ioctl(fd, VIDIOC_QUERYBUF, &b) < 0)
			return -errno;
		s->step = "mmap";
		s->mem[i] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd,
				 b.m.offset);
		if (s->mem[i] == MAP_FAILED) {
			s->mem[i] = NULL;
			return -errno;
		}
		s->len[i] = b.length;
		s->step = "QBUF";
		if (i < queue && ioctl(fd, VIDIOC_QBUF, &b) < 0)
			return -errno;
	}
	s->step = "STREAMON";
	s->t_streamon_ns = vp_now_ns();
	if (ioctl(fd, VIDIOC_STREAMON, &type) < 0)
		return -errno;
	s->step = NULL;
	return 0;
}

void vt_stream_unmap(struct vt_stream *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->mem[i])
			munmap(s->mem[i], s->len[i]);
	memset(s->mem, 0, sizeof(s->mem));
	s->n = 0;
}

void vt_stream_stop(struct vt_stream *s)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;

	ioctl(s->fd, VIDIOC_STREAMOFF, &type);
	vt_stream_unmap(s);
	vt_reqbufs(s->fd, 0);
}

int vt_capture(const char *path, unsigned int nframes, unsigned int ms,
	       char *why, size_t wlen)
{
	struct vt_stream s = { .fd = -1 };
	struct v4l2_format fmt;
	unsigned int got = 0, input = 0;
	int32_t last_seq = -1;
	uint64_t last_ts = 0, end;
	int fd, r = 0;

	why[0] = 0;
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, wlen, "open %.40s: %.60s", path, strerror(errno));
		return -errno;
	}
#define VT_CAP_FAIL(e, ...) do { r = (e); snprintf(why, wlen, __VA_ARGS__); \
	goto out; } while (0)
	if (ioctl(fd, VIDIOC_S_INPUT, &input) < 0)
		VT_CAP_FAIL(-errno, "S_INPUT 0: %s", strerror(errno));
	r = vp_set_format(fd, 320, 240, V4L2_PIX_FMT_YUYV, &fmt, NULL);
	if (r)
		VT_CAP_FAIL(r, "S_FMT 320x240 YUYV: %s", strerror(-r));
	r = vp_set_fps(fd, 30, NULL, NULL);
	if (r)
		VT_CAP_FAIL(r, "S_PARM 30 fps: %s", strerror(-r));
	r = vt_stream_start(&s, fd, 4, VT_MAX_BUFS);
	if (r)
		VT_CAP_FAIL(r, "%s: %s", s.step, strerror(-r));
	end = vp_now_ns() + ms * 1000000ull;
	while (got < nframes) {
		struct v4l2_buffer b;
		uint64_t ts;
		int left = (int)((int64_t)(end - vp_now_ns()) / 1000000);

		if (left <= 0)
			VT_CAP_FAIL(-ETIMEDOUT, "no frame %u within %u ms", got, ms);
		r = vt_dqbuf(fd, &b, left);
		if (r == -ETIMEDOUT)
			VT_CAP_FAIL(r, "no frame %u within %u ms", got, ms);
		if (r)
			VT_CAP_FAIL(r, "DQBUF: %s", strerror(-r));
		ts = b.timestamp.tv_sec * 1000000ull + b.timestamp.tv_usec;
		if (b.flags & V4L2_BUF_FLAG_ERROR)
			VT_CAP_FAIL(-EIO, "buffer %u has the ERROR flag", b.index);
		if (b.bytesused != fmt.fmt.pix.sizeimage)
			VT_CAP_FAIL(-EIO, "bytesused %u != sizeimage %u",
				    b.bytesused, fmt.fmt.pix.sizeimage);
		if ((int32_t)b.sequence <= last_seq || ts <= last_ts)
			VT_CAP_FAIL(-EIO, "sequence/timestamp not increasing (%u after %d)",
				    b.sequence, last_seq);
		last_seq = (int32_t)b.sequence;
		last_ts = ts;
		got++;
		if (ioctl(fd, VIDIOC_QBUF, &b) < 0)
			VT_CAP_FAIL(-errno, "re-QBUF: %s", strerror(errno));
	}
	r = 0;
out:
#undef VT_CAP_FAIL
	if (s.fd >= 0)
		vt_stream_stop(&s);
	close(fd);
	return r;
}

/* ---- kmemleak ------------------------------------------------------------ */

bool vt_kmemleak_present(void)
{
	return access(VT_KMEMLEAK, W_OK) == 0;
}

/* Count "unreferenced object" reports in buf. */
static unsigned int vt_count_leaks(const char *buf)
{
	unsigned int n = 0;
	const char *p = buf;

	while ((p = strstr(p, "unreferenced object"))) {
		n++;
		p++;
	}
	return n;
}

void vt_diag_lines(const char *text, unsigned int max_lines)
{
	const char *p = text;

	while (*p && max_lines--) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		printf("#   %.*s\n", len, p);
		p += len + (nl ? 1 : 0);
	}
}

/*
 * The automatic scan thread stays on: "scan=off" logs a kmemleak line that
 * guest/check.sh would take for a splat.
 */
void vt_kmemleak_begin(void)
{
	static char buf[16384];

	if (!vt_kmemleak_present())
		return;
	if (vt_read_file(VT_KMEMLEAK, buf, sizeof(buf)) > 0 &&
	    vt_count_leaks(buf)) {
		vt_diag("kmemleak already reported %u objects before this test "
			"(not counted here):", vt_count_leaks(buf));
		vt_diag_lines(buf, 12);
	}
	vt_write_file(VT_KMEMLEAK, "clear");
}

#define VT_WATCHDOG	"/proc/sys/kernel/watchdog_thresh"

/*
 * "scan" with the soft lockup threshold raised: a scan holds the CPU for
 * tens of seconds under TCG with KASAN, which is not a bug of anything.
 */
static int vt_kmemleak_scan(void)
{
	char old[16] = "";
	int r;

	if (vt_read_file(VT_WATCHDOG, old, sizeof(old)) > 0)
		vt_write_file(VT_WATCHDOG, "60");
	r = vt_write_file(VT_KMEMLEAK, "scan");
	if (old[0])
		vt_write_file(VT_WATCHDOG, old);
	return r;
}

void vt_kmemleak_check(void)
{
	static char buf[65536];
	unsigned int n, scans = 1;
	uint64_t t0;
	int r;

	/* a listed skip without kmemleak (tests/skips.txt) */
	if (!vt_kmemleak_present()) {
		vt_skip("kmemleak finds no leak",
			"kmemleak is not in this kernel");
		return;
	}
	vp_sleep_ms(6000);
	t0 = vp_now_ns();
	r = vt_kmemleak_scan();
	if (!r && vt_read_file(VT_KMEMLEAK, buf, sizeof(buf)) > 0 &&
	    vt_count_leaks(buf)) {
		vp_sleep_ms(2000);
		r = vt_kmemleak_scan();
		scans++;
	}
	if (r < 0) {
		vt_ok(false, "kmemleak", "writing scan: %s", strerror(-r));
		return;
	}
	vt_read_file(VT_KMEMLEAK, buf, sizeof(buf));
	n = vt_count_leaks(buf);
	vt_diag("kmemleak: %u scan(s) took %.1f s", scans,
		(vp_now_ns() - t0) / 1e9);
	if (!vt_ok(n == 0 && !buf[0], "kmemleak finds no leak",
		   "%u unreferenced objects", n))
		vt_diag_lines(buf, 60);
}

/* ---- kernel log ------------------------------------------------------------- */

static char vt_marker[96];

void vt_klog_mark(const char *name)
{
	char line[160];

	snprintf(vt_marker, sizeof(vt_marker), "vivpoll-test %s: begin %" PRIu64,
		 name, vp_now_ns());
	snprintf(line, sizeof(line), "<6>%s\n", vt_marker);
	vt_write_file("/dev/kmsg", line);
}

char *vt_klog_since_mark(void)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *log, *p, *q;
	int n;

	if (size <= 0)
		return NULL;
	log = malloc(size + 1);
	if (!log)
		return NULL;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, size);
	if (n < 0 || vt_fault("klog-unreadable")) {
		/* a log that cannot be read is not a clean one */
		if (n >= 0)
			errno = EPERM;
		free(log);
		return NULL;
	}
	log[n] = 0;
	p = log;
	while (vt_marker[0] && (q = strstr(p, vt_marker)))
		p = q + 1;
	if (p == log) {		/* marker gone (log wrapped): all of it */
		return log;
	}
	memmove(log, p, strlen(p) + 1);
	return log;
}

/*
 * The list of what a splat is, one extended regular expression:
 * guest/splat.ere, which guest/check.sh and the host read too.
 */
static int vt_splat_re(regex_t *re, char *why, size_t len)
{
	const char *path = getenv("VIVPOLL_SPLAT_ERE");
	char buf[2048];
	ssize_t n;
	int r;

	if (!path)
		path = "/vivpoll/splat.ere";
	n = vt_read_file(path, buf, sizeof(buf));
	if (n <= 0) {
		snprintf(why, len, "cannot read the splat list %s: %s", path,
			 n ? strerror((int)-n) : "empty");
		return -EIO;
	}
	buf[strcspn(buf, "\n")] = 0;
	r = regcomp(re, buf, REG_EXTENDED | REG_NOSUB | REG_NEWLINE);
	if (r) {
		snprintf(why, len, "the splat list %s is not an ERE (%d)",
			 path, r);
		return -EINVAL;
	}
	return 0;
}

void vt_klog_check(void)
{
	char *log = vt_klog_since_mark(), *line, why[256];
	unsigned int hits = 0;
	size_t len;
	char *first = NULL;
	int first_len = 0;
	regex_t re;

	if (!log) {
		vt_ok(false, "the kernel log has no splat",
		      "cannot read the kernel log: %s", strerror(errno));
		return;
	}
	if (vt_splat_re(&re, why, sizeof(why))) {
		vt_ok(false, "the kernel log has no splat", "%s", why);
		free(log);
		return;
	}
	for (line = log; *line; line += len + (line[len] == '\n')) {
		char buf[1024];

		len = strcspn(line, "\n");
		snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
		if (!regexec(&re, buf, 0, NULL, 0) && !hits++) {
			first = line;
			first_len = (int)len;
		}
	}
	regfree(&re);
	if (hits) {
		vt_ok(false, "the kernel log has no splat",
		      "%u lines match the splat list, the first: %.*s", hits,
		      first_len > 300 ? 300 : first_len, first);
		/* the first one with what follows it */
		vt_diag_lines(first, 40);
	} else {
		vt_ok(true, "the kernel log has no splat", NULL);
	}
	free(log);
}

/* ---- the checks after each stress test ------------------------------------ */

void vt_check_counters(const struct vt_snap *before,
		       const uint64_t *min_frames)
{
	char why[512] = "";
	struct vt_snap now;
	double secs;
	int i, checked = 0;

	vt_snapshot(&now);
	secs = (now.t_ns - before->t_ns) / 1e9;
	for (i = 0; i < VT_MAX_DEVS; i++) {
		const struct vt_counts *a = &before->c[i], *b = &now.c[i];
		uint64_t slots, limit;

		if (!a->present || !b->present)
			continue;
		checked++;
		if (b->starts < a->starts || b->frames < a->frames ||
		    b->drops < a->drops) {
			vt_appendf(why, sizeof(why), "vivpoll-%d: a counter went "
				   "backwards (starts %" PRIu64 "->%" PRIu64
				   ", frames %" PRIu64 "->%" PRIu64 ", drops %"
				   PRIu64 "->%" PRIu64 "); ", i, a->starts,
				   b->starts, a->frames, b->frames, a->drops,
				   b->drops);
			continue;
		}
		slots = (b->frames - a->frames) + (b->drops - a->drops);
		/* one slot per 1/60 s of each run, plus the slot in progress
		 * of each run, plus slack for clock granularity */
		limit = (uint64_t)(secs * VT_MAX_FPS) +
			2 * (b->starts - a->starts) + 10;
		if (slots > limit)
			vt_appendf(why, sizeof(why), "vivpoll-%d: %" PRIu64
				   " frame slots in %.1f s with %" PRIu64
				   " starts (at most %" PRIu64 "); ", i, slots,
				   secs, b->starts - a->starts, limit);
		if (min_frames && b->frames - a->frames < min_frames[i])
			vt_appendf(why, sizeof(why), "vivpoll-%d: %" PRIu64
				   " frames produced, but %" PRIu64 " were "
				   "dequeued; ", i, b->frames - a->frames,
				   min_frames[i]);
		vt_diag("vivpoll-%d: +%" PRIu64 " engine starts, +%" PRIu64
			" frames, +%" PRIu64 " drops in %.1f s", i,
			b->starts - a->starts, b->frames - a->frames,
			b->drops - a->drops, secs);
	}
	if (!checked && !*why)
		snprintf(why, sizeof(why), "no device to check");
	vt_ok(!*why, "counters are consistent (monotonic, plausible)", "%s",
	      why);
}

void vt_check_captures(const struct vt_dev *devs, int n)
{
	char buf[256];
	int i;

	for (i = 0; i < n; i++) {
		char desc[96], why[160];
		int r = vt_capture(devs[i].path, 5, 10000 * vt_scale(), why,
				   sizeof(why));

		snprintf(desc, sizeof(desc),
			 "%.31s (vivpoll-%d) captures 5 frames by mmap",
			 devs[i].path, devs[i].inst);
		vt_ok(!r, desc, "%s", why);
	}
	vt_ok(vt_wait_engines_stopped(5000 * vt_scale(), buf, sizeof(buf)),
	      "the engine stops after the capture", "still running: %s", buf);
}

unsigned int vt_health_plan(int ndevs)
{
	return 6 + (unsigned int)ndevs;
}

void vt_health(const struct vt_snap *before, const uint64_t *min_frames,
	       int ndevs)
{
	struct vt_dev devs[VT_MAX_DEVS];
	char buf[256];
	int n;

	vt_ok(vt_wait_engines_stopped(5000 * vt_scale(), buf, sizeof(buf)),
	      "the engine is stopped on every device once all files are "
	      "closed", "still running: %s", buf);
	vt_check_counters(before, min_frames);
	vt_klog_check();
	vt_kmemleak_check();
	n = vt_devices(devs, VT_MAX_DEVS);
	snprintf(buf, sizeof(buf), "the %d vivpoll device(s) are there",
		 ndevs);
	if (!vt_ok(n == ndevs, buf, "%d found", n))
		vt_not_run((unsigned int)ndevs, "a capture of 5 frames",
			   "the devices are not all there");
	else
		vt_check_captures(devs, n);
}

void vt_restore_defaults(void)
{
	struct vt_dev devs[VT_MAX_DEVS];
	const char *why;
	int r = vt_reload(NULL, 5000 * vt_scale(), &why);

	if (!r && !vt_devices(devs, VT_MAX_DEVS)) {
		why = "no device after modprobe";
		r = -ENODEV;
	}
	vt_ok(!r, "vivpoll reloaded with its default parameters", "%s: %s",
	      why, strerror(-r));
}

/* ---- children -------------------------------------------------------------- */

void *vt_shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap shared");
		exit(1);
	}
	memset(p, 0, len);
	return p;
}

int vt_reap(const pid_t *pids, int *status, int n, uint64_t deadline_ns)
{
	int left = 0, i, killed = 0;

	for (i = 0; i < n; i++) {
		status[i] = -2;
		if (pids[i] > 0)
			left++;
	}
	while (left) {
		for (i = 0; i < n; i++) {
			int st;
			pid_t p;

			if (pids[i] <= 0 || status[i] != -2)
				continue;
			p = waitpid(pids[i], &st, WNOHANG);
			if (p == pids[i] || (p < 0 && errno == ECHILD)) {
				status[i] = p == pids[i] ? st : -3;
				left--;
			}
		}
		if (!left || vp_now_ns() > deadline_ns)
			break;
		vp_sleep_ms(20);
	}
	for (i = 0; i < n; i++) {
		if (pids[i] <= 0 || status[i] != -2)
			continue;
		kill(pids[i], SIGKILL);
		status[i] = -1;
		killed++;
	}
	if (killed) {
		/* collect them if they can die (not stuck in the kernel) */
		uint64_t end = vp_now_ns() + 2000000000ull;

		for (i = 0; i < n; i++)
			while (status[i] == -1 && pids[i] > 0 &&
			       vp_now_ns() < end &&
			       waitpid(pids[i], NULL, WNOHANG) == 0)
				vp_sleep_ms(20);
	}
	return killed;
}

const char *vt_status_str(int st, char *buf, size_t len)
{
	if (st == -1)
		snprintf(buf, len, "hung, killed");
	else if (st < 0)
		snprintf(buf, len, "lost");
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	return buf;
}

/* ---- the switch, as the driver sees it ------------------------------------- */

int vt_switch_set(int on)
{
	if (vt_fault("switch-inverted"))
		on = !on;
	return vp_sysctl_write(on);
}

int vt_polltrace_reqs(struct vp_polltrace *t, uint32_t *reqs, unsigned int max)
{
	unsigned long long in = 0, written = 0;
	char path[192], line[512];
	bool header = false;
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", t->dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "vivpoll_poll: ");
		unsigned int inst, req;

		if (line[0] == '#') {
			p = strstr(line, "entries-in-buffer/entries-written:");
			if (p && sscanf(p, "entries-in-buffer/entries-written: "
					"%llu/%llu", &in, &written) == 2)
				header = true;
			continue;
		}
		if (!p || sscanf(p, "vivpoll_poll: inst=%u req=%x", &inst,
				 &req) != 2)
			continue;
		if (n < max)
			reqs[n] = req;
		n++;
	}
	fclose(f);
	if (!header)
		return -EIO;
	if (written != in || n != in)
		return -EOVERFLOW;
	return (int)n;
}

const char *vt_reqs_str(const uint32_t *reqs, int n, char *buf, size_t len)
{
	int i;

	buf[0] = 0;
	for (i = 0; i < n; i++)
		vt_appendf(buf, len, "%s0x%x", i ? " " : "", reqs[i]);
	if (!n)
		vt_appendf(buf, len, "(no call)");
	return buf;
}

bool vt_asleep_in(pid_t tid, long nr)
{
	char path[64], buf[256], *p;
	long got;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	if (vt_read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] != 'S')
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	if (vt_read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	buf[strcspn(buf, "\n ")] = 0;
	got = strtol(buf, &p, 10);
	return p != buf && !*p && got == nr;
}

/* ---- errno --------------------------------------------------------------- */

const char *vt_errname(int e)
{
	static const struct { int e; const char *n; } names[] = {
		{ 0, "0" }, { EPERM, "EPERM" }, { ENOENT, "ENOENT" },
		{ EINTR, "EINTR" }, { EIO, "EIO" }, { ENXIO, "ENXIO" },
		{ E2BIG, "E2BIG" }, { EBADF, "EBADF" }, { EAGAIN, "EAGAIN" },
		{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { ENODEV, "ENODEV" },
		{ EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" }, { ENOTTY, "ENOTTY" },
		{ EPIPE, "EPIPE" }, { ERANGE, "ERANGE" }, { ENODATA, "ENODATA" },
		{ EOVERFLOW, "EOVERFLOW" }, { ETIMEDOUT, "ETIMEDOUT" },
		{ EMFILE, "EMFILE" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ EUCLEAN, "EUCLEAN" },
	};
	static char other[24];
	unsigned int i;

	for (i = 0; i < VT_ARRAY_SIZE(names); i++)
		if (names[i].e == e)
			return names[i].n;
	snprintf(other, sizeof(other), "errno %d", e);
	return other;
}

bool vt_errno_in(int e, uint64_t mask)
{
	return e > 0 && e < 64 && (mask & VT_E(e));
}

