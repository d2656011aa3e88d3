// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-prove: what every cell of the matrix must show, derived from the
 * v6.1 sources (fs/select.c, fs/eventpoll.c, io_uring/poll.c, fs/aio.c,
 * drivers/media/common/videobuf2/) and from the definition of
 * fs.poll_legacy_null_table=1; where 6.12 differs (io_uring's wake-up key,
 * below), from the 6.12 sources; 7.2 gives what 6.1 gives in every cell
 * (io_uring's key included, below). Nothing here is a snapshot of a run.
 *
 * The one driver fact everything hangs on (vb2_core_poll(), vb2_fop_poll()):
 *
 *	req = poll_requested_events(wait);	// wait ? wait->_key : ~0
 *	if (!(req & (EPOLLIN | EPOLLRDNORM)))
 *		return 0;			// + EPOLLPRI if an event is
 *						//   pending (vb2_poll())
 *	if (no buffers && !fileio && (q->io_modes & VB2_READ))
 *		__vb2_init_fileio(q, 1);	// -> start_streaming
 *						// -> the engine starts
 *
 * so the engine starts exactly when some ->poll() of the video fd sees a
 * requested mask containing POLLIN/POLLRDNORM. A NULL table reads as ~0.
 * vivpoll traces poll_requested_events(wait) of every ->poll() call (the
 * vivpoll_poll event); the prover ORs them per cell: a NULL table shows up
 * as 0xffffffff.
 *
 * Hence, per cell:
 *   started = (POLLIN requested) || (switch on && some ->poll() of the video
 *             fd in this row/situation gets NULL or key ~0)
 *   mask    = ~0 in the latter case, else the key the core computes from the
 *             request (below), exactly
 *   event   = in situation (a) with POLLPRI requested the control event must
 *             be reported as POLLPRI and DQEVENT must return it; elsewhere
 *             there is nothing to deliver (n/a).
 * The per-row "legacy" column of the table below says, with reasons, in
 * which situations the switch makes the core hand the driver NULL (or ~0).
 */
#include <poll.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/utsname.h>

#include "prove.h"

/*
 * The kernel's EPOLL* bits equal the userspace POLL* values on x86 (and
 * demangle_poll() is the identity there); <sys/epoll.h> lacks EPOLLNVAL.
 */
/* fs/select.c */
#define K_POLLIN_SET	(POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | \
			 POLLERR | POLLNVAL)			/* 0xf9 */
#define K_POLLEX_SET	(POLLPRI | POLLNVAL)			/* 0x22 */
/* io_uring/poll.c: IO_POLL_UNMASK */
#define K_IO_POLL_UNMASK (POLLERR | POLLHUP | POLLNVAL | POLLRDHUP) /* 0x2038 */

/*
 * Since 6.12.118 (stable: "io_uring/poll: don't poll a writer for a read
 * side hangup"), io_poll_unmask() adds EPOLLRDHUP only when the request
 * asks for POLLIN, POLLRDNORM or POLLRDBAND. Debian's 7.2.13 and 7.3-rc7
 * do not have it: their io_init_poll_iocb() adds IO_POLL_UNMASK, EPOLLRDHUP
 * included, to every request, as 6.1's does.
 * The kernels vivpoll supports are 6.1, 7.2 and 7.3 (without it) and 6.12
 * (with it, in Debian's 6.12.118).
 */
static bool io_uring_rdhup_reads_only(void)
{
	unsigned int a = 0, b = 0, c = 0;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u.%u", &a, &b, &c) != 3)
		return false;
	return a == 6 && b == 12 && c >= 118;
}

static uint32_t req_bits(unsigned int req)
{
	return ((req & REQ_PRI) ? POLLPRI : 0) | ((req & REQ_IN) ? POLLIN : 0);
}

/*
 * select()/pselect(): wait_key_set() sets, per fd, _key = POLLEX_SET, plus
 * POLLIN_SET if the fd is in readfds (plus POLLOUT_SET for writefds, unused
 * here). Note that exceptfds interest (POLLPRI) is in the key even for an
 * fd that is only in readfds: readfds-only gives 0xfb, exceptfds-only 0x22.
 */
