// SPDX-License-Identifier: GPL-2.0
/*
 * 92-leaks: what unbind/bind and rmmod/modprobe under users leave behind,
 * on any kernel (kmemleak is only in the debug kernel).
 *
 * The cycles are the scenario of tests/users.c (82-unbind-loop reports it
 * step by step), with its light set of users: a queue owner (by turns
 * streaming by mmap, blocked in VIDIOC_DQBUF on a starved queue, or
 * streaming by blocking read()), a poll(POLLPRI) and a select(exceptfds)
 * subscriber blocked on a control event, and an idle open file; an rmmod
 * cycle's users exit or are killed (their files released while streaming
 * or blocked), and each cycle checks that no engine thread is left,
 * nothing of an unloaded vivpoll stays (module, vivpoll.N device, debugfs
 * folder, video node) and the same video node (name and major:minor)
 * comes back. This suite's own part is the count of what memory they
 * leave.
 *
 * After all cycles, with the page cache and the slab caches dropped and
 * SLUB's caches shrunk, /proc/meminfo's Slab and VmallocUsed are at most
 * SLAB_BOUND_KB (256 kB) above, and MemAvailable plus the pages in the
 * per-CPU page lists (/proc/zoneinfo; they move by MBs and MemAvailable
 * does not count them) at most AVAIL_BOUND_KB (1 MB) below, their values
 * after one warm-up cycle of each kind (which creates the slab caches,
 * the sysfs inodes, and the module's first load). Measured
 * under TCG (20+20 and 100+100 cycles): Slab -64 to +36 kB, VmallocUsed
 * -16 to +16 kB, MemAvailable plus the lists -72 to -8 kB. A leak of one
 * 4 kB allocation per probe is +820 kB of Slab over 100+100 cycles; the
 * quick tier's 20+20 catch leaks from about 7 kB per cycle.
 *
 *   92-leaks [--unbind-cycles N] [--rmmod-cycles N]
 *
 * On the debug kernel, kmemleak scans at the end as well (KASAN's
 * quarantine holds freed objects: shrinking each cache empties its part).
 *
 * Defaults: 100 of each; VIVPOLL_TIER=quick: 20 of each.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "lib.h"

#define SLAB_BOUND_KB	256
#define AVAIL_BOUND_KB	1024

/* ---- the cycles ---------------------------------------------------------- */

struct tally {
	unsigned int done, failed;
	char first[400];
};

static void tally(struct tally *t, unsigned int cycle, const char *what,
		  const struct vt_cycle *c)
{
	const char *why = vt_cycle_failed(c);

	t->done++;
	if (why && !t->failed++)
		snprintf(t->first, sizeof(t->first), "%s cycle %u: %s", what,
			 cycle + 1, why);
}

/* ---- memory -------------------------------------------------------------- */

struct mem {
	long avail, pcp, slab, sunreclaim, vmalloc;
};

/* kB in the per-CPU page lists (/proc/zoneinfo "count:"), not "free" */
static long pcp_kb(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	char line[256];
	long n = 0, v;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %ld", &v) == 1)
			n += v;
	if (f)
		fclose(f);
	return n * (sysconf(_SC_PAGESIZE) / 1024);
}

static long meminfo_kb(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* SLUB: give the empty slabs and the per-CPU slabs of every cache back */
static void slab_shrink(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	char path[320];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		vt_write_file(path, "1");
	}
	if (d)
		closedir(d);
}

/*
 * /proc/meminfo after dropping the page cache and the slab caches, and the
 * per-CPU page lists, which MemAvailable does not count as free
 */
static void mem_read(struct mem *m)
{
	char buf[4096];

	sync();
	vt_write_file("/proc/sys/vm/drop_caches", "3");
	/* RCU callbacks and deferred frees (the engine's task_struct) */
	vp_sleep_ms(500);
	vt_write_file("/proc/sys/vm/drop_caches", "3");
	slab_shrink();
	vt_read_file("/proc/meminfo", buf, sizeof(buf));
	m->pcp = pcp_kb();
	m->avail = meminfo_kb(buf, "\nMemAvailable:");
	m->slab = meminfo_kb(buf, "\nSlab:");
	m->sunreclaim = meminfo_kb(buf, "\nSUnreclaim:");
	m->vmalloc = meminfo_kb(buf, "\nVmallocUsed:");
}

