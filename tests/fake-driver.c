// SPDX-License-Identifier: GPL-2.0
/*
 * fake-driver.so: LD_PRELOAD it to make the node FAKE_DRIVER_NODE (the
 * same character device, by device number) belong to the driver
 * FAKE_DRIVER_NAME, where a program looks:
 *  - sysfs: readlink() of /sys/dev/char/MAJOR:MINOR/device/driver, the
 *    link that names the driver bound to the node's device, gives
 *    ../../../bus/platform/drivers/NAME instead of the real target;
 *  - VIDIOC_QUERYCAP: the driver field of a successful call on the node
 *    is rewritten, in the caller's copy; every ioctl still goes to the
 *    kernel.
 * FAKE_DRIVER_ONLY=sysfs or =querycap fakes only that one, so that the two
 * disagree. tests/87-media-selftest.sh stands a test driver's node in for
 * a real camera's with it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/videodev2.h>

/* The name to fake in WHERE (sysfs, querycap), or NULL. */
static const char *fake(const char *where)
{
	const char *only = getenv("FAKE_DRIVER_ONLY");

	if (!getenv("FAKE_DRIVER_NODE") || (only && strcmp(only, where)))
		return NULL;
	return getenv("FAKE_DRIVER_NAME");
}

static bool is_node(int fd, const char *node)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(node, &b) && S_ISCHR(a.st_mode) &&
	       S_ISCHR(b.st_mode) && a.st_rdev == b.st_rdev;
}

int ioctl(int fd, unsigned long request, ...)
{
	static int (*real_ioctl)(int fd, unsigned long request, ...);
	const char *name = fake("querycap");
	struct v4l2_capability *cap;
	va_list ap;
	void *arg;
	int r;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	r = real_ioctl(fd, request, arg);
	if (!r && request == VIDIOC_QUERYCAP && name &&
	    is_node(fd, getenv("FAKE_DRIVER_NODE"))) {
		cap = arg;
		memset(cap->driver, 0, sizeof(cap->driver));
		strncpy((char *)cap->driver, name, sizeof(cap->driver) - 1);
	}
	return r;
}

ssize_t readlink(const char *path, char *buf, size_t size)
{
	static ssize_t (*real_readlink)(const char *path, char *buf, size_t size);
	const char *name = fake("sysfs");
	char link[64], target[128];
	struct stat st;
	size_t n;

	if (!real_readlink)
		real_readlink = dlsym(RTLD_NEXT, "readlink");
	if (!name || stat(getenv("FAKE_DRIVER_NODE"), &st) || !S_ISCHR(st.st_mode))
		return real_readlink(path, buf, size);
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device/driver",
		 major(st.st_rdev), minor(st.st_rdev));
	if (strcmp(path, link))
		return real_readlink(path, buf, size);
	/* as readlink(2): the target, cut at size, no NUL */
	snprintf(target, sizeof(target), "../../../bus/platform/drivers/%s", name);
	n = strlen(target);
	if (n > size)
		n = size;
	memcpy(buf, target, n);
	return n;
}
