// SPDX-License-Identifier: GPL-2.0
/*
 * 44-queue-ctrls: buffer counts and sizes, and what the controls say.
 *
 * - VIDIOC_REQBUFS gets the count it asks for, 4 or 2 (what GStreamer
 *   1.22's v4l2src asks for: more would make it warn), 1 is raised to 2
 *   (vivid's minimum), and the driver has no "Min Number of Capture
 *   Buffers" control (v4l2-compliance 1.32: for stateful decoders only);
 * - VIDIOC_CREATE_BUFS for 1 buffer gets exactly 1, never more;
 * - VIDIOC_CREATE_BUFS of 1 buffer of 256 MiB or 3.75 GiB fails (or gets
 *   at most one buffer), and the kernel log stays quiet (no vmalloc error,
 *   no allocation failure, no OOM);
 * - after streaming, VIDIOC_LOG_STATUS logs the "Frames Produced" count
 *   the control reads;
 * - the driver's controls are in a class of their own (a ctrl_class
 *   control), and no module parameter is writable (n_devs must be
 *   listed).
 * - while it streams, the engine thread's name fits TASK_COMM_LEN: its
 *   task comm (ps, trace events) is its whole name.
 *
 * The controls are found by name, so that the test says what is wrong
 * whatever IDs the driver uses.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "common.h"
#include "lib.h"

#define CAP	V4L2_BUF_TYPE_VIDEO_CAPTURE

/* The ID of the control called name, 0 if there is none */
static uint32_t ctrl_by_name(int fd, const char *name,
			     struct v4l2_query_ext_ctrl *out)
{
	struct v4l2_query_ext_ctrl q;

	memset(&q, 0, sizeof(q));
	q.id = V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;
	while (!ioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q)) {
		if (!strcmp(q.name, name)) {
			if (out)
				*out = q;
			return q.id;
		}
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;
	}
	return 0;
}

/* CREATE_BUFS of count buffers of size bytes: the count it got or -errno */
static int create_bufs(int fd, unsigned int count, uint32_t size)
{
	struct v4l2_create_buffers cb;

	memset(&cb, 0, sizeof(cb));
	cb.count = count;
	cb.memory = V4L2_MEMORY_MMAP;
	cb.format.type = CAP;
	if (ioctl(fd, VIDIOC_G_FMT, &cb.format))
		return -errno;
	if (size)
		cb.format.fmt.pix.sizeimage = size;
	if (ioctl(fd, VIDIOC_CREATE_BUFS, &cb))
		return -errno;
	return (int)cb.count;
}

static void test_buffer_counts(const char *path)
{
	static const unsigned int counts[][2] = { { 4, 4 }, { 2, 2 }, { 1, 2 } };
	int fd = vp_open(path, O_RDWR | O_NONBLOCK);
	char desc[64];
	unsigned int i;
	int n;

	if (!vt_ok(fd >= 0, "open the device", "%s", strerror(-fd))) {
		vt_not_run(7, "buffer counts", "no device");
		return;
	}
	vt_ok(vp_set_format(fd, 320, 240, V4L2_PIX_FMT_YUYV, NULL, NULL) == 0,
	      "S_FMT 320x240 YUYV", NULL);

	for (i = 0; i < VT_ARRAY_SIZE(counts); i++) {
		n = vt_reqbufs(fd, counts[i][0]);
		snprintf(desc, sizeof(desc), "REQBUFS for %u buffer(s) gets %u",
			 counts[i][0], counts[i][1]);
		vt_ok(n == (int)counts[i][1], desc, "got %d", n);
		vt_reqbufs(fd, 0);
	}
	vt_ok(!ctrl_by_name(fd, "Min Number of Capture Buffers", NULL),
	      "no \"Min Number of Capture Buffers\" control (decoders only)",
	      "the driver has one");

	n = create_bufs(fd, 1, 0);
	vt_ok(n == 1, "CREATE_BUFS for 1 buffer gets exactly 1", "got %d", n);
	n = create_bufs(fd, 1, 0);
	vt_ok(n == 1, "a second CREATE_BUFS for 1 buffer gets 1", "got %d", n);
	vt_reqbufs(fd, 0);
	close(fd);
}

static void test_huge_sizes(const char *path)
{
	static const uint32_t sizes[] = { 0xf0000000, 0x10000000 };
	unsigned int i;

	for (i = 0; i < VT_ARRAY_SIZE(sizes); i++) {
		int fd = vp_open(path, O_RDWR | O_NONBLOCK);
		char desc[96];
		int n;

		snprintf(desc, sizeof(desc), "CREATE_BUFS of 1 buffer of 0x%08x "
			 "bytes: an error or 1 buffer", sizes[i]);
		if (fd < 0) {
			vt_ok(false, desc, "open %s: %s", path, strerror(-fd));
			vt_not_run(1, "the kernel log has no splat", "no device");
			continue;
		}
		vt_klog_mark("44-queue-ctrls huge CREATE_BUFS");
		n = create_bufs(fd, 1, sizes[i]);
		vt_ok(n < 0 || n == 1, desc, "got %d buffers", n);
		if (n > 0)
			vt_reqbufs(fd, 0);
		close(fd);
		vt_klog_check();
	}
}

