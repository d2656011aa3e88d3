// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the pure helpers of vivpoll
 *
 * Built as vivpoll_kunit.ko; the suite "vivpoll" runs when it is loaded.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "vivpoll-logic.h"

/* What select() asks for: POLLIN_SET, POLLOUT_SET, POLLEX_SET in fs/select.c */
#define SELECT_IN	(EPOLLRDNORM | EPOLLRDBAND | EPOLLIN | EPOLLHUP | \
			 EPOLLERR | EPOLLNVAL)
#define SELECT_OUT	(EPOLLWRBAND | EPOLLWRNORM | EPOLLOUT | EPOLLERR | \
			 EPOLLNVAL)
#define SELECT_EX	(EPOLLPRI | EPOLLNVAL)

static void vivpoll_test_poll_rule(struct kunit *test)
{
	/* select() on exceptfds only, or poll(POLLPRI): never starts */
	KUNIT_EXPECT_FALSE(test, vivpoll_poll_may_start_engine(SELECT_EX, false));
	KUNIT_EXPECT_FALSE(test, vivpoll_poll_may_start_engine(EPOLLPRI, false));
	KUNIT_EXPECT_FALSE(test, vivpoll_poll_may_start_engine(SELECT_OUT | SELECT_EX, false));

	/* readfds or POLLIN: starts the read() emulation on an idle queue */
	KUNIT_EXPECT_TRUE(test, vivpoll_poll_may_start_engine(SELECT_IN | SELECT_EX, false));
	KUNIT_EXPECT_TRUE(test, vivpoll_poll_may_start_engine(EPOLLIN, false));
	KUNIT_EXPECT_TRUE(test, vivpoll_poll_may_start_engine(EPOLLRDNORM, false));

	/* but not once buffers are allocated or read() is running */
	KUNIT_EXPECT_FALSE(test, vivpoll_poll_may_start_engine(EPOLLIN, true));
	KUNIT_EXPECT_FALSE(test, vivpoll_poll_may_start_engine(~(__poll_t)0, true));

	/*
	 * A NULL poll table means "everything requested": this is how a
	 * select() waiting only for POLLPRI started streaming before
	 * poll_requested_events() existed.
	 */
	KUNIT_EXPECT_TRUE(test, poll_requested_events(NULL) == ~(__poll_t)0);
	KUNIT_EXPECT_TRUE(test,
			  vivpoll_poll_may_start_engine(poll_requested_events(NULL),
							false));
}

static void vivpoll_test_formats(struct kunit *test)
{
	static const struct {
		u32 fourcc;
		u32 width, height, bpl, size;
	} cases[] = {
		{ V4L2_PIX_FMT_YUYV,    640,  480, 1280,  614400 },
		{ V4L2_PIX_FMT_UYVY,    320,  240,  640,  153600 },
		{ V4L2_PIX_FMT_RGB24,   640,  480, 1920,  921600 },
		{ V4L2_PIX_FMT_BGR24,  1280,  720, 3840, 2764800 },
		{ V4L2_PIX_FMT_XBGR32, 1920, 1080, 7680, 8294400 },
		{ V4L2_PIX_FMT_RGB565,  640,  480, 1280,  614400 },
		{ V4L2_PIX_FMT_GREY,    640,  480,  640,  307200 },
	};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(cases), ARRAY_SIZE(vivpoll_formats));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct vivpoll_fmt *fmt;

		fmt = vivpoll_find_format(cases[i].fourcc);
		KUNIT_ASSERT_NOT_NULL(test, fmt);
		KUNIT_EXPECT_EQ(test, fmt->fourcc, cases[i].fourcc);
		KUNIT_EXPECT_EQ(test, vivpoll_bytesperline(fmt, cases[i].width),
				cases[i].bpl);
		KUNIT_EXPECT_EQ(test, vivpoll_sizeimage(fmt, cases[i].width,
							cases[i].height),
				cases[i].size);
	}

	KUNIT_EXPECT_NULL(test, vivpoll_find_format(0));
	KUNIT_EXPECT_NULL(test, vivpoll_find_format(V4L2_PIX_FMT_MJPEG));
	KUNIT_EXPECT_EQ(test, vivpoll_formats[0].fourcc, V4L2_PIX_FMT_YUYV);
}

