// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-bench stream / memcpy: what a frame costs.
 *
 * stream: set up a capture device (vivpoll or vivid) for a size, format and
 * rate, stream it by mmap with poll(POLLIN) + VIDIOC_DQBUF/QBUF, throw away
 * a warm-up, then measure a window: frames delivered, sequence gaps
 * (drops), how late each frame reached us after its end-of-frame
 * timestamp (on time: within one frame interval), and the CPU the guest
 * spent meanwhile (bench-util.h). vivid only reaches 1280x720 at 30 fps,
 * or its fastest 640x480 rates, on its HDMI input with a CEA/DMT timing
 * (its webcam input tops out at 12.5 fps at 720p), so the setup looks at
 * the plain input first and at a DV timings input second; vivid's buffer
 * timestamps are set to end of frame, as vivpoll's are.
 *
 * The buffers are mapped PROT_READ | PROT_WRITE by default (--map rw), as
 * applications do; --map ro maps them read-only.
 *
 * --cpus same runs the application and the driver's producer thread (the
 * floor: its process and its reader) on CPU 0, so that handing a frame on
 * is a context switch, not an inter-processor interrupt (see bench-event);
 * any (the default) leaves them to the scheduler.
 *
 * memcpy: the floor: the same bytes copied (as the kernel's memcpy() copies
 * them: copy_frame()) at the same rate into a ring of as many buffers,
 * paced with clock_nanosleep(TIMER_ABSTIME) like a producer thread,
 * measured the same way; plus the CPU time of one unpaced user-space copy
 * and of one kernel copy (pread from tmpfs) of a frame.
 * With --consumer, each copy is also handed to a second thread that sleeps
 * in poll() on an eventfd, as a capture application sleeps in poll() on
 * the video fd: the copy plus the one wake-up per frame that any delivery
 * to a waiting reader costs.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

#define MAX_BUFS	32

struct sopts {
	const char *cmd;
	char driver[16];
	char dev[64];
	unsigned int w, h;
	uint32_t fourcc;
	unsigned long fps;
	bool fastest;
	unsigned long nbuf;
	unsigned long dur_ms, warm_ms;
	bool map_rw;
	bool consumer;		/* memcpy: wake a consumer thread per frame */
	int cpu;		/* --cpus same: 0; any: -1 */
};

