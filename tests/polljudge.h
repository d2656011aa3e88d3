/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a vivpoll device's .poll was asked, and whether its engine started,
 * judged against fs.poll_legacy_null_table: shared by the kselftest-harness
 * suites that test what patch 1's documentation says of it (12, 14, 16).
 * Include after kselftest_harness.h, common.h and lib.h.
 */
#ifndef VIVPOLL_TESTS_POLLJUDGE_H
#define VIVPOLL_TESTS_POLLJUDGE_H

#include <poll.h>
#include <sys/epoll.h>

/* poll_requested_events(NULL), or EPOLL_CTL_ADD's key with the switch on */
#define PJ_ALL		0xffffffffu
/* an epoll item or a pollfd asking for POLLPRI: with EPOLLERR | EPOLLHUP */
#define PJ_EPOLL_KEY	(EPOLLPRI | EPOLLERR | EPOLLHUP)	/* 0x1a */
/* select()'s key for exceptfds alone: fs/select.c POLLEX_SET */
#define PJ_SELECT_EX_KEY	(POLLPRI | POLLNVAL)		/* 0x22 */
#define PJ_MAX_REQS	64

/*
 * The .poll calls recorded by pt since its reset, and the engine of the
 * device open as fd (its Engine Starts control was starts before): if
 * legacy, asked for every event (NULL, or a key of ~0) at least once and
 * started; else asked for exactly key on every call, at least once, and
 * not started.
 */
static inline void pj_judge(struct __test_metadata *_metadata,
			    struct vp_polltrace *pt, int fd, uint64_t starts,
			    bool legacy, uint32_t key, const char *who)
{
	uint32_t reqs[PJ_MAX_REQS];
	char buf[512];
	uint64_t now;
	int n, j, all = 0, other = 0;

	n = vt_polltrace_reqs(pt, reqs, PJ_MAX_REQS);
	ASSERT_LE(0, n) TH_LOG("%s: the trace: %s", who, strerror(-n));
	ASSERT_GE(PJ_MAX_REQS, n);
	for (j = 0; j < n; j++) {
		all += reqs[j] == PJ_ALL;
		other += reqs[j] != key && reqs[j] != PJ_ALL;
	}
	TH_LOG("%s, switch %s: .poll asked %s", who, legacy ? "on" : "off",
	       vt_reqs_str(reqs, n, buf, sizeof(buf)));
	ASSERT_EQ(0, vp_engine_starts(fd, 0, &now));
	if (legacy) {
		EXPECT_LT(0, all)
			TH_LOG("%s: never asked for every event", who);
		EXPECT_LT(starts, now)
			TH_LOG("%s: the engine did not start", who);
	} else {
		EXPECT_LT(0, n) TH_LOG("%s: .poll was not called", who);
		EXPECT_EQ(0, all + other)
			TH_LOG("%s: asked for other than 0x%x", who, key);
		EXPECT_EQ(starts, now)
			TH_LOG("%s: the engine started", who);
	}
}

#endif /* VIVPOLL_TESTS_POLLJUDGE_H */