static void vivpoll_test_sizes(struct kunit *test)
{
	const struct v4l2_frmsize_discrete *sz;

	sz = vivpoll_nearest_size(0, 0);
	KUNIT_EXPECT_EQ(test, sz->width, 320);
	KUNIT_EXPECT_EQ(test, sz->height, 240);

	sz = vivpoll_nearest_size(U32_MAX, U32_MAX);
	KUNIT_EXPECT_EQ(test, sz->width, 1920);
	KUNIT_EXPECT_EQ(test, sz->height, 1080);

	sz = vivpoll_nearest_size(700, 500);
	KUNIT_EXPECT_EQ(test, sz->width, 640);
	KUNIT_EXPECT_EQ(test, sz->height, 480);

	sz = vivpoll_nearest_size(1280, 720);
	KUNIT_EXPECT_EQ(test, sz->width, 1280);
	KUNIT_EXPECT_EQ(test, sz->height, 720);

	KUNIT_EXPECT_TRUE(test, vivpoll_size_is_valid(640, 480));
	KUNIT_EXPECT_TRUE(test, vivpoll_size_is_valid(1920, 1080));
	KUNIT_EXPECT_FALSE(test, vivpoll_size_is_valid(641, 480));
	KUNIT_EXPECT_FALSE(test, vivpoll_size_is_valid(0, 0));
}

static void vivpoll_test_intervals(struct kunit *test)
{
	static const struct {
		struct v4l2_fract in;
		u32 fps;
	} cases[] = {
		{ {    0,     0 }, 30 },	/* invalid: default */
		{ {    1,     0 }, 30 },
		{ {    0,     1 }, 30 },
		{ {    1,    30 }, 30 },
		{ { 1001, 30000 }, 30 },
		{ {    2,    55 }, 30 },	/* 27.5 fps */
		{ {    1,    24 }, 25 },
		{ {    1,     1 },  5 },	/* clamped to the slowest */
		{ {    1,  1000 }, 60 },	/* clamped to the fastest */
		{ {    1,    60 }, 60 },
		{ {    1,    10 }, 10 },
	};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, vivpoll_intervals[VIVPOLL_DEF_INTERVAL].denominator,
			30);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int idx = vivpoll_nearest_interval(&cases[i].in);

		KUNIT_ASSERT_LT(test, idx, VIVPOLL_NUM_INTERVALS);
		KUNIT_EXPECT_EQ(test, vivpoll_intervals[idx].numerator, 1);
		KUNIT_EXPECT_EQ(test, vivpoll_intervals[idx].denominator,
				cases[i].fps);
	}
}

static void vivpoll_test_frame_due(struct kunit *test)
{
	const struct v4l2_fract fps30 = { 1, 30 };
	const struct v4l2_fract fps60 = { 1, 60 };
	const struct v4l2_fract ntsc = { 1001, 30000 };
	u64 n;

	KUNIT_EXPECT_EQ(test, vivpoll_frame_due_ns(0, &fps30), 0);
	KUNIT_EXPECT_EQ(test, vivpoll_frame_due_ns(1, &fps30), 33333333);
	KUNIT_EXPECT_EQ(test, vivpoll_frame_due_ns(30, &fps30), NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, vivpoll_frame_due_ns(60, &fps60), NSEC_PER_SEC);
	/* no drift: counted from the start, not summed up */
	KUNIT_EXPECT_EQ(test, vivpoll_frame_due_ns(108000, &fps30),
			3600 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, vivpoll_frame_due_ns(30000, &ntsc),
			1001 * NSEC_PER_SEC);

	for (n = 0; n < 1000; n++)
		KUNIT_EXPECT_LT(test, vivpoll_frame_due_ns(n, &fps30),
				vivpoll_frame_due_ns(n + 1, &fps30));
}

static void vivpoll_test_time_base(struct kunit *test)
{
	const struct v4l2_fract fps30 = { 1, 30 };
	const struct v4l2_fract fps5 = { 1, 5 };
	u64 due10 = vivpoll_frame_due_ns(10, &fps30);
	u64 limit = vivpoll_frame_due_ns(10 + VIVPOLL_MAX_LATE_SLOTS, &fps30);

	/* on time, early or a few frames late: keep the time base */
	KUNIT_EXPECT_EQ(test, vivpoll_time_base_shift_ns(0, 0, &fps30), 0);
	KUNIT_EXPECT_EQ(test, vivpoll_time_base_shift_ns(10, due10, &fps30), 0);
	KUNIT_EXPECT_EQ(test, vivpoll_time_base_shift_ns(10, due10 - 1, &fps30),
			0);
	KUNIT_EXPECT_EQ(test, vivpoll_time_base_shift_ns(10, limit, &fps30), 0);

	/* held up for longer: the slot becomes due now */
	KUNIT_EXPECT_EQ(test, vivpoll_time_base_shift_ns(10, limit + 1, &fps30),
			limit + 1 - due10);
	KUNIT_EXPECT_EQ(test, vivpoll_time_base_shift_ns(10, due10 +
							 5 * NSEC_PER_SEC,
							 &fps30),
			5 * NSEC_PER_SEC);

	/* at 5 fps, 500 ms late is still caught up on */
	KUNIT_EXPECT_EQ(test, vivpoll_time_base_shift_ns(1, NSEC_PER_SEC / 5 +
							 500 * NSEC_PER_MSEC,
							 &fps5), 0);
}