static void parse(int argc, char **argv, struct sopts *o)
{
	static const struct option lopts[] = {
		{ "driver", required_argument, NULL, 'D' },
		{ "device", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "fourcc", required_argument, NULL, 'f' },
		{ "fps", required_argument, NULL, 'r' },
		{ "fastest", no_argument, NULL, 'F' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "duration", required_argument, NULL, 't' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "map", required_argument, NULL, 'm' },
		{ "consumer", no_argument, NULL, 'C' },
		{ "cpus", required_argument, NULL, 'c' },
		{ 0 }
	};
	int c;

	snprintf(o->driver, sizeof(o->driver), "vivpoll");
	o->w = 1280;
	o->h = 720;
	o->fourcc = V4L2_PIX_FMT_YUYV;
	o->fps = 30;
	o->nbuf = 4;
	o->dur_ms = 5000;
	o->warm_ms = 1000;
	o->cpu = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":D:d:s:f:r:Fb:t:w:m:Cc:", lopts,
				NULL)) != -1) {
		switch (c) {
		case 'D':
			if (strcmp(optarg, "vivpoll") && strcmp(optarg, "vivid"))
				bench_usage_error(o->cmd, "--driver is vivpoll or vivid, not", optarg);
			snprintf(o->driver, sizeof(o->driver), "%s", optarg);
			break;
		case 'd':
			snprintf(o->dev, sizeof(o->dev), "%s", optarg);
			break;
		case 's':
			if (vp_parse_size(optarg, &o->w, &o->h))
				bench_usage_error(o->cmd, "bad --size", optarg);
			break;
		case 'f':
			if (vp_parse_fourcc(optarg, &o->fourcc) ||
			    !bench_bpp(o->fourcc))
				bench_usage_error(o->cmd, "bad or unsupported --fourcc", optarg);
			break;
		case 'r':
			if (vp_parse_uint(optarg, 1, 1000, &o->fps))
				bench_usage_error(o->cmd, "--fps wants 1..1000, not", optarg);
			o->fastest = false;
			break;
		case 'F':
			o->fastest = true;
			break;
		case 'b':
			if (vp_parse_uint(optarg, 2, MAX_BUFS, &o->nbuf))
				bench_usage_error(o->cmd, "--buffers wants 2..32, not", optarg);
			break;
		case 't':
			if (vp_parse_seconds(optarg, &o->dur_ms) || o->dur_ms < 100)
				bench_usage_error(o->cmd, "--duration wants seconds >= 0.1, not", optarg);
			break;
		case 'w':
			if (vp_parse_seconds(optarg, &o->warm_ms))
				bench_usage_error(o->cmd, "bad --warmup", optarg);
			break;
		case 'm':
			if (strcmp(optarg, "ro") && strcmp(optarg, "rw"))
				bench_usage_error(o->cmd, "--map is ro or rw, not", optarg);
			o->map_rw = !strcmp(optarg, "rw");
			break;
		case 'C':
			if (strcmp(o->cmd, "memcpy"))
				bench_usage_error(o->cmd, "--consumer is a memcpy option", NULL);
			o->consumer = true;
			break;
		case 'c':
			if (strcmp(optarg, "same") && strcmp(optarg, "any"))
				bench_usage_error(o->cmd, "--cpus is same or any, not", optarg);
			o->cpu = strcmp(optarg, "same") ? -1 : 0;
			break;
		case ':':
			bench_usage_error(o->cmd, "missing argument for", argv[optind - 1]);
		default:
			bench_usage_error(o->cmd, "unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bench_usage_error(o->cmd, "unexpected argument", argv[optind]);
}

static int xioctl(int fd, unsigned long req, void *arg);

/* vivpoll's Frames Produced and Frames Dropped controls */
static int read_frames_drops(int fd, uint64_t *frames, uint64_t *drops)
{
	int64_t f, d;
	int r = vp_ctrl_get64(fd, VIVPOLL_CID_FRAMES, &f);

	if (!r)
		r = vp_ctrl_get64(fd, VIVPOLL_CID_DROPS, &d);
	if (r)
		return r;
	*frames = (uint64_t)f;
	*drops = (uint64_t)d;
	return 0;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static double fract_fps(const struct v4l2_fract *f)
{
	return f->numerator ? (double)f->denominator / f->numerator : 0;
}

static int set_parm(int fd, struct v4l2_fract tpf, double *fps)
{
	struct v4l2_streamparm p;
	int r;

	memset(&p, 0, sizeof(p));
	p.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	p.parm.capture.timeperframe = tpf;
	r = xioctl(fd, VIDIOC_S_PARM, &p);
	if (r < 0)
		return r;
	*fps = fract_fps(&p.parm.capture.timeperframe);
	return 0;
}

static int get_fps(int fd, double *fps)
{
	struct v4l2_streamparm p;
	int r;

	memset(&p, 0, sizeof(p));
	p.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	r = xioctl(fd, VIDIOC_G_PARM, &p);
	if (r < 0)
		return r;
	*fps = fract_fps(&p.parm.capture.timeperframe);
	return 0;
}

/* The shortest discrete frame interval offered at the format and size */
static int fastest_interval(int fd, const struct sopts *o,
			    struct v4l2_fract *best)
{
	struct v4l2_frmivalenum fi;
	double bfps = 0;
	unsigned int i;

	for (i = 0; i < 64; i++) {
		memset(&fi, 0, sizeof(fi));
		fi.index = i;
		fi.pixel_format = o->fourcc;
		fi.width = o->w;
		fi.height = o->h;
		if (xioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &fi) < 0)
			break;
		if (fi.type != V4L2_FRMIVAL_TYPE_DISCRETE) {
			*best = fi.stepwise.min;	/* continuous/stepwise */
			return 0;
		}
		if (fract_fps(&fi.discrete) > bfps) {
			bfps = fract_fps(&fi.discrete);
			*best = fi.discrete;
		}
	}
	return bfps > 0 ? 0 : -EINVAL;
}

struct dev {
	int fd;
	char path[64], name[32], input[32];
	double fps;
	struct v4l2_format fmt;
	int inst;			/* vivpoll instance, -1 otherwise */
	void *mem[MAX_BUFS];
	size_t len[MAX_BUFS];
	unsigned int n;
	bool soe;
};

/* The input of the given DV capability (or the first input), -1 if none */
static int find_input(int fd, bool dv, char *name, size_t len)
{
	struct v4l2_input in;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		memset(&in, 0, sizeof(in));
		in.index = i;
		if (xioctl(fd, VIDIOC_ENUMINPUT, &in) < 0)
			break;
		if (!dv || (in.capabilities & V4L2_IN_CAP_DV_TIMINGS)) {
			snprintf(name, len, "%s", (const char *)in.name);
			return (int)i;
		}
	}
	return -1;
}

/* The plain path: the first input, S_FMT, S_PARM */
static int setup_plain(struct dev *d, const struct sopts *o)
{
	struct v4l2_fract tpf = { 1, (uint32_t)o->fps };
	int in, r;

	in = find_input(d->fd, false, d->input, sizeof(d->input));
	if (in >= 0 && xioctl(d->fd, VIDIOC_S_INPUT, &in) < 0)
		return -errno;
	r = vp_set_format(d->fd, o->w, o->h, o->fourcc, &d->fmt, NULL);
	if (r)
		return r;
	if (o->fastest && fastest_interval(d->fd, o, &tpf))
		return -EINVAL;
	return set_parm(d->fd, tpf, &d->fps);
}

static double bt_fps(const struct v4l2_bt_timings *bt)
{
	double ht = V4L2_DV_BT_FRAME_WIDTH(bt), vt = V4L2_DV_BT_FRAME_HEIGHT(bt);

	return ht && vt ? bt->pixelclock / (ht * vt) : 0;
}

/*
 * The DV timings path (vivid's HDMI input): the preset timing of the size
 * at the rate (or the fastest one), then S_FMT.
 */
static int setup_dv(struct dev *d, const struct sopts *o)
{
	struct v4l2_enum_dv_timings e;
	struct v4l2_dv_timings best;
	double bfps = 0;
	unsigned int i;
	int in, r;

	in = find_input(d->fd, true, d->input, sizeof(d->input));
	if (in < 0)
		return -ENOENT;
	r = xioctl(d->fd, VIDIOC_S_INPUT, &in);
	if (r < 0)
		return r;
	memset(&best, 0, sizeof(best));
	for (i = 0; i < 256; i++) {
		const struct v4l2_bt_timings *bt = &e.timings.bt;
		double f;

		memset(&e, 0, sizeof(e));
		e.index = i;
		if (xioctl(d->fd, VIDIOC_ENUM_DV_TIMINGS, &e) < 0)
			break;
		if (bt->width != o->w || bt->height != o->h || bt->interlaced)
			continue;
		f = bt_fps(bt);
		if (o->fastest ? f > bfps : fabs(f - o->fps) < 0.005 * o->fps) {
			bfps = f;
			best = e.timings;
		}
	}
	if (bfps == 0)
		return -ENOENT;
	r = xioctl(d->fd, VIDIOC_S_DV_TIMINGS, &best);
	if (r < 0)
		return r;
	r = vp_set_format(d->fd, o->w, o->h, o->fourcc, &d->fmt, NULL);
	if (r)
		return r;
	return get_fps(d->fd, &d->fps);
}

static bool fps_matches(double got, unsigned long want)
{
	return fabs(got - want) < 0.005 * want;
}

static int setup_dev(struct dev *d, const struct sopts *o, char *err,
		     size_t elen)
{
	double plain_fps = 0;
	uint32_t id;
	int r;

	r = setup_plain(d, o);
	if (!r)
		plain_fps = d->fps;
	if (!r && !o->fastest && fps_matches(d->fps, o->fps))
		goto ok;
	r = setup_dv(d, o);
	if (!r && (o->fastest ? d->fps > plain_fps : fps_matches(d->fps, o->fps)))
		goto ok;
	if (o->fastest && plain_fps > 0 && !setup_plain(d, o))
		goto ok;
	snprintf(err, elen, "%s cannot do %ux%u at %s (%s)", d->path, o->w,
		 o->h, o->fastest ? "any rate" : "the rate",
		 r ? strerror(-r) : "no matching interval or timing");
	return -EINVAL;
ok:
	/* vivid: end-of-frame timestamps (its menu's 0), like vivpoll's */
	if (!bench_find_ctrl(d->fd, "Timestamp Source", &id))
		vp_ctrl_set(d->fd, id, 0);
	return 0;
}

static int start_stream(struct dev *d, unsigned int nbuf, bool map_rw)
{
	struct v4l2_requestbuffers rb;
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_buffer b;
	unsigned int i;
	int r;

	memset(&rb, 0, sizeof(rb));
	rb.count = nbuf;
	rb.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	rb.memory = V4L2_MEMORY_MMAP;
	r = xioctl(d->fd, VIDIOC_REQBUFS, &rb);
	if (r < 0)
		return r;
	if (rb.count < 2 || rb.count > MAX_BUFS)
		return -ENOMEM;
	d->n = rb.count;
	for (i = 0; i < d->n; i++) {
		memset(&b, 0, sizeof(b));
		b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		b.memory = V4L2_MEMORY_MMAP;
		b.index = i;
		r = xioctl(d->fd, VIDIOC_QUERYBUF, &b);
		if (r < 0)
			return r;
		d->len[i] = b.length;
		d->mem[i] = mmap(NULL, b.length,
				 PROT_READ | (map_rw ? PROT_WRITE : 0),
				 MAP_SHARED, d->fd, b.m.offset);
		if (d->mem[i] == MAP_FAILED) {
			d->mem[i] = NULL;
			return -errno;
		}
		r = xioctl(d->fd, VIDIOC_QBUF, &b);
		if (r < 0)
			return r;
	}
	return xioctl(d->fd, VIDIOC_STREAMON, &type);
}

static void stop_stream(struct dev *d)
{
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_requestbuffers rb;
	unsigned int i;

	xioctl(d->fd, VIDIOC_STREAMOFF, &type);
	for (i = 0; i < d->n; i++)
		if (d->mem[i])
			munmap(d->mem[i], d->len[i]);
	memset(&rb, 0, sizeof(rb));
	rb.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	rb.memory = V4L2_MEMORY_MMAP;
	xioctl(d->fd, VIDIOC_REQBUFS, &rb);
}

/*
 * The producer thread of the driver: vivpoll-N-cap (bus vivpoll.N),
 * vivid-NNN-vid-cap (bus vivid-NNN)
 */
static pid_t producer_task(const struct dev *d, const char *driver,
			   char *comm, size_t len)
{
	if (strcmp(driver, "vivid"))
		snprintf(comm, len, "vivpoll-%d-cap", d->inst);
	else
		snprintf(comm, len, "%s-vid-cap", d->name);
	if (strlen(comm) > 15)
		comm[15] = 0;
	return bench_find_task(comm);
}

struct frames {
	double *lat_ms;
	double *app_us;		/* our CPU time per frame (poll, DQBUF, QBUF) */
	size_t n, cap;
	unsigned long gaps, on_time, polls, eagain;
};

int bench_stream_main(int argc, char **argv)
{
	struct sopts o = { .cmd = "stream", .map_rw = true };
	struct bench_snap a, b;
	struct frames fr = { 0 };
	uint64_t df0 = 0, dd0 = 0, df1 = 0, dd1 = 0, t_start;
	struct bench_json j;
	struct dev d;
	char err[160], comm[48], fcc[8];
	bool started = false, have_dbg = false;
	uint32_t prev_seq = 0;
	uint64_t iter_cpu = 0;
	double period_ms;
	pid_t task;
	int r, rc = 1;

	parse(argc, argv, &o);
	if (bench_pin(o.cpu))
		return bench_fail("stream", "cannot run on CPU %d", o.cpu);
	memset(&d, 0, sizeof(d));
	d.fd = -1;
	d.inst = -1;
	if (o.dev[0])
		snprintf(d.path, sizeof(d.path), "%s", o.dev);
	else if (bench_find_node(o.driver, d.path, sizeof(d.path), d.name,
				 sizeof(d.name)))
		return bench_fail("stream", "no %s capture device", o.driver);
	d.fd = open(d.path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (d.fd < 0)
		return bench_fail("stream", "open %s: %s", d.path, strerror(errno));
	if (!d.name[0]) {
		struct v4l2_capability cap;

		memset(&cap, 0, sizeof(cap));
		xioctl(d.fd, VIDIOC_QUERYCAP, &cap);
		snprintf(d.name, sizeof(d.name), "%s",
			 strchr((char *)cap.bus_info, ':') ?
			 strchr((char *)cap.bus_info, ':') + 1 :
			 (char *)cap.bus_info);
	}
	if (!strcmp(o.driver, "vivpoll"))
		d.inst = vp_instance(d.fd);

	if (setup_dev(&d, &o, err, sizeof(err))) {
		rc = bench_fail("stream", "%s", err);
		goto out;
	}
	period_ms = 1000.0 / d.fps;
	fr.cap = (size_t)((o.dur_ms / 1000.0 + 2) * d.fps * 2) + 64;
	fr.lat_ms = calloc(fr.cap, sizeof(*fr.lat_ms));
	fr.app_us = calloc(fr.cap, sizeof(*fr.app_us));
	if (!fr.lat_ms || !fr.app_us) {
		rc = bench_fail("stream", "out of memory");
		goto out;
	}

	r = start_stream(&d, o.nbuf, o.map_rw);
	if (r) {
		rc = bench_fail("stream", "%s: cannot stream: %s", d.path,
				strerror(-r));
		goto stop;
	}
	task = producer_task(&d, o.driver, comm, sizeof(comm));
	if (o.cpu >= 0 && (task <= 0 || bench_pin_task(task, o.cpu))) {
		rc = bench_fail("stream", "cannot run the producer thread %s on CPU %d",
				comm, o.cpu);
		goto stop;
	}
	t_start = vp_now_ns();

	for (;;) {
		struct pollfd pfd = { .fd = d.fd, .events = POLLIN };
		struct v4l2_buffer buf;
		uint64_t now, ts;

		if (!iter_cpu)
			iter_cpu = bench_thread_cpu_ns();
		r = poll(&pfd, 1, 3000);
		fr.polls += started;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = bench_fail("stream", "%s: no frame for 3 s", d.path);
			goto stop;
		}
		memset(&buf, 0, sizeof(buf));
		buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		buf.memory = V4L2_MEMORY_MMAP;
		r = xioctl(d.fd, VIDIOC_DQBUF, &buf);
		if (r == -EAGAIN) {
			fr.eagain += started;
			continue;
		}
		if (r < 0) {
			rc = bench_fail("stream", "VIDIOC_DQBUF: %s", strerror(-r));
			goto stop;
		}
		now = vp_now_ns();
		ts = (uint64_t)buf.timestamp.tv_sec * 1000000000ull +
		     (uint64_t)buf.timestamp.tv_usec * 1000ull;
		if (!started) {
			if (now - t_start >= o.warm_ms * 1000000ull) {
				d.soe = (buf.flags & V4L2_BUF_FLAG_TSTAMP_SRC_MASK) ==
					V4L2_BUF_FLAG_TSTAMP_SRC_SOE;
				if (d.inst >= 0)
					have_dbg = !read_frames_drops(d.fd, &df0, &dd0);
				bench_snap(&a, task);
				started = true;
				prev_seq = buf.sequence;
			}
		} else {
			double lat = ((double)now - (double)ts) / 1e6;

			if (fr.n < fr.cap)
				fr.lat_ms[fr.n++] = lat;
			if (lat <= period_ms)
				fr.on_time++;
			if (buf.sequence > prev_seq + 1)
				fr.gaps += buf.sequence - prev_seq - 1;
			prev_seq = buf.sequence;
		}
		r = xioctl(d.fd, VIDIOC_QBUF, &buf);
		if (r < 0) {
			rc = bench_fail("stream", "VIDIOC_QBUF: %s", strerror(-r));
			goto stop;
		}
		if (started && fr.n && fr.n <= fr.cap)
			fr.app_us[fr.n - 1] = (bench_thread_cpu_ns() - iter_cpu) / 1e3;
		iter_cpu = 0;
		if (started && now > a.t_ns &&
		    now - a.t_ns >= o.dur_ms * 1000000ull)
			break;
	}
	bench_snap_end(&b, task);
	if (have_dbg)
		have_dbg = !read_frames_drops(d.fd, &df1, &dd1);

	{
		double win = (b.t_ns - a.t_ns) / 1e9;
		size_t n = fr.n;

		bj_begin(&j, "stream");
		bj_str(&j, "driver", o.driver);
		bj_str(&j, "node", d.path);
		bj_str(&j, "input", d.input);
		bj_int(&j, "width", d.fmt.fmt.pix.width);
		bj_int(&j, "height", d.fmt.fmt.pix.height);
		bj_str(&j, "fourcc", vp_fourcc_str(d.fmt.fmt.pix.pixelformat, fcc));
		bj_int(&j, "bytes", d.fmt.fmt.pix.sizeimage);
		bj_num(&j, "fps_set", d.fps);
		bj_bool(&j, "fastest", o.fastest);
		bj_int(&j, "buffers", d.n);
		bj_str(&j, "map", o.map_rw ? "rw" : "ro");
		bj_str(&j, "cpus", o.cpu < 0 ? "any" : "same");
		bj_str(&j, "timestamps", d.soe ? "start-of-frame" : "end-of-frame");
		bj_int(&j, "frames", (long long)n);
		bj_int(&j, "gaps", (long long)fr.gaps);
		bj_num(&j, "expected", win * d.fps);
		bj_num(&j, "fps", n / win);
		bj_int(&j, "on_time", (long long)fr.on_time);
		bj_num(&j, "lat_mean_ms", bench_mean(fr.lat_ms, n));
		bj_num(&j, "lat_p50_ms", bench_pct(fr.lat_ms, n, 0.5));
		bj_num(&j, "lat_p99_ms", bench_pct(fr.lat_ms, n, 0.99));
		bj_num(&j, "lat_max_ms", bench_pct(fr.lat_ms, n, 1.0));
		bj_int(&j, "polls", (long long)fr.polls);
		bj_int(&j, "eagain", (long long)fr.eagain);
		bj_num(&j, "app_p50_us", bench_pct(fr.app_us, n, 0.5));
		bj_num(&j, "app_p90_us", bench_pct(fr.app_us, n, 0.9));
		bj_num(&j, "app_max_us", bench_pct(fr.app_us, n, 1));
		bj_str(&j, "task", task > 0 ? comm : "");
		bench_json_cpu(&j, &a, &b, task);
		if (have_dbg) {
			bj_int(&j, "drv_frames", (long long)(df1 - df0));
			bj_int(&j, "drv_drops", (long long)(dd1 - dd0));
		}
		bj_end(&j);
	}
	rc = 0;
stop:
	stop_stream(&d);
out:
	free(fr.lat_ms);
	free(fr.app_us);
	close(d.fd);
	return rc;
}

/* ---- memcpy: the floor ---------------------------------------------------- */

static void touch(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

/*
 * The floor's copy, made as the guest kernel's memcpy() makes a driver's:
 * on the guest's CPU (max,-erms,-fsrm: tools/qemu-run.sh) the 6.1 kernel's
 * memcpy() is rep movsq. Under -icount (make bench's counted frame boot)
 * QEMU 7.2 counts each step of a REP instruction as one instruction, so a
 * 1280x720 YUYV frame costs 230.6k instructions by rep movsq and 173.0k by
 * glibc's AVX2 memcpy() (measured 2026-12-07): a floor copied by glibc
 * was 1.27x cheaper than the copy alone in any kernel driver.
 */
static void copy_frame(void *dst, const void *src, size_t size)
{
#if defined(__x86_64__)
	size_t n = size / 8;

	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	memcpy(dst, src, size % 8);
#else
	memcpy(dst, src, size);
#endif
}

struct consumer {
	pthread_t th;
	int efd;
	atomic_bool stop;
	unsigned char *const *bufs;
	unsigned long nbuf;
	uint64_t got;		/* frames taken */
	unsigned int sum;	/* first byte of each, so that it is read */
};

/* Sleep in poll() until the producer says a buffer is done; take it. */
static void *consumer_main(void *arg)
{
	struct consumer *c = arg;
	struct pollfd p = { .fd = c->efd, .events = POLLIN };
	uint64_t n;

	while (!atomic_load(&c->stop)) {
		if (poll(&p, 1, 1000) <= 0)
			continue;
		if (read(c->efd, &n, sizeof(n)) != sizeof(n))
			continue;
		for (; n; n--, c->got++)
			c->sum += c->bufs[c->got % c->nbuf][0];
	}
	return NULL;
}

int bench_memcpy_main(int argc, char **argv)
{
	struct sopts o = { .cmd = "memcpy" };
	unsigned char *src, *dst[MAX_BUFS];
	struct bench_snap a, b;
	struct bench_json j;
	struct frames fr = { 0 };
	uint64_t period, base, k, t0;
	double tight_ms, kcopy_ms = NAN, wall_ms;
	bool started = false;
	char path[] = "/tmp/vivpoll-bench-XXXXXX";
	struct consumer cons = { .efd = -1 };
	size_t size, i;
	int reps = 10, fd;
	const uint64_t one = 1;

	parse(argc, argv, &o);
	if (o.fastest)
		bench_usage_error("memcpy", "--fastest makes no sense here", NULL);
	/* the reader thread inherits the CPU */
	if (bench_pin(o.cpu))
		return bench_fail("memcpy", "cannot run on CPU %d", o.cpu);
	size = (size_t)o.w * o.h * bench_bpp(o.fourcc);
	src = malloc(size);
	if (!src)
		return bench_fail("memcpy", "out of memory");
	for (i = 0; i < size; i++)
		src[i] = (unsigned char)(i * 7 + (i >> 12));
	for (i = 0; i < o.nbuf; i++) {
		dst[i] = malloc(size);
		if (!dst[i])
			return bench_fail("memcpy", "out of memory");
		memset(dst[i], 0x55, size);
	}
	fr.cap = (size_t)((o.dur_ms / 1000.0 + 2) * o.fps * 2) + 64;
	fr.lat_ms = calloc(fr.cap, sizeof(*fr.lat_ms));
	if (!fr.lat_ms)
		return bench_fail("memcpy", "out of memory");

	/* unpaced: CPU time of one user-space copy */
	t0 = bench_thread_cpu_ns();
	wall_ms = vp_now_ns();
	for (k = 0; k < (uint64_t)reps; k++) {
		copy_frame(dst[k % o.nbuf], src, size);
		touch(dst[k % o.nbuf]);
	}
	tight_ms = (bench_thread_cpu_ns() - t0) / 1e6 / reps;
	wall_ms = (vp_now_ns() - wall_ms) / 1e6 / reps;

	/* one kernel copy (copy_to_user from the page cache of a tmpfs file) */
	fd = mkstemp(path);
	if (fd >= 0) {
		unlink(path);
		if (write(fd, src, size) == (ssize_t)size) {
			t0 = bench_thread_cpu_ns();
			for (k = 0; k < (uint64_t)reps; k++)
				if (pread(fd, dst[k % o.nbuf], size, 0) != (ssize_t)size)
					break;
			if (k == (uint64_t)reps)
				kcopy_ms = (bench_thread_cpu_ns() - t0) / 1e6 / reps;
		}
		close(fd);
	}

	if (o.consumer) {
		cons.efd = eventfd(0, EFD_CLOEXEC);
		cons.bufs = dst;
		cons.nbuf = o.nbuf;
		if (cons.efd < 0)
			return bench_fail("memcpy", "eventfd failed");
		if (pthread_create(&cons.th, NULL, consumer_main, &cons))
			return bench_fail("memcpy", "pthread_create failed");
	}

	/* paced, like a producer thread */
	period = 1000000000ull / o.fps;
	base = vp_now_ns() + period;
	for (k = 0;; k++) {
		uint64_t due = base + k * period, now;
		struct timespec ts = {
			(time_t)(due / 1000000000ull), (long)(due % 1000000000ull)
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		copy_frame(dst[k % o.nbuf], src, size);
		touch(dst[k % o.nbuf]);
		if (o.consumer && write(cons.efd, &one, sizeof(one)) != sizeof(one))
			return bench_fail("memcpy", "eventfd write failed");
		now = vp_now_ns();
		if (!started) {
			if (now - base >= o.warm_ms * 1000000ull) {
				bench_snap(&a, 0);
				started = true;
			}
			continue;
		}
		if (fr.n < fr.cap)
			fr.lat_ms[fr.n++] = ((double)now - (double)due) / 1e6;
		if (now - due <= period)
			fr.on_time++;
		if (now > a.t_ns && now - a.t_ns >= o.dur_ms * 1000000ull)
			break;
	}
	bench_snap_end(&b, 0);
	if (o.consumer) {
		atomic_store(&cons.stop, true);
		if (write(cons.efd, &one, sizeof(one)) != sizeof(one))
			return bench_fail("memcpy", "eventfd write failed");
		pthread_join(cons.th, NULL);
		close(cons.efd);
	}

	{
		double win = (b.t_ns - a.t_ns) / 1e9;
		char fcc[8];

		bj_begin(&j, "memcpy");
		bj_str(&j, "driver", o.consumer ? "memcpy_wake" : "memcpy");
		if (o.consumer) {
			bj_int(&j, "consumer_frames", (long long)cons.got);
			bj_int(&j, "consumer_sum", cons.sum);
		}
		bj_int(&j, "width", o.w);
		bj_int(&j, "height", o.h);
		bj_str(&j, "fourcc", vp_fourcc_str(o.fourcc, fcc));
		bj_int(&j, "bytes", (long long)size);
		bj_num(&j, "fps_set", (double)o.fps);
		bj_int(&j, "buffers", (long long)o.nbuf);
		bj_str(&j, "cpus", o.cpu < 0 ? "any" : "same");
		bj_int(&j, "frames", (long long)fr.n);
		bj_int(&j, "gaps", 0);
		bj_num(&j, "expected", win * o.fps);
		bj_num(&j, "fps", fr.n / win);
		bj_int(&j, "on_time", (long long)fr.on_time);
		bj_num(&j, "lat_p50_ms", bench_pct(fr.lat_ms, fr.n, 0.5));
		bj_num(&j, "lat_p99_ms", bench_pct(fr.lat_ms, fr.n, 0.99));
		bj_num(&j, "copy_cpu_ms", tight_ms);
		bj_num(&j, "copy_wall_ms", wall_ms);
		bj_num(&j, "kcopy_cpu_ms", kcopy_ms);
		bench_json_cpu(&j, &a, &b, 0);
		bj_end(&j);
	}
	for (i = 0; i < o.nbuf; i++)
		free(dst[i]);
	free(src);
	free(fr.lat_ms);
	return 0;
}
