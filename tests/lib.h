/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The helper library of the vivpoll C tests (tests/lib.c, and the users of
 * a device under unbind and rmmod, tests/users.c), which tests/Makefile
 * links, with apps/common.o, into every tests/NN-*.c program: TAP output
 * with the plan stated first, option parsing, VIVPOLL_SCALE and
 * VIVPOLL_TIER, a seeded PRNG, sysfs and module reload, device discovery,
 * counter snapshots, streaming and a short capture, kmemleak, the kernel
 * log against the splat list, reaping children, the switch and each .poll
 * call's requested events, a thread seen asleep in a syscall, errno names,
 * and the checks each stress test runs when it is done (vt_health()).
 *
 * Every check prints one TAP line at column 0; a suite states how many
 * before the first (vt_plan()); vt_end() returns a non-zero exit status if
 * any check failed or the plan was not met. Unless stated otherwise, the
 * functions return 0 on success and a negative errno value on failure.
 * tests/lib.sh is the same for the shell suites.
 */
#ifndef VIVPOLL_TESTS_LIB_H
#define VIVPOLL_TESTS_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/videodev2.h>

#define VT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define VT_MAX_DEVS		8
#define VT_DRV_DIR		"/sys/bus/platform/drivers/vivpoll"
#define VT_PDEV			"vivpoll.0"	/* the platform device */
#define VT_KMEMLEAK		"/sys/kernel/debug/kmemleak"
/* The fastest frame interval of the driver is 1/60 s. */
#define VT_MAX_FPS		60

/* ---- scale, TAP --------------------------------------------------------- */

/* VIVPOLL_SCALE: 1 by default, larger on slow (debug) kernels. */
unsigned int vt_scale(void);

/*
 * VIVPOLL_TIER=quick (make check): the short version of the reliability
 * tests, a few seconds each; "full" (make check-full) and the debug kernel
 * run them for their whole length.
 */
bool vt_quick(void);

/* "TAP version 13" and what the test is about, as a diagnostic. */
void vt_begin(const char *what);
/* "1..n": how many results follow, stated before the first. */
void vt_plan(unsigned int n);
/* A TAP diagnostic line ("# ..."), printf format. */
void vt_diag(const char *fmt, ...);
/* One TAP line; the reason (printf format, may be NULL) only on failure. */
bool vt_ok(bool ok, const char *desc, const char *why, ...);
void vt_skip(const char *desc, const char *why);
/* n failed results "desc # not run: why", for checks a failure skipped */
void vt_not_run(unsigned int n, const char *desc, const char *why);
/* The exit status: 1 if a check failed or the plan was not met. */
int vt_end(void);
/* Append to the NUL-terminated reason in buf (of len bytes), printf format. */
void vt_appendf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- options ------------------------------------------------------------- */

/* --name N, N in [min, max], into *val; or, with flag, --name sets *flag */
struct vt_opt {
	const char *name;
	unsigned long min, max;
	unsigned long *val;
	bool *flag;
};

/*
 * Parse the command line: the options of opts (ended by a NULL name) and,
 * with seed, --seed N. Anything else prints a usage line and exits with
 * VP_EXIT_USAGE.
 */
void vt_options(int argc, char **argv, const struct vt_opt *opts,
		uint64_t *seed);

/* ---- PRNG: splitmix64, deterministic for a given seed ------------------ */

struct vt_rng {
	uint64_t s;
};

uint64_t vt_rand64(struct vt_rng *r);
uint32_t vt_rand32(struct vt_rng *r);
/* Uniform in [0, n), n > 0. */
uint32_t vt_below(struct vt_rng *r, uint32_t n);
/* true with probability 1/n */
bool vt_one_in(struct vt_rng *r, uint32_t n);
uint64_t vt_default_seed(void);

/* ---- files, sysfs, module -------------------------------------------- */

/* Write s to path (one write()); -EIO if it was short. */
int vt_write_file(const char *path, const char *s);
/* Read a whole (small) file into buf, NUL terminated; length or -errno. */
ssize_t vt_read_file(const char *path, char *buf, size_t len);
bool vt_module_loaded(void);
/* Is VT_PDEV bound to the vivpoll driver? */
bool vt_pdev_bound(void);
/* delete_module("vivpoll", O_NONBLOCK): 0 or -errno (EWOULDBLOCK: in use) */
int vt_rmmod(void);
/* modprobe vivpoll with the given parameters ("" or NULL for the defaults) */
int vt_modprobe(const char *params);
/*
 * rmmod (retrying for up to wait_ms while the module is in use, e.g. by
 * exiting children) and modprobe with the given parameters ("" or NULL for
 * the defaults). 0 or -errno; *why gets a reason on failure.
 */
int vt_reload(const char *params, unsigned int wait_ms, const char **why);

/* ---- devices ------------------------------------------------------------ */

struct vt_dev {
	char path[32];
	int inst;
};

/* The vivpoll video nodes, sorted by instance; returns their number. */
int vt_devices(struct vt_dev *devs, int max);
/* /dev/videoN of platform device vivpoll.<inst>, waiting up to wait_ms. */
int vt_find_pdev_node(int inst, char *buf, size_t len, unsigned int wait_ms);

