// SPDX-License-Identifier: GPL-2.0
/* Shared helpers for the vivpoll programs; see common.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>

#include "common.h"

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

/* ---- devices ---------------------------------------------------------- */

static int check_vivpoll(int fd)
{
	struct v4l2_capability cap;
	uint32_t caps;
	int r;

	memset(&cap, 0, sizeof(cap));
	r = xioctl(fd, VIDIOC_QUERYCAP, &cap);
	if (r < 0)
		return r == -ENOTTY ? -ENOTTY : r;
	if (strcmp((const char *)cap.driver, VP_DRIVER_NAME))
		return -ENOTTY;
	caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ?
		cap.device_caps : cap.capabilities;
	if (!(caps & V4L2_CAP_VIDEO_CAPTURE))
		return -ENOTTY;
	return 0;
}

int vp_find_device(char *buf, size_t len)
{
	char path[32];
	int i, fd;

	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "/dev/video%d", i);
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!check_vivpoll(fd)) {
			close(fd);
			snprintf(buf, len, "%s", path);
			return 0;
		}
		close(fd);
	}
	return -ENODEV;
}

int vp_open(const char *dev, int flags)
{
	char path[64];
	int fd, r;

	if (!dev || !*dev) {
		r = vp_find_device(path, sizeof(path));
		if (r < 0)
			return r;
		dev = path;
	} else if (isdigit((unsigned char)dev[0])) {
		snprintf(path, sizeof(path), "/dev/video%.50s", dev);
		dev = path;
	}
	fd = open(dev, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = check_vivpoll(fd);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int vp_instance(int fd)
{
	struct v4l2_capability cap;
	const char *p;
	char *end;
	long n;
	int r;

	memset(&cap, 0, sizeof(cap));
	r = xioctl(fd, VIDIOC_QUERYCAP, &cap);
	if (r < 0)
		return r;
	p = strrchr((const char *)cap.bus_info, '.');
	if (!p)
		return -EINVAL;
	n = strtol(p + 1, &end, 10);
	if (end == p + 1 || *end || n < 0)
		return -EINVAL;
	return (int)n;
}

static int do_ioctl(vp_ioctl_fn io, int fd, unsigned long req, void *arg)
{
	int r;

	if (!io)
		return xioctl(fd, req, arg);
	do {
		r = io(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

int vp_set_format(int fd, unsigned int width, unsigned int height,
		  uint32_t fourcc, struct v4l2_format *out, vp_ioctl_fn io)
{
	struct v4l2_format fmt;
	int r;

	memset(&fmt, 0, sizeof(fmt));
	fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	r = do_ioctl(io, fd, VIDIOC_G_FMT, &fmt);
	if (r < 0)
		return r;
	fmt.fmt.pix.width = width;
	fmt.fmt.pix.height = height;
	fmt.fmt.pix.pixelformat = fourcc;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	fmt.fmt.pix.bytesperline = 0;
	fmt.fmt.pix.sizeimage = 0;
	r = do_ioctl(io, fd, VIDIOC_S_FMT, &fmt);
	if (out)
		*out = fmt;
	if (r < 0)
		return r;
	if (fmt.fmt.pix.width != width || fmt.fmt.pix.height != height ||
	    fmt.fmt.pix.pixelformat != fourcc)
		return -EINVAL;
	return 0;
}

static double tpf_fps(const struct v4l2_fract *tpf)
{
	return tpf->numerator ? (double)tpf->denominator / tpf->numerator : 0;
}

int vp_set_fps(int fd, unsigned int fps, double *actual, vp_ioctl_fn io)
{
	struct v4l2_streamparm parm;
	int r;

	memset(&parm, 0, sizeof(parm));
	parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	parm.parm.capture.timeperframe.numerator = 1;
	parm.parm.capture.timeperframe.denominator = fps;
	r = do_ioctl(io, fd, VIDIOC_S_PARM, &parm);
	if (r < 0)
		return r;
	if (actual)
		*actual = tpf_fps(&parm.parm.capture.timeperframe);
	return 0;
}

int vp_get_fps(int fd, double *fps, vp_ioctl_fn io)
{
	struct v4l2_streamparm parm;
	int r;

	memset(&parm, 0, sizeof(parm));
	parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	r = do_ioctl(io, fd, VIDIOC_G_PARM, &parm);
	if (r < 0)
		return r;
	*fps = tpf_fps(&parm.parm.capture.timeperframe);
	return 0;
}

/* ---- controls and events ---------------------------------------------- */

int vp_ctrl_get(int fd, uint32_t id, int32_t *val)
{
	struct v4l2_control c = { .id = id };
	int r = xioctl(fd, VIDIOC_G_CTRL, &c);

	if (r < 0)
		return r;
	*val = c.value;
	return 0;
}

int vp_ctrl_set(int fd, uint32_t id, int32_t val)
{
	struct v4l2_control c = { .id = id, .value = val };
	int r = xioctl(fd, VIDIOC_S_CTRL, &c);

	return r < 0 ? r : 0;
}

int vp_ctrl_get64(int fd, uint32_t id, int64_t *val)
{
	struct v4l2_ext_control c;
	struct v4l2_ext_controls cs;
	int r;

	memset(&c, 0, sizeof(c));
	memset(&cs, 0, sizeof(cs));
	c.id = id;
	cs.which = V4L2_CTRL_WHICH_CUR_VAL;
	cs.count = 1;
	cs.controls = &c;
	r = xioctl(fd, VIDIOC_G_EXT_CTRLS, &cs);
	if (r < 0)
		return r;
	*val = c.value64;
	return 0;
}

int vp_ctrl_query(int fd, uint32_t id, struct v4l2_query_ext_ctrl *q)
{
	memset(q, 0, sizeof(*q));
	q->id = id;
	return xioctl(fd, VIDIOC_QUERY_EXT_CTRL, q);
}

int vp_subscribe(int fd, uint32_t type, uint32_t id, uint32_t flags)
{
	struct v4l2_event_subscription sub;

	memset(&sub, 0, sizeof(sub));
	sub.type = type;
	sub.id = id;
	sub.flags = flags;
	return xioctl(fd, VIDIOC_SUBSCRIBE_EVENT, &sub);
}

const char *vp_event_type_name(uint32_t type)
{
	switch (type) {
	case V4L2_EVENT_VSYNC: return "vsync";
	case V4L2_EVENT_EOS: return "eos";
	case V4L2_EVENT_CTRL: return "ctrl";
	case V4L2_EVENT_FRAME_SYNC: return "frame_sync";
	case V4L2_EVENT_SOURCE_CHANGE: return "source_change";
	case V4L2_EVENT_MOTION_DET: return "motion_det";
	default: return "unknown";
	}
}

static void describe_ctrl(int fd, const struct v4l2_event *ev, char *buf,
			  size_t len)
{
	const struct v4l2_event_ctrl *c = &ev->u.ctrl;
	struct v4l2_query_ext_ctrl q;
	char name[40] = "?";
	char value[48];

	if (fd >= 0 && !vp_ctrl_query(fd, ev->id, &q))
		snprintf(name, sizeof(name), "%s", q.name);
	if (c->type == V4L2_CTRL_TYPE_INTEGER64)
		snprintf(value, sizeof(value), "%" PRId64, (int64_t)c->value64);
	else
		snprintf(value, sizeof(value), "%d", c->value);
	snprintf(buf, len,
		 "ctrl id=0x%08x (%s) seq=%u changes=%s%s%s value=%s "
		 "flags=0x%x range=[%d..%d/%d]",
		 ev->id, name, ev->sequence,
		 (c->changes & V4L2_EVENT_CTRL_CH_VALUE) ? "value," : "",
		 (c->changes & V4L2_EVENT_CTRL_CH_FLAGS) ? "flags," : "",
		 (c->changes & V4L2_EVENT_CTRL_CH_RANGE) ? "range," : "",
		 value, c->flags, c->minimum, c->maximum, c->step);
}

void vp_event_describe(int fd, const struct v4l2_event *ev, char *buf,
		       size_t len)
{
	switch (ev->type) {
	case V4L2_EVENT_CTRL:
		describe_ctrl(fd, ev, buf, len);
		break;
	case V4L2_EVENT_SOURCE_CHANGE:
		snprintf(buf, len,
			 "source_change input=%u seq=%u changes=0x%x%s",
			 ev->id, ev->sequence, ev->u.src_change.changes,
			 (ev->u.src_change.changes &
			  V4L2_EVENT_SRC_CH_RESOLUTION) ? " (resolution)" : "");
		break;
	case V4L2_EVENT_EOS:
		snprintf(buf, len, "eos seq=%u", ev->sequence);
		break;
	case V4L2_EVENT_FRAME_SYNC:
		snprintf(buf, len, "frame_sync seq=%u frame_sequence=%u",
			 ev->sequence, ev->u.frame_sync.frame_sequence);
		break;
	case V4L2_EVENT_VSYNC:
		snprintf(buf, len, "vsync seq=%u field=%u", ev->sequence,
			 ev->u.vsync.field);
		break;
	default:
		snprintf(buf, len, "type=0x%x id=%u seq=%u", ev->type, ev->id,
			 ev->sequence);
		break;
	}
}

/* ---- files ------------------------------------------------------------- */

static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = 0;
	return 0;
}

static int write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static int parse_u64(const char *s, uint64_t *val)
{
	unsigned long long v;
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	errno = 0;
	v = strtoull(s, &end, 0);	/* base 0: accepts 0x... and decimal */
	if (errno || end == s)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*val = v;
	return 0;
}

/* ---- the vivpoll_poll trace event ----------------------------------------- */

static int polltrace_write(const struct vp_polltrace *t, const char *name,
			   const char *s)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	return write_file(path, s);
}

int vp_polltrace_open(struct vp_polltrace *t, int inst)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char filter[32];
	struct stat st;
	unsigned int i;
	int r = -ENOENT;

	t->dir[0] = 0;
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char path[96];

		snprintf(path, sizeof(path), "%s/events/vivpoll/vivpoll_poll",
			 roots[i]);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(t->dir, sizeof(t->dir), "%s/instances/vivpoll-%d-%d",
			 roots[i], (int)getpid(), inst);
		r = mkdir(t->dir, 0700) && errno != EEXIST ? -errno : 0;
		break;
	}
	if (r) {
		t->dir[0] = 0;
		return r;
	}
	/* reading "trace" must not pause the recording (5.12+) */
	r = polltrace_write(t, "options/pause-on-trace", "0");
	snprintf(filter, sizeof(filter), "inst == %d", inst);
	if (!r)
		r = polltrace_write(t, "events/vivpoll/vivpoll_poll/filter",
				    filter);
	if (!r)
		r = polltrace_write(t, "events/vivpoll/vivpoll_poll/enable",
				    "1");
	if (!r)
		r = vp_polltrace_reset(t);
	if (r)
		vp_polltrace_close(t);
	return r;
}

int vp_polltrace_reset(struct vp_polltrace *t)
{
	char path[192];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", t->dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * The calls come from the header's "entries-in-buffer/entries-written:
 * N/M" (M counts events the ring buffer may have overwritten), the masks
 * from the event lines.
 */
int vp_polltrace_read(struct vp_polltrace *t, uint64_t *calls,
		      uint32_t *seen)
{
	unsigned long long in = 0, written = 0;
	char path[192], line[512];
	bool header = false;
	uint32_t mask = 0;
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
		if (p && sscanf(p, "vivpoll_poll: inst=%u req=%x", &inst,
				&req) == 2)
			mask |= req;
	}
	fclose(f);
	if (!header)
		return -EIO;
	if (calls)
		*calls = written;
	if (seen)
		*seen = mask;
	return 0;
}

void vp_polltrace_close(struct vp_polltrace *t)
{
	if (!t->dir[0])
		return;
	polltrace_write(t, "events/vivpoll/vivpoll_poll/enable", "0");
	rmdir(t->dir);
	t->dir[0] = 0;
}

int vp_engine_starts(int fd, int inst, uint64_t *val)
{
	int64_t v;
	int r;

	(void)inst;
	r = vp_ctrl_get64(fd, VIVPOLL_CID_ENGINE_STARTS, &v);
	if (r < 0)
		return r;
	*val = (uint64_t)v;
	return 0;
}

/* ---- fs.poll_legacy_null_table ---------------------------------------- */

bool vp_sysctl_present(void)
{
	return access(VP_SYSCTL_PATH, F_OK) == 0;
}

int vp_sysctl_read(int *val)
{
	char buf[32];
	uint64_t v;
	int r = read_file(VP_SYSCTL_PATH, buf, sizeof(buf));

	if (r < 0)
		return r;
	r = parse_u64(buf, &v);
	if (r < 0)
		return r;
	*val = (int)v;
	return 0;
}

int vp_sysctl_write(int val)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d\n", val);
	return write_file(VP_SYSCTL_PATH, buf);
}