/* Capture n frames by mmap; returns the number dequeued */
static int stream_frames(int fd, unsigned int n)
{
	int type = CAP, got = 0, nb, i;

	nb = vt_reqbufs(fd, 4);
	if (nb <= 0)
		return nb;
	for (i = 0; i < nb; i++) {
		struct v4l2_buffer b = {
			.index = i, .type = CAP, .memory = V4L2_MEMORY_MMAP,
		};

		if (ioctl(fd, VIDIOC_QBUF, &b))
			return -errno;
	}
	if (ioctl(fd, VIDIOC_STREAMON, &type))
		return -errno;
	while (got < (int)n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct v4l2_buffer b = { .type = CAP, .memory = V4L2_MEMORY_MMAP };

		if (poll(&p, 1, 5000 * vt_scale()) != 1)
			break;
		if (ioctl(fd, VIDIOC_DQBUF, &b))
			break;
		got++;
		ioctl(fd, VIDIOC_QBUF, &b);
	}
	ioctl(fd, VIDIOC_STREAMOFF, &type);
	vt_reqbufs(fd, 0);
	return got;
}

static void test_log_status(const char *path)
{
	int fd = vp_open(path, O_RDWR | O_NONBLOCK);
	uint32_t id;
	int64_t frames = -1;
	char want[64], *log, *p, *last = NULL;
	long long logged = -1;
	int got;

	if (!vt_ok(fd >= 0, "open the device for LOG_STATUS", "%s", strerror(-fd)))
		return;
	vp_set_format(fd, 320, 240, V4L2_PIX_FMT_YUYV, NULL, NULL);
	got = stream_frames(fd, 10);
	vt_ok(got == 10, "stream 10 frames", "got %d", got);
	id = ctrl_by_name(fd, "Frames Produced", NULL);
	if (id)
		vp_ctrl_get64(fd, id, &frames);
	vt_klog_mark("44-queue-ctrls LOG_STATUS");
	ioctl(fd, VIDIOC_LOG_STATUS);
	close(fd);
	log = vt_klog_since_mark();
	snprintf(want, sizeof(want), "Frames Produced: ");
	for (p = log; p && (p = strstr(p, want)); p++)
		last = p;
	if (last)
		logged = strtoll(last + strlen(want), NULL, 10);
	vt_ok(frames >= 10 && logged == frames,
	      "LOG_STATUS logs the Frames Produced the control reads",
	      "control %" PRId64 ", logged %lld", frames, logged);
	free(log);
}

static void test_class(const char *path)
{
	static const char * const names[] = {
		"Engine Running", "Engine Starts", "Frames Produced",
		"Frames Dropped", "Camera 2 Signal Present",
	};
	struct v4l2_query_ext_ctrl q, cls;
	int fd = vp_open(path, O_RDWR | O_NONBLOCK);
	char why[256] = "";
	uint32_t which = 0;
	unsigned int i;

	if (!vt_ok(fd >= 0, "open the device for its controls", "%s", strerror(-fd)))
		return;
	for (i = 0; i < VT_ARRAY_SIZE(names); i++) {
		uint32_t id = ctrl_by_name(fd, names[i], &q);

		if (!id) {
			vt_appendf(why, sizeof(why), "no \"%s\"; ", names[i]);
			continue;
		}
		if (!which)
			which = (uint32_t)V4L2_CTRL_ID2WHICH(id);
		if (V4L2_CTRL_ID2WHICH(id) != which ||
		    which == V4L2_CTRL_CLASS_USER)
			vt_appendf(why, sizeof(why), "\"%s\" 0x%08x in class "
				   "0x%08x; ", names[i], id,
				   (unsigned int)V4L2_CTRL_ID2WHICH(id));
	}
	memset(&cls, 0, sizeof(cls));
	cls.id = which | 1;
	if (!*why && (ioctl(fd, VIDIOC_QUERY_EXT_CTRL, &cls) ||
		      cls.type != V4L2_CTRL_TYPE_CTRL_CLASS))
		snprintf(why, sizeof(why), "no ctrl_class control 0x%08x",
			 which | 1);
	vt_ok(!*why, "the driver's controls are in a class of their own "
	      "(not the user class)", "%s", why);

	close(fd);
}

