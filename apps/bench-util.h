/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vivpoll-bench (make bench): shared declarations of its subcommands.
 *
 * Every subcommand prints one JSON object on one line on stdout; the host
 * (tools/bench-report.py) turns the collected objects into ratios, the
 * table, out/bench.json and out/bench.png. Diagnostics go to stderr.
 *
 * How CPU time is measured (the same way for every side of a ratio):
 *   - "busy": the whole guest's non-idle time from the first line of
 *     /proc/stat (user + nice + system + irq + softirq + steal, all CPUs),
 *     in USER_HZ ticks, between two snapshots. It covers everything a frame
 *     costs: the producer thread, the application's syscalls, wake-ups,
 *     interrupts. The guest kernel samples it at every tick (HZ=250, tick
 *     based accounting), so it is statistical: windows are several seconds
 *     long, and the host subtracts the busy rate of an idle window measured
 *     in the same round (the guest's own background).
 *   - "task": the precise CPU time (ns, the scheduler's sum_exec_runtime)
 *     of the kernel thread that produces the frames, read through its
 *     process CPU clock (clock_getcpuclockid(); a kthread leads its own
 *     thread group). This is the producer's share alone, used to tell what
 *     bounds a result.
 *   - "self": CLOCK_PROCESS_CPUTIME_ID of the benchmark process itself.
 */
#ifndef VIVPOLL_BENCH_UTIL_H
#define VIVPOLL_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common.h"

/* ---- CPU accounting ----------------------------------------------------- */

struct bench_cpu {
	uint64_t busy;		/* non-idle USER_HZ ticks, all CPUs */
	uint64_t idle;		/* idle + iowait ticks, all CPUs */
};

int bench_cpu_read(struct bench_cpu *c);
double bench_ticks_ms(uint64_t ticks);

/*
 * Every task's CPU clock (its scheduler runtime, exact, threads summed per
 * process, kernel threads included), read from /proc: the whole guest's
 * CPU time without the tick's sampling. Only the idle task (and interrupts
 * taken while idle) is not in it.
 */
#define BENCH_MAX_TASKS 512
struct bench_tasks {
	int n;
	pid_t pid[BENCH_MAX_TASKS];
	uint64_t ns[BENCH_MAX_TASKS];
	char comm[BENCH_MAX_TASKS][16];
};

int bench_tasks_read(struct bench_tasks *t);

/*
 * A snapshot: time, whole-guest ticks, one task's and our own CPU time,
 * every task's CPU time. bench_snap() starts a window, bench_snap_end()
 * ends it: each reads every task's clock (a walk of /proc) outside the
 * window, before the start's other clocks and after the end's, so that our
 * own CPU time in the window does not count the walk (about 0.4 M guest
 * instructions under QEMU -icount: 14k a frame of a 1 s window).
 */
struct bench_snap {
	uint64_t t_ns;
	struct bench_cpu cpu;
	uint64_t task_ns;	/* 0 if no task */
	uint64_t self_ns;
	struct bench_tasks all;
};

void bench_snap(struct bench_snap *s, pid_t task);
void bench_snap_end(struct bench_snap *s, pid_t task);

/* Print the CPU fields of the interval a..b into the current object. */
struct bench_json;
void bench_json_cpu(struct bench_json *j, const struct bench_snap *a,
		    const struct bench_snap *b, pid_t task);
void bench_json_tasks(struct bench_json *j, const struct bench_tasks *a,
		      const struct bench_tasks *b, pid_t task);

/* The pid of the task whose comm (15 characters at most) is comm, or 0. */
pid_t bench_find_task(const char *comm);
int bench_task_cpu_ns(pid_t pid, uint64_t *ns);
/* The state letter of task @pid in /proc/PID/stat (R, S, D...), '?' if gone */
char bench_task_state(pid_t pid);
uint64_t bench_self_cpu_ns(void);
uint64_t bench_thread_cpu_ns(void);

/* Run the calling thread on one CPU only; -1 leaves it as it is. */
int bench_pin(int cpu);
/* The same for task @pid (0: the calling thread) */
int bench_pin_task(pid_t pid, int cpu);

/* ---- devices ---------------------------------------------------------- */

/*
 * Find the first /dev/videoN of the driver ("vivpoll", "vivid") that is a
 * single-planar video capture node; path and its bus name (bus_info
 * without "platform:", e.g. "vivid-000") are written out. 0 or -ENODEV.
 */
int bench_find_node(const char *driver, char *path, size_t plen,
		    char *name, size_t nlen);

/* Find a control by its name; 0 and *id, or -ENOENT. */
int bench_find_ctrl(int fd, const char *name, uint32_t *id);

/* Bytes per pixel of a packed format, 0 if unknown. */
unsigned int bench_bpp(uint32_t fourcc);

/* ---- statistics ------------------------------------------------------- */

/* Nearest-rank percentile (q in 0..1) of v[0..n-1]; sorts v. NaN if n=0. */
double bench_pct(double *v, size_t n, double q);
double bench_mean(const double *v, size_t n);

/* ---- JSON output: one object per line ------------------------------------ */

struct bench_json {
	FILE *f;
	bool first;
};

void bj_begin(struct bench_json *j, const char *test);
void bj_str(struct bench_json *j, const char *key, const char *val);
void bj_num(struct bench_json *j, const char *key, double val);
void bj_int(struct bench_json *j, const char *key, long long val);
void bj_bool(struct bench_json *j, const char *key, bool val);
void bj_null(struct bench_json *j, const char *key);
/* An array of numbers, each printed with %.*f */
void bj_array(struct bench_json *j, const char *key, const double *v,
	      size_t n, int decimals);
void bj_end(struct bench_json *j);

/* Print an {"test":..., "error": msg} object and return 1. */
int bench_fail(const char *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Usage error: message on stderr, exit VP_EXIT_USAGE. */
void bench_usage_error(const char *cmd, const char *msg, const char *arg)
	__attribute__((noreturn));

/* ---- subcommands ------------------------------------------------------ */

int bench_stream_main(int argc, char **argv);	/* stream */
int bench_memcpy_main(int argc, char **argv);	/* memcpy */
int bench_event_main(int argc, char **argv);	/* event */
int bench_poll_main(int argc, char **argv);	/* poll */
int bench_idle_main(int argc, char **argv);	/* idle */
int bench_cpu_main(int argc, char **argv);	/* cpu */
int bench_pollcore_main(int argc, char **argv);	/* pollcore */
int bench_fanout_main(int argc, char **argv);	/* fanout */

#endif