static void mem_check(const char *name, long before, long after, int sign,
		      long bound)
{
	char desc[160];
	long grew = sign * (after - before);

	snprintf(desc, sizeof(desc), "%s %s by at most %ld kB (%ld -> %ld kB)",
		 name, sign > 0 ? "grew" : "shrank", bound, before, after);
	vt_ok(before >= 0 && after >= 0 && grew <= bound, desc, "%+ld kB",
	      after - before);
}

int main(int argc, char **argv)
{
	unsigned long ucycles = vt_quick() ? 20 : 100, rcycles = ucycles, i;
	const struct vt_opt opts[] = {
		{ "unbind-cycles", 0, 10000, &ucycles, NULL },
		{ "rmmod-cycles", 0, 10000, &rcycles, NULL },
		{ NULL, 0, 0, NULL, NULL },
	};
	struct tally tu = { 0 }, tr = { 0 }, warm = { 0 };
	struct vt_cycle c;
	struct mem m0, m1;
	char why[256] = "";
	uint64_t t0;
	int r;

	vt_options(argc, argv, opts, NULL);
	vt_begin("92-leaks: unbind/bind and rmmod/modprobe with users leave "
		 "nothing behind");
	vt_plan(10);
	r = vt_users_init(why, sizeof(why));
	if (!vt_ok(!r, "vivpoll is loaded and vivpoll.0 has a video node",
		   "%s", why))
		return vt_end();
	vt_diag("vivpoll.0: %s; %lu unbind and %lu rmmod cycles",
		vt_users_node(), ucycles, rcycles);
	vt_klog_mark(argv[0]);

	/* warm-up: one cycle of each kind, then the baseline */
	vt_unbind_cycle(0, 0, true, &c);
	tally(&warm, 0, "unbind", &c);
	vt_rmmod_cycle(0, 0, true, &c);
	tally(&warm, 0, "rmmod", &c);
	vt_ok(!warm.failed, "a warm-up unbind and rmmod cycle", "%s",
	      warm.first);
	mem_read(&m0);
	vt_kmemleak_begin();

	t0 = vp_now_ns();
	for (i = 0; i < ucycles; i++) {
		vt_unbind_cycle((unsigned int)i, i, true, &c);
		tally(&tu, (unsigned int)i, "unbind", &c);
	}
	vt_diag("%lu unbind cycles in %.1f s", ucycles,
		(vp_now_ns() - t0) / 1e9);
	t0 = vp_now_ns();
	for (i = 0; i < rcycles; i++) {
		vt_rmmod_cycle((unsigned int)i, i, true, &c);
		tally(&tr, (unsigned int)i, "rmmod", &c);
	}
	vt_diag("%lu rmmod cycles in %.1f s", rcycles,
		(vp_now_ns() - t0) / 1e9);
	snprintf(why, sizeof(why), "%u unbind cycles with users: they wake "
		 "and exit, no engine thread is left, the same video node "
		 "comes back", tu.done);
	vt_ok(!tu.failed, why, "%u failed, the first: %s", tu.failed,
	      tu.first);
	snprintf(why, sizeof(why), "%u rmmod cycles with users: refused "
		 "while in use, then nothing is left, and the same video node "
		 "comes back", tr.done);
	vt_ok(!tr.failed, why, "%u failed, the first: %s", tr.failed,
	      tr.first);

	mem_read(&m1);
	vt_diag("meminfo after the warm-up and at the end: MemAvailable %ld -> "
		"%ld kB (per-CPU page lists %ld -> %ld kB), Slab %ld -> %ld kB "
		"(SUnreclaim %ld -> %ld), VmallocUsed %ld -> %ld kB", m0.avail,
		m1.avail, m0.pcp, m1.pcp, m0.slab, m1.slab, m0.sunreclaim,
		m1.sunreclaim, m0.vmalloc, m1.vmalloc);
	mem_check("Slab", m0.slab, m1.slab, 1, SLAB_BOUND_KB);
	mem_check("VmallocUsed", m0.vmalloc, m1.vmalloc, 1, SLAB_BOUND_KB);
	mem_check("MemAvailable plus the per-CPU page lists", m0.avail + m0.pcp,
		  m1.avail + m1.pcp, -1, AVAIL_BOUND_KB);
	vt_klog_check();
	/* the debug kernel: what kmemleak finds, besides the totals */
	vt_kmemleak_check();
	vt_restore_defaults();
	return vt_end();
}