/* ---- misc --------------------------------------------------------------- */

uint64_t vp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void vp_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int vp_parse_uint(const char *s, unsigned long min, unsigned long max,
		  unsigned long *val)
{
	unsigned long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

int vp_parse_seconds(const char *s, unsigned long *ms)
{
	double v;
	char *end;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || v < 0 || v > 86400)
		return -EINVAL;
	*ms = (unsigned long)(v * 1000 + 0.5);
	return 0;
}

int vp_parse_size(const char *s, unsigned int *w, unsigned int *h)
{
	unsigned long a, b;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	a = strtoul(s, &end, 10);
	if (*end != 'x' && *end != 'X')
		return -EINVAL;
	s = end + 1;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	b = strtoul(s, &end, 10);
	if (*end || !a || !b || a > 16384 || b > 16384)
		return -EINVAL;
	*w = a;
	*h = b;
	return 0;
}

int vp_parse_fourcc(const char *s, uint32_t *fourcc)
{
	char c[4] = { ' ', ' ', ' ', ' ' };
	size_t i, n = s ? strlen(s) : 0;

	if (n < 1 || n > 4)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!isprint((unsigned char)s[i]))
			return -EINVAL;
		c[i] = s[i];
	}
	*fourcc = v4l2_fourcc(c[0], c[1], c[2], c[3]);
	return 0;
}

