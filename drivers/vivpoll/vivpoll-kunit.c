// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the helpers that decide what vivpoll does: buffer counts
 * and sizes, frame slots, missed slots and sequence numbers, the drawn
 * clock
 *
 * Built as vivpoll_kunit.ko; the suite "vivpoll" runs when it is loaded.
 */

#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "vivpoll-logic.h"

static void vivpoll_test_buffer_count(struct kunit *test)
{
	/* VIDIOC_REQBUFS: raised to what the engine needs, no further */
	KUNIT_EXPECT_EQ(test, vivpoll_buffers_to_allocate(1, false, false),
			VIVPOLL_MIN_BUFFERS);
	/* GStreamer 1.22's v4l2src asks for 2 and must get 2 */
	KUNIT_EXPECT_EQ(test, vivpoll_buffers_to_allocate(2, false, false), 2);
	KUNIT_EXPECT_EQ(test, vivpoll_buffers_to_allocate(3, false, false), 3);
	KUNIT_EXPECT_EQ(test, vivpoll_buffers_to_allocate(32, false, false),
			32);
	/* read(): vb2 asks for one and lets the driver decide */
	KUNIT_EXPECT_EQ(test, vivpoll_buffers_to_allocate(1, false, true),
			VIVPOLL_READ_BUFFERS);
	/* VIDIOC_CREATE_BUFS: never raised */
	KUNIT_EXPECT_EQ(test, vivpoll_buffers_to_allocate(1, true, false), 1);
	KUNIT_EXPECT_EQ(test, vivpoll_buffers_to_allocate(0, true, false), 0);
	KUNIT_EXPECT_LE(test, VIVPOLL_MIN_BUFFERS, 2);
}

static void vivpoll_test_plane_size(struct kunit *test)
{
	const u32 vga = 640 * 480 * 2;
	const struct vivpoll_fmt *fmt;

	KUNIT_EXPECT_TRUE(test, vivpoll_plane_size_ok(vga, vga));
	KUNIT_EXPECT_TRUE(test,
			  vivpoll_plane_size_ok(VIVPOLL_MAX_PLANE_SIZE, vga));
	KUNIT_EXPECT_TRUE(test, vivpoll_plane_size_ok(VIVPOLL_MAX_SIZEIMAGE,
						      VIVPOLL_MAX_SIZEIMAGE));
	KUNIT_EXPECT_FALSE(test, vivpoll_plane_size_ok(vga - 1, vga));
	KUNIT_EXPECT_FALSE(test, vivpoll_plane_size_ok(0, vga));
	KUNIT_EXPECT_FALSE(test,
			   vivpoll_plane_size_ok(VIVPOLL_MAX_PLANE_SIZE + 1,
						 vga));
	/* what made the guest run out of memory, and vmalloc warn */
	KUNIT_EXPECT_FALSE(test, vivpoll_plane_size_ok(0x10000000, vga));
	KUNIT_EXPECT_FALSE(test, vivpoll_plane_size_ok(0xf0000000, vga));
	KUNIT_EXPECT_FALSE(test, vivpoll_plane_size_ok(U32_MAX, vga));
	/* the largest frame the driver makes */
	fmt = vivpoll_find_format(V4L2_PIX_FMT_XBGR32);
	KUNIT_EXPECT_EQ(test, vivpoll_sizeimage(fmt, 1920, 1080),
			VIVPOLL_MAX_SIZEIMAGE);
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

	/*
	 * an exact size is its own nearest, which VIDIOC_ENUM_FRAMEINTERVALS
	 * needs
	 */
	sz = vivpoll_nearest_size(1920, 1080);
	KUNIT_EXPECT_EQ(test, sz->width, 1920);
	KUNIT_EXPECT_EQ(test, sz->height, 1080);
	sz = vivpoll_nearest_size(641, 480);
	KUNIT_EXPECT_NE(test, sz->width, 641);
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

	KUNIT_EXPECT_EQ(test,
			vivpoll_intervals[VIVPOLL_DEF_INTERVAL].denominator,
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
			3600ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, vivpoll_frame_due_ns(30000, &ntsc),
			1001ULL * NSEC_PER_SEC);

	for (n = 0; n < 1000; n++)
		KUNIT_EXPECT_LT(test, vivpoll_frame_due_ns(n, &fps30),
				vivpoll_frame_due_ns(n + 1, &fps30));
}

static void vivpoll_test_slot_at(struct kunit *test)
{
	const struct v4l2_fract fps30 = { 1, 30 };
	const struct v4l2_fract ntsc = { 1001, 30000 };
	u64 n;

	KUNIT_EXPECT_EQ(test, vivpoll_slot_at(0, &fps30), 0);
	KUNIT_EXPECT_EQ(test, vivpoll_slot_at(33333332, &fps30), 0);
	KUNIT_EXPECT_EQ(test, vivpoll_slot_at(33333333, &fps30), 1);
	KUNIT_EXPECT_EQ(test, vivpoll_slot_at(NSEC_PER_SEC, &fps30), 30);
	KUNIT_EXPECT_EQ(test, vivpoll_slot_at(3600ULL * NSEC_PER_SEC, &fps30),
			108000);
	/* slot n is in progress from its due time to the next one's */
	for (n = 0; n < 2000; n += 7) {
		u64 due = vivpoll_frame_due_ns(n, &ntsc);

		KUNIT_EXPECT_EQ(test, vivpoll_slot_at(due, &ntsc), n);
		if (n)
			KUNIT_EXPECT_EQ(test, vivpoll_slot_at(due - 1, &ntsc),
					n - 1);
	}
}