static uint32_t key_select(unsigned int req)
{
	return K_POLLEX_SET | ((req & REQ_IN) ? K_POLLIN_SET : 0);
}

/*
 * poll()/ppoll(): do_pollfd(): _key = demangle_poll(events) | EPOLLERR |
 * EPOLLHUP. epoll: epoll_ctl() adds EPOLLERR | EPOLLHUP to the events of
 * ADD and MOD, and ep_item_poll() sets _key = epi->event.events.
 * aio: aio_poll(): req->events = demangle_poll(aio_buf) | EPOLLERR |
 * EPOLLHUP, used as _key both when arming and in aio_poll_complete_work().
 * (epoll-mod first ADDs with events 0, key EPOLLERR|EPOLLHUP, a subset.)
 */
static uint32_t key_poll(unsigned int req)
{
	return req_bits(req) | POLLERR | POLLHUP;
}

/*
 * io_uring POLL_ADD (one-shot, not level): io_poll_parse_events() gives
 * events | EPOLLONESHOT | EPOLLET; __io_arm_poll_handler() arms with that as
 * _key, but stores poll->events = that | IO_POLL_UNMASK and re-polls after a
 * wake-up (io_poll_check_events()) with _key = req->apoll_events, i.e. with
 * the UNMASK bits added. Those appear when the video fd was woken while a
 * request was armed: always in (a) (control event or frame), possibly
 * elsewhere when the engine runs.
 */
static uint32_t key_io_uring(unsigned int req)
{
	return req_bits(req) | EPOLLONESHOT | EPOLLET;
}

struct legacy_sit {
	bool null_table;	/* switch on: some ->poll() of the video fd
				 * gets NULL or key ~0 */
	const char *why;
};

struct api_row {
	const char *name;
	uint32_t (*key)(unsigned int req);
	uint32_t wake_extra;	/* bits added by re-polls after a wake-up */
	bool repolls;		/* one wait call polls the fd on entry (or
				 * when arming) and again after each wake-up:
				 * .poll calls rise by 2+ iff it slept */
	bool refuses;		/* cannot wait on a vb2 fd: EINVAL */
	struct legacy_sit legacy[SIT_COUNT];
};

