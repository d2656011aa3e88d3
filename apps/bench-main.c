// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-bench: the guest side of `make bench` (guest/bench.sh runs it).
 * Each subcommand measures one thing and prints one JSON object per line;
 * the ratios, targets and the table are made on the host
 * (tools/bench-report.py). See bench-util.h for how CPU time is counted.
 */
#include <stdio.h>
#include <string.h>

#include "bench-util.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vivpoll-bench COMMAND [options]   (prints JSON, one object a line)\n"
"\n"
"  stream  stream a capture device by mmap + poll(POLLIN) and measure the\n"
"          guest CPU per frame, frames on time, drops and the rate\n"
"          --driver vivpoll|vivid  --device DEV  --size WxH  --fourcc F\n"
"          --fps N | --fastest  --buffers N  --duration S  --warmup S\n"
"          --map rw|ro (buffers mapped writable, the default, or read-only)\n"
"          --cpus same|any (same: this process and the driver's producer\n"
"          thread on CPU 0; any, the default: where the scheduler puts them)\n"
"  memcpy  the floor: copy the same bytes at the same rate into a ring of\n"
"          buffers, measured like stream; also an unpaced copy\n"
"          --size WxH  --fourcc F  --fps N  --buffers N  --duration S\n"
"          --consumer (hand each copy to a thread asleep in poll())\n"
"          --cpus same|any (same: the process and its reader on CPU 0)\n"
"  event   latency from a signal in one process to the select() wake-up of\n"
"          another: a control change (exceptfds) or an eventfd write\n"
"          --kind ctrl|eventfd  --driver D  --count N  --cpus same|split|any\n"
"  poll    time per poll(timeout 0) with nothing pending: vivpoll (POLLPRI),\n"
"          an eventfd (POLLIN), vivid if present\n"
"          --count N  --rounds R  --cpu N\n"
"  idle    N processes waiting on exceptfds only: frames, engine starts,\n"
"          guest CPU\n"
"          --procs N  --duration S\n"
"  cpu     guest CPU busy time of an idle window\n"
"          --duration S\n"
"  pollcore  select(), poll(), epoll_wait() with a zero timeout on 1, 64\n"
"          and 1024 eventfds, all ready or none: time per call, with\n"
"          fs.poll_legacy_null_table off and on where the kernel has it\n"
"          --counts N,N,...  --rounds R  --work FD-POLLS  --cpu N\n"
"          --switch both|off\n"
"  fanout  N waiter processes on one vivpoll node (POLLPRI alone) or one\n"
"          eventfd: time from an event to the last wake-up, CPU per\n"
"          event per waiter; every waiter must wake for every event and\n"
"          the engine must not start\n"
"          --kind vivpoll|eventfd  --api select|poll|epoll  --waiters N\n"
"          --events N  --warmup N  --timeout S  --cpus same|any\n"
"\n"
"Exit status: 0 measured; 1 a measurement or a check failed (an {\"error\"} object is\n"
"printed); 2 bad usage.\n");
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "stream", bench_stream_main },
		{ "memcpy", bench_memcpy_main },
		{ "event", bench_event_main },
		{ "poll", bench_poll_main },
		{ "idle", bench_idle_main },
		{ "cpu", bench_cpu_main },
		{ "pollcore", bench_pollcore_main },
		{ "fanout", bench_fanout_main },
	};
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return VP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "vivpoll-bench: unknown command '%s'\n"
		"Try 'vivpoll-bench --help'.\n", argv[1]);
	return VP_EXIT_USAGE;
}