const char *vp_fourcc_str(uint32_t f, char *buf)
{
	buf[0] = f & 0xff;
	buf[1] = (f >> 8) & 0xff;
	buf[2] = (f >> 16) & 0xff;
	buf[3] = (f >> 24) & 0x7f;
	buf[4] = 0;
	return buf;
}

const char *vp_poll_mask_str(uint32_t mask, char *buf, size_t len)
{
	static const struct { uint32_t bit; const char *name; } bits[] = {
		{ POLLIN, "IN" }, { POLLPRI, "PRI" }, { POLLOUT, "OUT" },
		{ POLLERR, "ERR" }, { POLLHUP, "HUP" }, { POLLNVAL, "NVAL" },
		{ POLLRDNORM, "RDNORM" }, { POLLRDBAND, "RDBAND" },
		{ POLLWRNORM, "WRNORM" }, { POLLWRBAND, "WRBAND" },
		{ POLLMSG, "MSG" }, { POLLRDHUP, "RDHUP" },
	};
	size_t i, used = 0;

	if (mask == 0xffffffffu) {
		snprintf(buf, len, "ALL");
		return buf;
	}
	buf[0] = 0;
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (!(mask & bits[i].bit))
			continue;
		used += snprintf(buf + used, len > used ? len - used : 0,
				 "%s%s", used ? "|" : "", bits[i].name);
		mask &= ~bits[i].bit;
	}
	if (mask)
		used += snprintf(buf + used, len > used ? len - used : 0,
				 "%s0x%x", used ? "|" : "", mask);
	if (!used)
		snprintf(buf, len, "0");
	return buf;
}