static const struct api_row rows[API_COUNT] = {
	/*
	 * do_select(), switch off (today): _qproc is cleared (1) after the
	 * first fd reporting an event, (2) after every full pass, so on the
	 * pass after a wake-up, and (3) up front for a zero timeout; but the
	 * table itself, and with it the per-fd _key, is always passed.
	 * Switch on (pre-v3.4): in those three places the driver gets NULL,
	 * poll_requested_events(NULL) == ~0.
	 */
	[API_SELECT] = {
		.name = "select",
		.repolls = true,
		.key = key_select,
		.legacy = {
			[SIT_WAKE] = { true,
				"pass 1 polls with the table and sleeps; the "
				"control event wakes it; pass 2 runs with "
				"NULL: ~0 includes POLLIN -> file-io starts "
				"(then POLLPRI is reported)" },
			[SIT_ZERO] = { true,
				"zero timeout: the only pass runs with NULL" },
			[SIT_READY_BEFORE] = { true,
				"the eventfd has a lower fd number, is polled "
				"first and is ready: every later fd, the video "
				"fd included, gets NULL" },
			[SIT_READY_AFTER] = { false,
				"the video fd has the lower number: it is "
				"polled with the full table and its own key "
				"before the eventfd ends the call; no NULL" },
		},
	},
	/* pselect6 -> core_sys_select() -> do_select(): as select. */
	[API_PSELECT] = {
		.name = "pselect",
		.repolls = true,
		.key = key_select,
		.legacy = {
			[SIT_WAKE] = { true, "as select: pass after wake-up "
				"gets NULL" },
			[SIT_ZERO] = { true, "as select: zero timeout -> "
				"NULL" },
			[SIT_READY_BEFORE] = { true, "as select: after the "
				"first ready fd -> NULL" },
			[SIT_READY_AFTER] = { false, "as select: the video "
				"fd is polled before anything is ready" },
		},
	},
	/*
	 * do_poll(): same structure as do_select() (pt->_qproc = NULL after
	 * a ready entry, after each pass, and for a zero timeout); entries
	 * are polled in array order.
	 */
	[API_POLL] = {
		.name = "poll",
		.repolls = true,
		.key = key_poll,
		.legacy = {
			[SIT_WAKE] = { true, "pass after the wake-up gets "
				"NULL" },
			[SIT_ZERO] = { true, "zero timeout: the only pass "
				"gets NULL" },
			[SIT_READY_BEFORE] = { true, "pollfd[0] (eventfd) is "
				"ready: pollfd[1] (video) gets NULL" },
			[SIT_READY_AFTER] = { false, "pollfd[0] (video) is "
				"polled with the table before pollfd[1] is "
				"found ready" },
		},
	},
	/* ppoll -> do_sys_poll() -> do_poll(): as poll. */
	[API_PPOLL] = {
		.name = "ppoll",
		.repolls = true,
		.key = key_poll,
		.legacy = {
			[SIT_WAKE] = { true, "as poll" },
			[SIT_ZERO] = { true, "as poll" },
			[SIT_READY_BEFORE] = { true, "as poll" },
			[SIT_READY_AFTER] = { false, "as poll" },
		},
	},
	/*
	 * epoll: ep_insert() polls the new item once with a real table
	 * (ep_ptable_queue_proc) and _key = events; ep_modify() and
	 * ep_send_events() poll with a table whose _qproc is NULL and
	 * _key = events. Switch on (pre-v3.4): ep_insert() polls with
	 * _key ~0 (init_poll_funcptr() default, the key was not set), MOD
	 * and epoll_wait's re-poll hand NULL. So EPOLL_CTL_ADD alone starts
	 * the engine in every situation: the situation does not matter,
	 * ordering with the eventfd (ready list order) neither.
	 */
	[API_EPOLL_ADD] = {
		.name = "epoll-add",
		.key = key_poll,
		.legacy = {
			[SIT_WAKE] = { true, "EPOLL_CTL_ADD polls with key "
				"~0, before any waiting" },
			[SIT_ZERO] = { true, "EPOLL_CTL_ADD polls with key "
				"~0; epoll_wait(0) does not matter" },
			[SIT_READY_BEFORE] = { true, "EPOLL_CTL_ADD polls "
				"with key ~0, whatever was added before" },
			[SIT_READY_AFTER] = { true, "EPOLL_CTL_ADD polls with "
				"key ~0" },
		},
	},
	/*
	 * epoll-mod: the video fd is ADDed (events 0) while two MMAP buffers
	 * are allocated, so vb2 cannot start file-io even for a ~0 key (it
	 * needs num_buffers == 0; it just returns EPOLLERR, not streaming).
	 * The buffers are then freed (REQBUFS 0) and the item is MODified
	 * to the requested mask: today ep_modify() polls with _key = mask,
	 * with the switch on it hands NULL -> ~0 -> the engine starts, in
	 * every situation.
	 */
	[API_EPOLL_MOD] = {
		.name = "epoll-mod",
		.key = key_poll,
		.legacy = {
			[SIT_WAKE] = { true, "EPOLL_CTL_MOD polls with NULL" },
			[SIT_ZERO] = { true, "EPOLL_CTL_MOD polls with NULL" },
			[SIT_READY_BEFORE] = { true, "EPOLL_CTL_MOD polls with "
				"NULL" },
			[SIT_READY_AFTER] = { true, "EPOLL_CTL_MOD polls with "
				"NULL" },
		},
	},
	/*
	 * io_uring: arming and re-polling always use a table with the
	 * request's key (never NULL); the switch does not touch io_uring.
	 */
	[API_IO_URING] = {
		.name = "io_uring",
		.repolls = true,
		.key = key_io_uring,
		.wake_extra = K_IO_POLL_UNMASK,
		.legacy = {
			[SIT_WAKE] = { false, "io_uring always passes its key "
				"(unchanged by the switch)" },
			[SIT_ZERO] = { false, "io_uring: unchanged" },
			[SIT_READY_BEFORE] = { false, "io_uring: unchanged; "
				"requests are independent" },
			[SIT_READY_AFTER] = { false, "io_uring: unchanged" },
		},
	},
	/*
	 * aio IOCB_CMD_POLL: always req->events as the key; unchanged by the
	 * switch. But aio poll supports a single wait queue per file:
	 * aio_poll_queue_proc() sets apt->error = -EINVAL on a second
	 * poll_wait(), and aio_poll() then fails the submission with EINVAL
	 * unless that first ->poll() already returned an event. vb2_poll()
	 * waits on two queues (q->done_wq and the file handle's event
	 * queue), and in every situation here nothing is pending at submit
	 * time, so io_submit() of the video fd's iocb fails with EINVAL:
	 * the events cannot be waited for with aio at all. The one arming
	 * ->poll() has run by then, with the key: it starts the engine iff
	 * POLLIN was requested, like any other keyed poll.
	 */
	[API_AIO] = {
		.name = "aio",
		.key = key_poll,
		.refuses = true,
		.legacy = {
			[SIT_WAKE] = { false, "aio poll always passes its key "
				"(unchanged by the switch)" },
			[SIT_ZERO] = { false, "aio: unchanged" },
			[SIT_READY_BEFORE] = { false, "aio: unchanged; iocbs "
				"are independent" },
			[SIT_READY_AFTER] = { false, "aio: unchanged" },
		},
	},
};