/* ---- counters ----------------------------------------------------------- */

struct vt_counts {
	bool present;
	uint64_t starts, frames, drops, running;
};

struct vt_snap {
	uint64_t t_ns;
	struct vt_counts c[VT_MAX_DEVS];
};

/* The counter controls of vivpoll-<inst>; c->present says if there are. */
int vt_read_counts(int inst, struct vt_counts *c);
void vt_snapshot(struct vt_snap *s);
/*
 * Wait up to ms for every present engine to be stopped; running instances
 * are written to buf. true if all are stopped.
 */
bool vt_wait_engines_stopped(unsigned int ms, char *buf, size_t len);

/*
 * The frame engine threads that run, as an admin sees them: kernel threads
 * in /proc whose name is vivpoll-<inst>-cap.
 * Returns how many; their names and pids go to buf.
 */
int vt_engine_threads(char *buf, size_t len);

/* ---- capture ------------------------------------------------------------- */

/* VIDIOC_REQBUFS of count MMAP capture buffers: the count granted or -errno */
int vt_reqbufs(int fd, unsigned int count);
/* VIDIOC_QBUF of MMAP capture buffer index */
int vt_qbuf(int fd, unsigned int index);
/*
 * VIDIOC_DQBUF of an MMAP capture buffer into *b; with ms >= 0, after a
 * poll(POLLIN) of at most ms (-ETIMEDOUT if nothing came).
 */
int vt_dqbuf(int fd, struct v4l2_buffer *b, int ms);

#define VT_MAX_BUFS		8

/* An MMAP capture queue, its buffers mapped (read-only) */
struct vt_stream {
	int fd;
	unsigned int n;
	void *mem[VT_MAX_BUFS];
	size_t len[VT_MAX_BUFS];
	const char *step;	/* the ioctl that failed, NULL on success */
	uint64_t t_streamon_ns;	/* CLOCK_MONOTONIC just before STREAMON */
};

/*
 * REQBUFS count buffers, map them all, queue the first queue of them and
 * STREAMON. On failure s->step names what failed; undo with
 * vt_stream_stop().
 */
int vt_stream_start(struct vt_stream *s, int fd, unsigned int count,
		    unsigned int queue);
/* Unmap the buffers (the queue stays). */
void vt_stream_unmap(struct vt_stream *s);
/* STREAMOFF, unmap, REQBUFS 0. */
void vt_stream_stop(struct vt_stream *s);

/*
 * Capture nframes by mmap at 320x240 YUYV, 30 fps (fast enough under TCG),
 * from input 0. Checks sequence numbers increase, bytesused is the image
 * size and timestamps increase. 0 or -errno, with a reason in why.
 */
int vt_capture(const char *path, unsigned int nframes, unsigned int ms,
	       char *why, size_t wlen);

/* ---- kmemleak ------------------------------------------------------------ */

bool vt_kmemleak_present(void);
/* Print up to max_lines lines of text as TAP diagnostics. */
void vt_diag_lines(const char *text, unsigned int max_lines);
/*
 * Before a test: show what kmemleak reports already (found by an earlier
 * scan, not this test's doing), then "clear" it.
 */
void vt_kmemleak_begin(void);
/*
 * After a test: wait until the objects are old enough to be reported
 * (5 s), scan; if anything shows up, scan again to confirm (an object
 * only referenced from a register or a stack in flight is a transient
 * false positive). The report must be empty. One result where kmemleak is
 * (vt_kmemleak_present()), none where it is not: guest/check.sh requires
 * it on the debug kernel.
 */
void vt_kmemleak_check(void);

/* ---- kernel log ------------------------------------------------------------- */

/* Write a marker to the kernel log; vt_klog_check() looks after it. */
void vt_klog_mark(const char *name);
/*
 * The kernel log after the marker, or all of it without a marker
 * (malloc()ed), or NULL.
 */
char *vt_klog_since_mark(void);
/*
 * No splat in the kernel log since vt_klog_mark(): no line matches the
 * splat list guest/check.sh and the host use (guest/splat.ere, installed
 * as /vivpoll/splat.ere; VIVPOLL_SPLAT_ERE names another file). A log or a
 * list that cannot be read fails.
 */
void vt_klog_check(void);

/* ---- the checks after each stress test ------------------------------------ */

/*
 * Counters of every instance present in both snapshots: monotonic, frames
 * plus drops at most what the engine can produce in the elapsed time, at
 * least min_frames[inst] more frames (NULL: no minimum).
 */
void vt_check_counters(const struct vt_snap *before,
		       const uint64_t *min_frames);
/*
 * Each of the n devices captures 5 frames by mmap, then every engine
 * stops: one TAP line per device and one for the engines.
 */
void vt_check_captures(const struct vt_dev *devs, int n);
/*
 * What every stress test checks at its end, with all its files closed:
 * engines stopped, counters consistent, the kernel log, kmemleak, the
 * ndevs devices are there, a short capture on each: vt_health_plan(ndevs)
 * results.
 */
void vt_health(const struct vt_snap *before, const uint64_t *min_frames,
	       int ndevs);
