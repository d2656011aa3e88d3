// SPDX-License-Identifier: GPL-2.0
/*
 * 01-knob: fs.poll_legacy_null_table is a demonstration knob that only a
 * task with CAP_SYS_ADMIN can turn, and that leaves a trace once turned.
 *
 * The sysctl exists (CONFIG_POLL_LEGACY_NULL_TABLE=y, as every guest kernel
 * of make check is built) and is off; root without CAP_SYS_ADMIN gets EPERM
 * writing it, whatever it writes, and nothing changes; the first write of 1
 * taints the kernel (TAINT_USER) and logs one line, which later writes do
 * not repeat. Runs early (01), before any suite has set the switch in this
 * boot: a kernel already tainted TAINT_USER cannot show the first set, and
 * that case is a SKIP that says so, never a pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define KNOB "/proc/sys/fs/poll_legacy_null_table"
#define TAINTED "/proc/sys/kernel/tainted"
#define TAINT_USER_BIT 6	/* 'U', include/linux/panic.h */
#define LOG_LINE "fs.poll_legacy_null_table: select(), poll() and epoll pass pre-v3.4 poll tables, tainting kernel"

/* The first line of PATH as a number; -1 if it cannot be read. */
static long read_num(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f && fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* write(2) of S to the knob: 0, or the errno of open or write. */
static int write_knob(const char *s)
{
	int fd = open(KNOB, O_WRONLY), e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

static bool tainted_user(void)
{
	return (read_num(TAINTED) >> TAINT_USER_BIT) & 1;
}

/* How many times the kernel log (since boot or the last clear) has LOG_LINE. */
static int log_lines(void)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n = 0;
	char *buf, *p;

	if (len <= 0)
		return -1;
	buf = calloc(1, len + 1);
	if (!buf)
		return -1;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	for (p = buf; len > 0 && (p = strstr(p, LOG_LINE)); p++)
		n++;
	free(buf);
	return len < 0 ? -1 : n;
}

/*
 * Drop CAP_SYS_ADMIN from this task's effective and permitted sets; 1 if it
 * is gone from the effective set afterwards (read back), 0 if not, -1 on error.
 */
static int drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	unsigned int i = CAP_TO_INDEX(CAP_SYS_ADMIN);

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[i].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	d[i].permitted &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	if (syscall(SYS_capset, &h, d) || syscall(SYS_capget, &h, d))
		return -1;
	return !(d[i].effective & CAP_TO_MASK(CAP_SYS_ADMIN));
}

TEST(knob_exists_and_is_off)
{
	ASSERT_EQ(0, access(KNOB, F_OK)) {
		TH_LOG(KNOB " is missing: is CONFIG_POLL_LEGACY_NULL_TABLE off?");
	}
	EXPECT_EQ(0, read_num(KNOB));
}

/*
 * Root (euid 0, which the file's mode 0644 lets open it for writing)
 * without CAP_SYS_ADMIN: every write is refused with EPERM, and neither the
 * value nor the taint changes. Each TEST runs in a child of its own: the
 * dropped capability does not outlive it.
 */
TEST(root_without_cap_sys_admin_gets_eperm)
{
	const char *const vals[] = { "1", "0", "1\n", "junk" };
	bool was_tainted = tainted_user();
	unsigned int i;

	ASSERT_EQ(0, geteuid());
	ASSERT_EQ(1, drop_cap_sys_admin());
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		EXPECT_EQ(EPERM, write_knob(vals[i])) {
			TH_LOG("writing '%s' without CAP_SYS_ADMIN", vals[i]);
		}
	}
	EXPECT_EQ(0, read_num(KNOB));
	EXPECT_EQ(was_tainted, tainted_user());
}

/*
 * With CAP_SYS_ADMIN: the first 1 taints the kernel and logs one line;
 * setting it again (after 0) logs nothing more. Ends with the switch off.
 */
TEST(first_set_taints_and_logs_once)
{
	int before;

	if (tainted_user())
		SKIP(return, "the kernel is tainted TAINT_USER already (the switch was set earlier in this boot?): the first set cannot be shown");
	before = log_lines();
	ASSERT_LE(0, before);
	EXPECT_EQ(0, before);
	ASSERT_EQ(0, write_knob("1"));
	EXPECT_EQ(1, read_num(KNOB));
	EXPECT_TRUE(tainted_user());
	EXPECT_EQ(before + 1, log_lines());
	ASSERT_EQ(0, write_knob("0"));
	ASSERT_EQ(0, write_knob("1"));
	EXPECT_EQ(before + 1, log_lines()) {
		TH_LOG("the second set logged again");
	}
	EXPECT_TRUE(tainted_user());
	EXPECT_EQ(0, write_knob("0"));
	EXPECT_EQ(0, read_num(KNOB));
}

TEST_HARNESS_MAIN