const char *prove_api_name(enum prove_api api)
{
	return api < API_COUNT ? rows[api].name : "?";
}

const char *prove_sit_name(enum prove_sit sit)
{
	static const char *const names[SIT_COUNT] = {
		[SIT_WAKE] = "wake",
		[SIT_ZERO] = "zero-timeout",
		[SIT_READY_BEFORE] = "ready-before",
		[SIT_READY_AFTER] = "ready-after",
	};
	return sit < SIT_COUNT ? names[sit] : "?";
}

const char *prove_req_name(unsigned int req)
{
	switch (req) {
	case REQ_PRI: return "PRI";
	case REQ_IN: return "IN";
	case REQ_BOTH: return "IN|PRI";
	default: return "?";
	}
}

void prove_expect(enum prove_api api, enum prove_sit sit, unsigned int req,
		  bool legacy, struct prove_expect *e)
{
	const struct api_row *row = &rows[api];
	bool null_table = legacy && row->legacy[sit].null_table;
	uint32_t wake_extra = row->wake_extra;

	if (api == API_IO_URING && !(req & REQ_IN) && io_uring_rdhup_reads_only())
		wake_extra &= ~(uint32_t)POLLRDHUP;

	/* vb2 starts file-io iff a requested mask contains POLLIN. */
	e->started = (req & REQ_IN) || null_table;

	/*
	 * Only (a) raises an event; only a POLLPRI request can report it;
	 * an API that refuses the fd reports nothing.
	 */
	if (row->refuses)
		e->ev = EV_REFUSED;
	else
		e->ev = (sit == SIT_WAKE && (req & REQ_PRI)) ? EV_YES : EV_NA;
	/*
	 * aio_poll() drops its EINVAL when its one ->poll() already reported
	 * an event. With POLLIN asked, that call starts the engine, whose
	 * first frame is due one interval later: a submitter held up that
	 * long before vb2 looks at its done list (a descheduled vCPU) sees
	 * the submission complete at once with POLLIN instead (its
	 * completion may come after the eventfd's). So either is right for
	 * a POLLIN request.
	 */
	e->ready_may_pass = row->refuses && (req & REQ_IN);
	/*
	 * Such a frame can also end a wake cell's wait call on its first
	 * pass, before any wake-up: then the pass this situation is about
	 * (the one after a wake-up, NULL with the switch on) never ran, and
	 * the mask is the first pass's key. The cell waits again then (after
	 * reading the frames) until a call has slept and polled again.
	 */
	e->needs_repoll = sit == SIT_WAKE && row->repolls;

	if (null_table) {
		e->mask_must = 0xffffffffu;
		e->mask_may = 0;
		e->why = row->legacy[sit].why;
	} else {
		e->mask_must = row->key(req) |
			(sit == SIT_WAKE ? wake_extra : 0);
		e->mask_may = wake_extra;
		if (legacy)
			e->why = row->legacy[sit].why;
		else
			e->why = (req & REQ_IN) ?
				"POLLIN requested: vb2 file-io starts the "
				"engine" :
				"key without POLLIN: vb2 returns before "
				"starting file-io";
	}
}
