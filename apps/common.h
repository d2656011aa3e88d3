/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the vivpoll userspace programs: find and open a
 * vivpoll capture device, set its format and frame rate, record what its
 * .poll is asked (the vivpoll_poll trace event), subscribe to events, read/write the
 * fs.poll_legacy_null_table sysctl, and a few time/parse utilities.
 *
 * All functions return 0 (or a file descriptor) on success and a negative
 * errno value on failure unless stated otherwise; none of them exits.
 */
#ifndef VIVPOLL_COMMON_H
#define VIVPOLL_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <linux/videodev2.h>

#include "vivpoll-cids.h"

#define VP_DRIVER_NAME		"vivpoll"
#define VP_SYSCTL_PATH		"/proc/sys/fs/poll_legacy_null_table"

/* Exit status for bad command-line arguments, shared by all programs. */
#define VP_EXIT_USAGE		2

/* ---- devices ---------------------------------------------------------- */

/*
 * Find the first /dev/videoN whose driver is "vivpoll" and write its path to
 * buf. Returns 0 or -ENODEV.
 */
int vp_find_device(char *buf, size_t len);

/*
 * open() the device (flags as for open(2)) and check that it is a vivpoll
 * video capture device. If dev is NULL or "", vp_find_device() is used.
 * Returns the fd or a negative errno (-ENOTTY: not a vivpoll device).
 */
int vp_open(const char *dev, int flags);

/* The instance number N of "platform:vivpoll.N" (bus_info, the platform device), or -errno. */
int vp_instance(int fd);

/*
 * The ioctl to use for the format helpers: ioctl() (NULL) or, for a device
 * opened through libv4l2, v4l2_ioctl, so that libv4l2 sees the format.
 */
typedef int (*vp_ioctl_fn)(int fd, unsigned long request, ...);

/*
 * Set the capture format; *fmt (may be NULL) gets what the driver chose.
 * Returns -EINVAL if that differs from the request.
 */
int vp_set_format(int fd, unsigned int width, unsigned int height,
		  uint32_t fourcc, struct v4l2_format *fmt, vp_ioctl_fn io);

/* Set (VIDIOC_S_PARM) or get the capture frame rate in frames/s. */
int vp_set_fps(int fd, unsigned int fps, double *actual, vp_ioctl_fn io);
int vp_get_fps(int fd, double *fps, vp_ioctl_fn io);

/* ---- controls and events ---------------------------------------------- */

int vp_ctrl_get(int fd, uint32_t id, int32_t *val);
int vp_ctrl_set(int fd, uint32_t id, int32_t val);
int vp_ctrl_get64(int fd, uint32_t id, int64_t *val);
int vp_ctrl_query(int fd, uint32_t id, struct v4l2_query_ext_ctrl *q);

/* VIDIOC_SUBSCRIBE_EVENT for (type, id) with the given flags. */
int vp_subscribe(int fd, uint32_t type, uint32_t id, uint32_t flags);

/* Human-readable one-line description of an event (no newline). */
void vp_event_describe(int fd, const struct v4l2_event *ev, char *buf,
		       size_t len);

/* Name of an event type ("ctrl", "eos", ...), static storage. */
const char *vp_event_type_name(uint32_t type);

/* ---- the vivpoll_poll trace event ----------------------------------------- */

/*
 * What the driver's .poll is asked: the vivpoll:vivpoll_poll trace event
 * (one per call, with poll_requested_events()) of one device, recorded in
 * a tracefs instance of the caller's own, so that nobody else's tracing is
 * disturbed. Needs root and tracefs (/sys/kernel/tracing, or debugfs).
 */
struct vp_polltrace {
	char dir[128];		/* the tracefs instance */
};

/* Create the instance and record the .poll calls of device inst. */
int vp_polltrace_open(struct vp_polltrace *t, int inst);

/* Forget what was recorded so far. */
int vp_polltrace_reset(struct vp_polltrace *t);

/*
 * Since the last reset: the .poll calls (calls) and the OR of the events
 * they asked for (seen). Either may be NULL.
 */
int vp_polltrace_read(struct vp_polltrace *t, uint64_t *calls,
		      uint32_t *seen);

/* Stop recording and remove the instance. */
void vp_polltrace_close(struct vp_polltrace *t);

/*
 * The engine start counter of the device open as fd: the
 * VIVPOLL_CID_ENGINE_STARTS control (inst is not used).
 */
int vp_engine_starts(int fd, int inst, uint64_t *val);

/* ---- fs.poll_legacy_null_table ---------------------------------------- */

bool vp_sysctl_present(void);
int vp_sysctl_read(int *val);
int vp_sysctl_write(int val);

/* ---- misc --------------------------------------------------------------- */

/* CLOCK_MONOTONIC in nanoseconds / milliseconds. */
uint64_t vp_now_ns(void);
static inline double vp_now_ms(void) { return vp_now_ns() / 1e6; }
void vp_sleep_ms(unsigned int ms);

/* "640x480" -> 640, 480. Returns 0 or -EINVAL. */
int vp_parse_size(const char *s, unsigned int *w, unsigned int *h);

/* "YUYV" -> V4L2_PIX_FMT_YUYV (any 1-4 character code). -EINVAL if bad. */
int vp_parse_fourcc(const char *s, uint32_t *fourcc);

/* V4L2_PIX_FMT_YUYV -> "YUYV" in buf (at least 5 bytes). */
const char *vp_fourcc_str(uint32_t fourcc, char *buf);

/* Strict unsigned integer parse with range check. Returns 0 or -EINVAL. */
int vp_parse_uint(const char *s, unsigned long min, unsigned long max,
		  unsigned long *val);

/* Decimal/fractional seconds ("2", "0.5") -> milliseconds. */
int vp_parse_seconds(const char *s, unsigned long *ms);

/* Bits of a poll mask as "PRI|IN|..." (or "ALL" for ~0). */
const char *vp_poll_mask_str(uint32_t mask, char *buf, size_t len);

#endif
