/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Force-included (-include) before an unmodified kernel selftest: the
 * harness's per-test limit from KSFT_TEST_TIMEOUT (seconds) instead of its
 * fixed 30 s, for tests that finish under TCG, only slower (epoll60's eight
 * spinning waiters). The test's own #include then finds the guard set.
 */
#include <kselftest_harness.h>
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT KSFT_TEST_TIMEOUT
