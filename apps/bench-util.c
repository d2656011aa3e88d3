// SPDX-License-Identifier: GPL-2.0
/* vivpoll-bench: CPU accounting, devices, statistics, JSON; see bench-util.h */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

/* ---- CPU accounting ----------------------------------------------------- */

int bench_cpu_read(struct bench_cpu *c)
{
	unsigned long long v[10] = { 0 };
	char line[512];
	FILE *f;
	int n;

	f = fopen("/proc/stat", "re");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	/* cpu user nice system idle iowait irq softirq steal guest guest_nice */
	n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8], &v[9]);
	if (n < 7)
		return -EIO;
	/* guest and guest_nice are already counted in user and nice */
	c->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	c->idle = v[3] + v[4];
	return 0;
}

double bench_ticks_ms(uint64_t ticks)
{
	static long hz;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		hz = 100;
	return ticks * 1000.0 / hz;
}

/* /proc/PID/comm into @buf (@len bytes, at least 1), "" if it cannot be read */
static void read_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, len - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

int bench_tasks_read(struct bench_tasks *t)
{
	struct dirent *de;
	DIR *d;

	t->n = 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d)) && t->n < BENCH_MAX_TASKS) {
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (bench_task_cpu_ns(pid, &t->ns[t->n]))
			continue;	/* gone */
		read_comm(pid, t->comm[t->n], sizeof(t->comm[0]));
		t->pid[t->n++] = pid;
	}
	closedir(d);
	return 0;
}

void bench_snap(struct bench_snap *s, pid_t task)
{
	memset(s, 0, sizeof(*s));
	/* first: the other clocks are then read as close to t_ns as can be */
	bench_tasks_read(&s->all);
	if (task > 0)
		bench_task_cpu_ns(task, &s->task_ns);
	bench_cpu_read(&s->cpu);
	s->self_ns = bench_self_cpu_ns();
	s->t_ns = vp_now_ns();
}

/* The same in the reverse order: every task's clock last, after the window */
void bench_snap_end(struct bench_snap *s, pid_t task)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = vp_now_ns();
	s->self_ns = bench_self_cpu_ns();
	bench_cpu_read(&s->cpu);
	if (task > 0)
		bench_task_cpu_ns(task, &s->task_ns);
	bench_tasks_read(&s->all);
}

void bench_json_cpu(struct bench_json *j, const struct bench_snap *a,
		    const struct bench_snap *b, pid_t task)
{
	bj_num(j, "window_s", (b->t_ns - a->t_ns) / 1e9);
	bj_int(j, "busy_ticks", (long long)(b->cpu.busy - a->cpu.busy));
	bj_int(j, "idle_ticks", (long long)(b->cpu.idle - a->cpu.idle));
	bj_num(j, "busy_ms", bench_ticks_ms(b->cpu.busy - a->cpu.busy));
	bj_num(j, "idle_ms", bench_ticks_ms(b->cpu.idle - a->cpu.idle));
	if (task > 0 && b->task_ns >= a->task_ns)
		bj_num(j, "task_ms", (b->task_ns - a->task_ns) / 1e6);
	else
		bj_null(j, "task_ms");
	bj_num(j, "self_ms", (b->self_ns - a->self_ns) / 1e6);
	bench_json_tasks(j, &a->all, &b->all, task);
}

/*
 * The sum of every task's CPU time in the interval ("all_tasks_ms"), and
 * the three that used most besides this process and @task ("others").
 */
void bench_json_tasks(struct bench_json *j, const struct bench_tasks *a,
		      const struct bench_tasks *b, pid_t task)
{
	uint64_t sum = 0, top[3] = { 0 };
	int itop[3] = { -1, -1, -1 }, i, k, m;
	char others[256];
	size_t used = 0;

	if (!a->n || !b->n) {
		bj_null(j, "all_tasks_ms");
		return;
	}
	for (i = 0; i < b->n; i++) {
		uint64_t d = b->ns[i];

		for (k = 0; k < a->n; k++)
			if (a->pid[k] == b->pid[i])
				break;
		if (k < a->n)
			d = b->ns[i] >= a->ns[k] ? b->ns[i] - a->ns[k] : 0;
		sum += d;
		if (b->pid[i] == getpid() || b->pid[i] == task)
			continue;
		for (m = 0; m < 3; m++) {
			if (d > top[m]) {
				memmove(&top[m + 1], &top[m], (2 - m) * sizeof(top[0]));
				memmove(&itop[m + 1], &itop[m], (2 - m) * sizeof(itop[0]));
				top[m] = d;
				itop[m] = i;
				break;
			}
		}
	}
	others[0] = 0;
	for (m = 0; m < 3 && itop[m] >= 0; m++)
		used += snprintf(others + used, used < sizeof(others) ?
				 sizeof(others) - used : 0, "%s%s %.2f ms",
				 m ? ", " : "", b->comm[itop[m]], top[m] / 1e6);
	bj_num(j, "all_tasks_ms", sum / 1e6);
	bj_int(j, "all_tasks_n", b->n);
	bj_str(j, "others", others);
}

pid_t bench_find_task(const char *comm)
{
	struct dirent *de;
	pid_t found = 0;
	char buf[64];
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		read_comm((pid_t)atoi(de->d_name), buf, sizeof(buf));
		if (*buf && !strncmp(buf, comm, 15))
			found = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return found;
}