static void vivpoll_test_catch_up(struct kunit *test)
{
	const struct v4l2_fract fps30 = { 1, 30 };
	u32 sequence = 10;
	u64 slot, due;

	/* on time, or late within the slot: nothing missed */
	slot = vivpoll_catch_up(&sequence, 10, vivpoll_frame_due_ns(10, &fps30),
				&fps30);
	KUNIT_EXPECT_EQ(test, slot, 10);
	slot = vivpoll_catch_up(&sequence, 10,
				vivpoll_frame_due_ns(11, &fps30) - 1, &fps30);
	KUNIT_EXPECT_EQ(test, slot, 10);
	/* early (woken up before the slot): nothing either */
	slot = vivpoll_catch_up(&sequence, 10, 0, &fps30);
	KUNIT_EXPECT_EQ(test, slot, 10);
	/* a few slots late: produced late, one after the other */
	due = vivpoll_frame_due_ns(10 + VIVPOLL_MAX_LATE_SLOTS, &fps30);
	slot = vivpoll_catch_up(&sequence, 10, due, &fps30);
	KUNIT_EXPECT_EQ(test, slot, 10);
	KUNIT_EXPECT_EQ(test, sequence, 10);

	/* one more: every slot up to the one in progress is dropped */
	due = vivpoll_frame_due_ns(11 + VIVPOLL_MAX_LATE_SLOTS, &fps30);
	slot = vivpoll_catch_up(&sequence, 10, due, &fps30);
	KUNIT_EXPECT_EQ(test, slot, 11 + VIVPOLL_MAX_LATE_SLOTS);
	KUNIT_EXPECT_EQ(test, sequence, 11 + VIVPOLL_MAX_LATE_SLOTS);
	sequence = 10;

	/* held up for 5 s: 150 slots dropped, the sequence jumps with them */
	due = vivpoll_frame_due_ns(10, &fps30) + 5ULL * NSEC_PER_SEC;
	slot = vivpoll_catch_up(&sequence, 10, due, &fps30);
	KUNIT_EXPECT_EQ(test, slot, 160);
	KUNIT_EXPECT_EQ(test, sequence, 160);
	/* the next frame: timestamp, sequence and slot agree */
	KUNIT_EXPECT_EQ(test, vivpoll_frame_due_ns(slot, &fps30),
			div_u64((u64)sequence * NSEC_PER_SEC, 30));
}

static void vivpoll_expect_clock(struct kunit *test, u64 ns, u32 seq,
				 const char *want)
{
	char buf[VIVPOLL_CLOCK_TEXT_LEN];

	vivpoll_clock_text(buf, sizeof(buf), ns, seq);
	KUNIT_EXPECT_STREQ(test, buf, want);
}

static void vivpoll_test_clock_text(struct kunit *test)
{
	const struct v4l2_fract fps30 = { 1, 30 };
	const struct v4l2_fract fps60 = { 1, 60 };

	/* the time since the stream started, as h:m:s.ms, and the sequence */
	vivpoll_expect_clock(test, vivpoll_frame_due_ns(0, &fps30), 0,
			     " 00:00:00.000 frame 0");
	vivpoll_expect_clock(test, vivpoll_frame_due_ns(5, &fps30), 5,
			     " 00:00:00.166 frame 5");
	vivpoll_expect_clock(test, vivpoll_frame_due_ns(5, &fps60), 5,
			     " 00:00:00.083 frame 5");
	vivpoll_expect_clock(test, vivpoll_frame_due_ns(30, &fps30), 30,
			     " 00:00:01.000 frame 30");
	vivpoll_expect_clock(test, vivpoll_frame_due_ns(108001, &fps30), 108001,
			     " 01:00:00.033 frame 108001");
	vivpoll_expect_clock(test, 61ULL * NSEC_PER_SEC + 999999999, 1,
			     " 00:01:01.999 frame 1");
	vivpoll_expect_clock(test, 100ULL * 3600 * NSEC_PER_SEC, U32_MAX,
			     " 00:00:00.000 frame 4294967295");
}

static struct kunit_case vivpoll_test_cases[] = {
	KUNIT_CASE(vivpoll_test_buffer_count),
	KUNIT_CASE(vivpoll_test_plane_size),
	KUNIT_CASE(vivpoll_test_formats),
	KUNIT_CASE(vivpoll_test_sizes),
	KUNIT_CASE(vivpoll_test_intervals),
	KUNIT_CASE(vivpoll_test_frame_due),
	KUNIT_CASE(vivpoll_test_slot_at),
	KUNIT_CASE(vivpoll_test_catch_up),
	KUNIT_CASE(vivpoll_test_clock_text),
	{}
};

static struct kunit_suite vivpoll_test_suite = {
	.name = "vivpoll",
	.test_cases = vivpoll_test_cases,
};

kunit_test_suite(vivpoll_test_suite);

MODULE_DESCRIPTION("KUnit tests of the vivpoll driver helpers");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_LICENSE("GPL");