static void vivpoll_test_drops(struct kunit *test)
{
	/* which frame slots find a queued buffer */
	static const bool filled[] = {
		true, true, false, true, false, false, true, true, true, false,
	};
	struct vivpoll_counts counts = {};
	u32 last = 0, gaps = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(filled); i++) {
		u32 seq = vivpoll_count_slot(&counts, filled[i]);

		KUNIT_EXPECT_EQ(test, seq, i);
		if (!filled[i])
			continue;
		/* what the application sees: increasing, gaps for drops */
		if (counts.frames > 1) {
			KUNIT_EXPECT_GT(test, seq, last);
			gaps += seq - last - 1;
		}
		last = seq;
	}
	KUNIT_EXPECT_EQ(test, counts.sequence, ARRAY_SIZE(filled));
	KUNIT_EXPECT_EQ(test, counts.frames, 6);
	KUNIT_EXPECT_EQ(test, counts.drops, 4);
	/* the drop at the end is not followed by a frame yet */
	KUNIT_EXPECT_EQ(test, gaps, counts.drops - 1);
}

/*
 * Draw the span vivpoll_text_span() returns over a line of character cells
 * holding @old: the line must then read @new.
 */
static void vivpoll_expect_span(struct kunit *test, const char *old,
				const char *new, unsigned int want_first,
				unsigned int want_len)
{
	unsigned int first = ~0U, len = ~0U;
	char cells[32] = {};

	KUNIT_ASSERT_TRUE(test, vivpoll_text_span(old, new, &first, &len));
	KUNIT_EXPECT_EQ(test, first, want_first);
	KUNIT_EXPECT_EQ(test, len, want_len);
	KUNIT_ASSERT_LE(test, first + len, strlen(new));
	strscpy(cells, old, sizeof(cells));
	memcpy(cells + first, new + first, len);
	KUNIT_EXPECT_STREQ(test, cells, new);
}

static void vivpoll_test_text_span(struct kunit *test)
{
	unsigned int first, len;

	/* a clean picture: the whole line */
	vivpoll_expect_span(test, "", " ts 12.345678", 0, 13);
	/* unchanged: nothing */
	vivpoll_expect_span(test, " vivpoll-0 Camera", " vivpoll-0 Camera",
			    17, 0);
	/* the changed middle only */
	vivpoll_expect_span(test, " 00:00:01.234 frame 37",
			    " 00:00:01.967 frame 37", 10, 3);
	vivpoll_expect_span(test, " 00:00:01.234 frame 37",
			    " 00:00:02.234 frame 45", 8, 14);
	/* longer: up to the end */
	vivpoll_expect_span(test, " frame 99", " frame 100", 7, 3);
	vivpoll_expect_span(test, " frame 9", " frame 10", 7, 2);
	vivpoll_expect_span(test, "ab", "abcd", 2, 2);

	/* shorter: cells of the old text would stay, refused */
	KUNIT_EXPECT_FALSE(test, vivpoll_text_span(" frame 100", " frame 99",
						   &first, &len));
	KUNIT_EXPECT_FALSE(test, vivpoll_text_span(" NO SIGNAL", "",
						   &first, &len));
}

static struct kunit_case vivpoll_test_cases[] = {
	KUNIT_CASE(vivpoll_test_poll_rule),
	KUNIT_CASE(vivpoll_test_formats),
	KUNIT_CASE(vivpoll_test_sizes),
	KUNIT_CASE(vivpoll_test_intervals),
	KUNIT_CASE(vivpoll_test_frame_due),
	KUNIT_CASE(vivpoll_test_time_base),
	KUNIT_CASE(vivpoll_test_drops),
	KUNIT_CASE(vivpoll_test_text_span),
	{}
};

static struct kunit_suite vivpoll_test_suite = {
	.name = "vivpoll",
	.test_cases = vivpoll_test_cases,
};

kunit_test_suite(vivpoll_test_suite);

MODULE_DESCRIPTION("KUnit tests of the vivpoll driver helpers");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