char bench_task_state(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

int bench_task_cpu_ns(pid_t pid, uint64_t *ns)
{
	struct timespec ts;
	clockid_t cid;
	int r;

	r = clock_getcpuclockid(pid, &cid);
	if (r)
		return -r;
	if (clock_gettime(cid, &ts))
		return -errno;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	return 0;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t bench_self_cpu_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

uint64_t bench_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

int bench_pin(int cpu)
{
	return bench_pin_task(0, cpu);
}

int bench_pin_task(pid_t pid, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set) ? -errno : 0;
}

/* ---- devices ---------------------------------------------------------- */

int bench_find_node(const char *driver, char *path, size_t plen,
		    char *name, size_t nlen)
{
	const uint32_t other = V4L2_CAP_TOUCH | V4L2_CAP_META_CAPTURE |
			       V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_CAPTURE_MPLANE;
	struct v4l2_capability cap;
	char p[32];
	int i;

	for (i = 0; i < 64; i++) {
		uint32_t caps;
		int fd;

		snprintf(p, sizeof(p), "/dev/video%d", i);
		fd = open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&cap, 0, sizeof(cap));
		if (ioctl(fd, VIDIOC_QUERYCAP, &cap) < 0) {
			close(fd);
			continue;
		}
		close(fd);
		caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ?
			cap.device_caps : cap.capabilities;
		if (strcmp((const char *)cap.driver, driver) ||
		    !(caps & V4L2_CAP_VIDEO_CAPTURE) || (caps & other))
			continue;
		snprintf(path, plen, "%s", p);
		if (name) {
			const char *b = (const char *)cap.bus_info;

			if (!strncmp(b, "platform:", 9))
				b += 9;
			snprintf(name, nlen, "%s", b);
		}
		return 0;
	}
	return -ENODEV;
}

int bench_find_ctrl(int fd, const char *name, uint32_t *id)
{
	struct v4l2_query_ext_ctrl q;

	memset(&q, 0, sizeof(q));
	q.id = V4L2_CTRL_FLAG_NEXT_CTRL;
	while (!ioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q)) {
		if (!strcmp(q.name, name)) {
			*id = q.id;
			return 0;
		}
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	return -ENOENT;
}

unsigned int bench_bpp(uint32_t fourcc)
{
	switch (fourcc) {
	case V4L2_PIX_FMT_GREY:
		return 1;
	case V4L2_PIX_FMT_YUYV:
	case V4L2_PIX_FMT_UYVY:
	case V4L2_PIX_FMT_RGB565:
		return 2;
	case V4L2_PIX_FMT_RGB24:
	case V4L2_PIX_FMT_BGR24:
		return 3;
	case V4L2_PIX_FMT_XBGR32:
		return 4;
	default:
		return 0;
	}
}

/* ---- statistics ------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_pct(double *v, size_t n, double q)
{
	size_t k;

	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	k = (size_t)ceil(q * n);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

double bench_mean(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		s += v[i];
	return s / n;
}

/* ---- JSON ----------------------------------------------------------------- */

static void bj_key(struct bench_json *j, const char *key)
{
	fprintf(j->f, "%s\"%s\":", j->first ? "" : ",", key);
	j->first = false;
}

static void bj_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void bj_begin(struct bench_json *j, const char *test)
{
	j->f = stdout;
	j->first = true;
	fputc('{', j->f);
	bj_str(j, "test", test);
}

void bj_str(struct bench_json *j, const char *key, const char *val)
{
	bj_key(j, key);
	bj_quote(j->f, val);
}

void bj_num(struct bench_json *j, const char *key, double val)
{
	bj_key(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.6g", val);
	else
		fputs("null", j->f);
}

void bj_int(struct bench_json *j, const char *key, long long val)
{
	bj_key(j, key);
	fprintf(j->f, "%lld", val);
}

void bj_bool(struct bench_json *j, const char *key, bool val)
{
	bj_key(j, key);
	fputs(val ? "true" : "false", j->f);
}

void bj_null(struct bench_json *j, const char *key)
{
	bj_key(j, key);
	fputs("null", j->f);
}

void bj_array(struct bench_json *j, const char *key, const double *v,
	      size_t n, int decimals)
{
	size_t i;

	bj_key(j, key);
	fputc('[', j->f);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', j->f);
		if (isfinite(v[i]))
			fprintf(j->f, "%.*f", decimals, v[i]);
		else
			fputs("null", j->f);
	}
	fputc(']', j->f);
}

void bj_end(struct bench_json *j)
{
	fputs("}\n", j->f);
	fflush(j->f);
}

int bench_fail(const char *test, const char *fmt, ...)
{
	struct bench_json j;
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "vivpoll-bench %s: %s\n", test, msg);
	bj_begin(&j, test);
	bj_str(&j, "error", msg);
	bj_end(&j);
	return 1;
}

void bench_usage_error(const char *cmd, const char *msg, const char *arg)
{
	fprintf(stderr, "vivpoll-bench %s: %s%s%s%s\n"
		"Try 'vivpoll-bench --help'.\n", cmd, msg,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	exit(VP_EXIT_USAGE);
}