unsigned int vt_health_plan(int ndevs);
/* Put vivpoll back as the guest boots it: loaded with defaults, bound. */
void vt_restore_defaults(void);

/* ---- the users of a device under unbind and rmmod (users.c) -------------- */

/*
 * One cycle of the scenario: its steps, each a description and a reason
 * (empty: it passed). A cycle always fills the same number of steps: one
 * whose users could not be set up fails the rest as not run.
 */
#define VT_STEPS_MAX		4
#define VT_UNBIND_STEPS		4
#define VT_RMMOD_STEPS		3
#define VT_RACE_STEPS		3

struct vt_cycle {
	unsigned int n;
	char desc[VT_STEPS_MAX][200];
	char why[VT_STEPS_MAX][1024];
};

struct vt_users_stats {
	unsigned int procs, wakeups;
	uint64_t max_wake_ns;	/* the slowest wake-up after an unbind */
};

/*
 * Shared memory for the users, SIGUSR1 to wake them, and vivpoll freshly
 * loaded with its defaults; remembers vivpoll.0's node as it is now.
 */
int vt_users_init(char *why, size_t len);
/* vivpoll.0's video node now */
const char *vt_users_node(void);
void vt_users_get_stats(struct vt_users_stats *st);

/*
 * Unbind vivpoll.0 under its users (a queue owner: blocked in DQBUF,
 * streaming by mmap or by read(), by turns; an idle file; select(),
 * poll() and epoll() waiters; racers; a blocked DQEVENT in the first
 * cycle): the unbind returns, every blocked call wakes with an error or
 * POLLERR|POLLHUP, the files are dead (ENODEV, POLLERR|POLLHUP), every
 * process exits, no engine thread is left; after bind the same node comes
 * back and captures. light: only the owner, an idle file, a select() and
 * a poll() waiter, and no capture (92-leaks repeats it many times).
 */
void vt_unbind_cycle(unsigned int cycle, uint64_t seed, bool light,
		     struct vt_cycle *c);
/*
 * rmmod under the users: refused while a file is open, even after an
 * unbind, disturbing nobody; events still arrive; once the users are gone
 * (exited or killed) rmmod succeeds and nothing of vivpoll is left;
 * modprobe brings the same node back, which captures (not with light).
 */
void vt_rmmod_cycle(unsigned int cycle, uint64_t seed, bool light,
		    struct vt_cycle *c);
/*
 * Unbind among processes that start the engine by read() and poll(POLLIN)
 * in a loop: no engine thread may outlive the unbind.
 */
void vt_race_cycle(unsigned int cycle, uint64_t seed, struct vt_cycle *c);
/* One TAP line per step. */
void vt_cycle_report(const struct vt_cycle *c);
/* The reason of the first failed step, NULL if all passed. */
const char *vt_cycle_failed(const struct vt_cycle *c);

/* ---- children -------------------------------------------------------------- */

/* Shared anonymous memory, inherited by fork()ed children; exits if none. */
void *vt_shared(size_t len);
/*
 * Wait for the children until deadline_ns; kill the remaining ones. For
 * each child, status[i] gets the wait status, or -1 if it had to be
 * killed. Returns the number of children that had to be killed.
 */
int vt_reap(const pid_t *pids, int *status, int n, uint64_t deadline_ns);
/* "signal 11 (Segmentation fault)" or "exit 3" for a wait status. */
const char *vt_status_str(int st, char *buf, size_t len);

/* ---- the switch, as the driver sees it ------------------------------------- */

struct vp_polltrace;

/*
 * Set fs.poll_legacy_null_table to on (0 or 1). VIVPOLL_FAULT=switch-inverted
 * (tools/check-harness.sh) writes the other value: every test that judges
 * what the switch does must then fail.
 */
int vt_switch_set(int on);
/*
 * The events each .poll call of the recorded device asked for, in order,
 * since the last vp_polltrace_reset(): up to max of them into reqs. Returns
 * how many calls were recorded (more than max: only the first max are
 * there), -EOVERFLOW if the ring buffer lost some, or -errno.
 */
int vt_polltrace_reqs(struct vp_polltrace *t, uint32_t *reqs, unsigned int max);
/* The first n of reqs as "0x1a 0xffffffff ..." into buf. */
const char *vt_reqs_str(const uint32_t *reqs, int n, char *buf, size_t len);
/*
 * Whether thread tid of this process sleeps in syscall nr: its
 * /proc/self/task/TID/stat says S, and then its /proc/self/task/TID/syscall
 * (CONFIG_HAVE_ARCH_TRACEHOOK) names nr, which it does only for a task off
 * the CPU and not runnable ("running" else).
 */
bool vt_asleep_in(pid_t tid, long nr);

/* ---- errno --------------------------------------------------------------- */

/* Name of an errno value, for the reports ("EINVAL"). */
const char *vt_errname(int e);

#define VT_E(x)		(1ull << (x))	/* errno bit, for errno < 64 */

/* Whether e is one of the errno bits of mask. */
bool vt_errno_in(int e, uint64_t mask);

#endif /* VIVPOLL_TESTS_LIB_H */
