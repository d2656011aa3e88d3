// SPDX-License-Identifier: GPL-2.0
/*
 * fake-driver.so: LD_PRELOAD it to make VIDIOC_QUERYCAP say that the node
 * FAKE_DRIVER_NODE (the same character device, by device number) belongs
 * to the driver FAKE_DRIVER_NAME. Every ioctl still goes to the kernel;
 * only the driver field of a successful VIDIOC_QUERYCAP on that node is
 * rewritten, in the caller's copy. tests/87-media-selftest.sh stands a
 * test driver's node in for a real camera's with it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/videodev2.h>

static bool is_node(int fd, const char *node)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(node, &b) && S_ISCHR(a.st_mode) &&
	       S_ISCHR(b.st_mode) && a.st_rdev == b.st_rdev;
}

int ioctl(int fd, unsigned long request, ...)
{
	static int (*real_ioctl)(int fd, unsigned long request, ...);
	const char *node = getenv("FAKE_DRIVER_NODE");
	const char *name = getenv("FAKE_DRIVER_NAME");
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
	if (!r && request == VIDIOC_QUERYCAP && node && name && is_node(fd, node)) {
		cap = arg;
		memset(cap->driver, 0, sizeof(cap->driver));
		strncpy((char *)cap->driver, name, sizeof(cap->driver) - 1);
	}
	return r;
}
