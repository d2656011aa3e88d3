/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vivpoll-prove: shared declarations of the matrix runner (prove.c), the
 * expectation table (prove-expect.c) and the wait API drivers
 * (prove-waits.c).
 */
#ifndef VIVPOLL_PROVE_H
#define VIVPOLL_PROVE_H

#include <stdbool.h>
#include <stdint.h>

/* Rows: the wait APIs. */
enum prove_api {
	API_SELECT,
	API_PSELECT,
	API_POLL,
	API_PPOLL,
	API_EPOLL_ADD,	/* epoll_ctl(ADD, mask), then epoll_wait() */
	API_EPOLL_MOD,	/* ADD (0), then epoll_ctl(MOD, mask), then wait */
	API_IO_URING,	/* IORING_OP_POLL_ADD (liburing), one-shot */
	API_AIO,	/* io_submit(IOCB_CMD_POLL), io_getevents() */
	API_COUNT
};

/* Situations the wait happens in. */
enum prove_sit {
	SIT_WAKE,		/* (a) block; woken by a control event */
	SIT_ZERO,		/* (b) zero timeout, nothing pending */
	SIT_READY_BEFORE,	/* (c) an eventfd, already readable, comes
				 *     before the video fd */
	SIT_READY_AFTER,	/* (d) the same eventfd after the video fd */
	SIT_COUNT
};

/* What is requested on the video fd (bits). */
#define REQ_PRI		1u	/* exceptfds / POLLPRI / EPOLLPRI */
#define REQ_IN		2u	/* readfds / POLLIN / EPOLLIN */
#define REQ_BOTH	(REQ_PRI | REQ_IN)

/* Event delivery cell values. */
#define EV_REFUSED	(-2)	/* the API refused to wait on the video fd */
#define EV_NA		(-1)	/* no event raised, or POLLPRI not requested */
#define EV_NO		0
#define EV_YES		1

struct prove_expect {
	bool started;		/* engine_starts delta > 0 */
	int ev;			/* EV_* */
	uint32_t mask_must;	/* bits the requested masks must contain */
	uint32_t mask_may;	/* further bits it may contain */
	bool ready_may_pass;	/* EV_REFUSED or EV_NA (accepted: ready at once) */
	bool needs_repoll;	/* (a): some wait call must poll the video fd
				 * again after a wake-up (the pass the
				 * switch turns NULL); re-wait until one has */
	const char *why;	/* one-line reason, shown on a mismatch */
};

struct prove_result {
	bool error;		/* the cell could not be run */
	char err[256];
	bool started;
	uint64_t starts_delta;
	bool taken;		/* the queue was taken by file-io: REQBUFS from
				 * another file failed with EBUSY */
	int ev;
	uint32_t mask;		/* OR of the requested masks of the cell */
	bool refused;		/* the API refused the video fd */
	bool pri;		/* POLLPRI was reported for the video fd */
	bool in;		/* POLLIN was reported for the video fd */
	unsigned int calls;	/* wait calls made */
	bool repolled;		/* a call polled the video fd twice or more */
	unsigned int rewaits;	/* calls repeated because their first
				 * ->poll() already found a frame */
	double ms;		/* duration of the wait phase */
};

/* The wait context handed to an API driver. */
struct wait_ctx {
	enum prove_api api;
	enum prove_sit sit;
	unsigned int req;	/* REQ_* */
	int vfd;		/* the video fd, subscribed to brightness */
	int efd;		/* readable eventfd, or -1 */
	bool efd_first;		/* efd precedes vfd (fd number, array/ADD
				 * order, submission order) */
	unsigned long timeout_ms; /* per-cell wait deadline (SIT_WAKE etc.) */

	/* private state of the API drivers */
	int epfd;
	void *priv;
	bool vpending, epending;
	bool refused;		/* set by wait_once: the API cannot wait on
				 * the video fd (returns -errno as well) */

	char err[128];
};

struct wait_ops {
	/* Prepare (epoll_ctl ADD/MOD, io_setup, ...). May be NULL. */
	int (*setup)(struct wait_ctx *w);
	/*
	 * One wait call with the given timeout (0: do not block); sets
	 * *revents to the poll bits reported for the video fd (0 if none).
	 * Returns the number of ready fds/completions or -errno.
	 */
	int (*wait_once)(struct wait_ctx *w, unsigned long timeout_ms,
			 uint32_t *revents);
	/* Release everything; afterwards no reference to vfd remains. */
	void (*teardown)(struct wait_ctx *w);
};

extern const struct wait_ops *const prove_wait_ops[API_COUNT];

const char *prove_api_name(enum prove_api api);
const char *prove_sit_name(enum prove_sit sit);
const char *prove_req_name(unsigned int req);

/* Fill in what the cell must show. legacy: switch on. */
void prove_expect(enum prove_api api, enum prove_sit sit, unsigned int req,
		  bool legacy, struct prove_expect *e);

#endif