/*
 * The engine thread of vivpoll-<inst>, while it streams: /proc/PID/comm
 * gives a kernel thread's whole name, /proc/PID/stat its task->comm, cut
 * to TASK_COMM_LEN - 1 (15) characters, which ps, top and every trace
 * event show: the two must be the same name ("vivpoll-0-engine" was
 * "vivpoll-0-engin" there).
 */
static void test_thread_name(const struct vt_dev *d)
{
	int fd = vp_open(d->path, O_RDWR | O_NONBLOCK);
	char prefix[32], found[256] = "";
	int type = CAP, nb, k, n = 0, whole = 0;
	size_t used = 0;
	struct dirent *e;
	DIR *proc;

	if (!vt_ok(fd >= 0, "open the device for its engine thread", "%s",
		   strerror(-fd)))
		return;
	snprintf(prefix, sizeof(prefix), "vivpoll-%d-", d->inst);
	vp_set_format(fd, 320, 240, V4L2_PIX_FMT_YUYV, NULL, NULL);
	nb = vt_reqbufs(fd, 2);
	for (k = 0; k < nb; k++) {
		struct v4l2_buffer b = {
			.index = k, .type = CAP, .memory = V4L2_MEMORY_MMAP,
		};

		ioctl(fd, VIDIOC_QBUF, &b);
	}
	proc = nb > 0 && !ioctl(fd, VIDIOC_STREAMON, &type) ? opendir("/proc") : NULL;
	while (proc && (e = readdir(proc))) {
		char path[300], comm[64], stat[256], *l, *r;

		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
		    vt_read_file(path, comm, sizeof(comm)) <= 0)
			continue;
		comm[strcspn(comm, "\n")] = 0;
		if (strncmp(comm, prefix, strlen(prefix)))
			continue;
		n++;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		stat[0] = 0;
		vt_read_file(path, stat, sizeof(stat));
		l = strchr(stat, '(');
		r = strrchr(stat, ')');
		if (l && r > l) {
			*r = 0;
			whole += !strcmp(l + 1, comm);
		}
		if (used < sizeof(found))
			used += snprintf(found + used, sizeof(found) - used,
					 "%s (task comm %s) ", comm,
					 l && r > l ? l + 1 : "?");
	}
	if (proc)
		closedir(proc);
	ioctl(fd, VIDIOC_STREAMOFF, &type);
	vt_reqbufs(fd, 0);
	close(fd);
	vt_ok(n == 1 && whole == 1, "while streaming, the one engine thread's "
	      "name fits TASK_COMM_LEN (ps and trace events show it whole)",
	      "found: %s", *found ? found : "none");
}

/*
 * The module's parameters, as sysfs lists them: there (n_devs among them:
 * the check cannot pass on an empty or missing folder), and none writable
 * at run time.
 */
static void test_module_params(void)
{
	const char *dir = "/sys/module/vivpoll/parameters";
	char why[256] = "";
	bool n_devs = false;
	struct dirent *e;
	DIR *d = opendir(dir);
	unsigned int n = 0;

	while (d && (e = readdir(d))) {
		char p[512];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		n++;
		n_devs |= !strcmp(e->d_name, "n_devs");
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (stat(p, &st)) {
			vt_appendf(why, sizeof(why), "%s: %s; ", e->d_name,
				   strerror(errno));
			continue;
		}
		if (st.st_mode & 0222)
			vt_appendf(why, sizeof(why), "%s is writable (mode "
				   "%03o); ", e->d_name, st.st_mode & 0777);
	}
	if (!d)
		snprintf(why, sizeof(why), "no %s: %s", dir, strerror(errno));
	else if (!n_devs)
		vt_appendf(why, sizeof(why), "n_devs is not among the %u "
			   "parameters listed", n);
	if (d)
		closedir(d);
	vt_ok(!*why, "the module parameters are listed, n_devs among them, "
	      "and none is writable at run time", "%s", why);
}

int main(void)
{
	struct vt_dev devs[VT_MAX_DEVS];
	int n;

	vt_begin("44-queue-ctrls: buffer counts and sizes, the controls");
	/* device, counts, LOG_STATUS, class, thread name, parameters, huge */
	vt_plan(1 + 8 + 3 + 2 + 2 + 1 + 4);
	n = vt_devices(devs, VT_MAX_DEVS);
	if (!vt_ok(n > 0, "a vivpoll device exists", "none found"))
		return vt_end();
	test_buffer_counts(devs[0].path);
	test_log_status(devs[0].path);
	test_class(devs[0].path);
	test_thread_name(&devs[0]);
	test_module_params();
	/* last: without a limit, these run the guest out of memory */
	test_huge_sizes(devs[0].path);
	return vt_end();
}
