// SPDX-License-Identifier: GPL-2.0-only
/*
 * A KUnit suite named "vivpoll", as the driver's, with one case that
 * passes and one that KUnit skips: the fault drill tests/70-kunit.sh must
 * turn red on (tools/check-harness.sh, VIVPOLL_FAULT=kunit-skip). Not part
 * of the driver.
 */

#include <kunit/test.h>
#include <linux/module.h>

static void vivpoll_drill_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static void vivpoll_drill_skips(struct kunit *test)
{
	kunit_skip(test, "fault drill: a case KUnit skips");
}

static struct kunit_case vivpoll_drill_cases[] = {
	KUNIT_CASE(vivpoll_drill_passes),
	KUNIT_CASE(vivpoll_drill_skips),
	{}
};

static struct kunit_suite vivpoll_drill_suite = {
	.name = "vivpoll",
	.test_cases = vivpoll_drill_cases,
};

kunit_test_suite(vivpoll_drill_suite);

MODULE_DESCRIPTION("A KUnit suite with a skipped case, for the harness's fault drills");
MODULE_LICENSE("GPL");
