// SPDX-License-Identifier: GPL-2.0
/*
 * stallmon LOG MIN_MS: how long each vCPU of the guest stops running.
 *
 * One thread per online CPU, pinned to it, SCHED_FIFO at the highest
 * priority, wakes every 10 ms on an absolute CLOCK_MONOTONIC deadline.
 * Nothing in user space preempts it, so a wake-up later than MIN_MS means
 * the CPU itself did not run: the host did not run that vCPU (QEMU's
 * thread descheduled, the host stopped), or the guest kernel kept it
 * non-preemptible. Each such stall is appended to LOG as one line,
 *
 *	cpu N stall MS ms ending at BOOTTIME_S
 *
 * (BOOTTIME_S: /proc/uptime's clock, in seconds). A guest whose CPUs are
 * merely busy (a SCHED_FIFO busy loop of priority 50, as the compliance
 * drill runs) logs nothing. Runs until killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 10000000LL

static int log_fd;
static long long min_ns;

static long long ns(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *watch(void *arg)
{
	long cpu = (long)arg;
	struct timespec next;
	long long due, late;
	char line[96];
	int len;

	due = ns(CLOCK_MONOTONIC);
	for (;;) {
		due += PERIOD_NS;
		next.tv_sec = due / 1000000000LL;
		next.tv_nsec = due % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		late = ns(CLOCK_MONOTONIC) - due;
		if (late < min_ns)
			continue;
		len = snprintf(line, sizeof(line),
			       "cpu %ld stall %lld ms ending at %.3f\n", cpu,
			       (late + PERIOD_NS) / 1000000,
			       ns(CLOCK_BOOTTIME) / 1e9);
		if (write(log_fd, line, len) != len)
			perror("stallmon: write");
		due = ns(CLOCK_MONOTONIC);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu;
	pthread_attr_t attr;
	pthread_t thread;
	cpu_set_t set;
	char *end;
	long ms;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: stallmon LOG MIN_MS\n");
		return 2;
	}
	errno = 0;
	ms = strtol(argv[2], &end, 10);
	if (errno || *end || end == argv[2] || ms < 1 || ms > 60000) {
		fprintf(stderr, "stallmon: MIN_MS wants 1 to 60000, not '%s'\n",
			argv[2]);
		return 2;
	}
	min_ns = ms * 1000000LL;
	log_fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		pthread_attr_init(&attr);
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
		err = pthread_create(&thread, &attr, watch, (void *)cpu);
		if (err) {
			fprintf(stderr, "stallmon: cpu %ld: %s\n", cpu,
				strerror(err));
			return 1;
		}
		pthread_attr_destroy(&attr);
	}
	pause();
	return 0;
}
