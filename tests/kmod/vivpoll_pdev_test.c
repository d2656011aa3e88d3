// SPDX-License-Identifier: GPL-2.0-only
/*
 * A platform device with memory resources, registered on request, for
 * tests/93-faults.c: its fault injection (/proc/thread-self/fail-nth)
 * reaches the error paths of platform_device_add() with resources to
 * claim, which vivpoll's own devices (no resources) never do. Not part of
 * the driver; never loaded on the host.
 *
 * Writing N (0 to VPT_MAX_RES) to <debugfs>/vivpoll_pdev_test/add, in the
 * writing task (so that its fail-nth applies):
 *  - platform_device_alloc("vivpoll-pdev-test", PLATFORM_DEVID_AUTO),
 *    platform_device_add_resources() with N memory resources whose parent
 *    is a struct resource of this module's (so that no resource of the
 *    machine is touched), then platform_device_add();
 *  - when the add fails: the write returns its error, once none of the
 *    resources is left claimed (the private parent has no child);
 *  - when it succeeds: the device is deleted, then the same check, and the
 *    write returns the number of bytes written.
 * A resource found claimed after either is -EUCLEAN, an error no step
 * returns: it is left claimed (as evidence, with the device that holds
 * it, put only at module unload, since freeing it would leave the
 * resource tree pointing at freed memory), the kernel log says which, and
 * every later write fails with -EBUSY until the module is reloaded.
 *
 * <debugfs>/vivpoll_pdev_test/claimed reads how many resources of the
 * private parent are claimed now (0 but while a device is registered, or
 * after -EUCLEAN).
 *
 * Parameter drill (deliberate faults, for tests/93-faults.c only): 1
 * makes the module claim the first resource again after a failed add, as
 * an error path of platform_device_add() that forgot to release it would
 * leave it, so that its check fails the write
 * (VIVPOLL_FAULT=pdev-leave-claimed); 2 does the same without the check
 * (the device is kept, the write returns the add's error), which 93 must
 * see by itself in "claimed" (VIVPOLL_FAULT=pdev-leave-claimed-quiet).
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/uaccess.h>

#define VPT_NAME	"vivpoll-pdev-test"
#define VPT_MAX_RES	16
#define VPT_RES_SIZE	0x100
#define VPT_BASE	0x10000000

static unsigned int drill;
module_param(drill, uint, 0444);
MODULE_PARM_DESC(drill,
		 "deliberate fault: 0 none (default), 1 claim the first resource again after a failed add, 2 the same and leave out the check");

/* the parent of every resource this module's devices claim */
static struct resource vpt_parent = {
	.name = "vivpoll-pdev-test parent",
	.start = VPT_BASE,
	.end = VPT_BASE + VPT_MAX_RES * VPT_RES_SIZE - 1,
	.flags = IORESOURCE_MEM,
};

static DEFINE_MUTEX(vpt_lock);
/* what platform_device_add_resources() copies; vpt_lock held */
static struct resource vpt_res[VPT_MAX_RES];
/* a device whose resource was left claimed, kept until unload */
static struct platform_device *vpt_stuck;
static struct dentry *vpt_dir;

/* the resources claimed under the parent now; vpt_lock held */
static unsigned int vpt_claimed(void)
{
	struct resource *r;
	unsigned int n = 0;

	for (r = vpt_parent.child; r; r = r->sibling)
		n++;
	return n;
}

/*
 * After a failed add or a delete: no resource may be left claimed. If one
 * is, keep the device that holds it; -EUCLEAN.
 */
static int vpt_check_released(struct platform_device *pdev, const char *after)
{
	unsigned int n = vpt_claimed();

	if (!n)
		return 0;
	pr_err("vivpoll_pdev_test: %u of %u resources left claimed after %s, first %pR\n",
	       n, pdev->num_resources, after, vpt_parent.child);
	vpt_stuck = pdev;
	return -EUCLEAN;
}

static int vpt_add(unsigned int nres)
{
	struct platform_device *pdev;
	unsigned int i;
	int ret;

	memset(vpt_res, 0, sizeof(vpt_res));
	for (i = 0; i < nres; i++) {
		vpt_res[i].start = VPT_BASE + i * VPT_RES_SIZE;
		vpt_res[i].end = vpt_res[i].start + VPT_RES_SIZE - 1;
		vpt_res[i].flags = IORESOURCE_MEM;
		/* platform_device_add() claims it there, not in iomem */
		vpt_res[i].parent = &vpt_parent;
	}

	pdev = platform_device_alloc(VPT_NAME, PLATFORM_DEVID_AUTO);
	if (!pdev)
		return -ENOMEM;
	ret = platform_device_add_resources(pdev, vpt_res, nres);
	if (ret)
		goto put;

	ret = platform_device_add(pdev);
	if (ret) {
		/* the drill: as if the error path had not released it */
		if (drill && nres)
			request_resource(&vpt_parent, &pdev->resource[0]);
		if (drill == 2 && nres) {
			/* the check left out; the device kept, not freed */
			vpt_stuck = pdev;
			return ret;
		}
		if (vpt_check_released(pdev, "a failed add"))
			return -EUCLEAN;
		goto put;
	}

	platform_device_del(pdev);
	if (vpt_check_released(pdev, "the device's deletion"))
		return -EUCLEAN;
put:
	platform_device_put(pdev);
	return ret;
}

static ssize_t vpt_add_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	unsigned int nres;
	int ret;

	ret = kstrtouint_from_user(buf, count, 0, &nres);
	if (ret)
		return ret;
	if (nres > VPT_MAX_RES)
		return -ERANGE;

	mutex_lock(&vpt_lock);
	if (vpt_stuck || vpt_claimed())
		ret = -EBUSY;
	else
		ret = vpt_add(nres);
	mutex_unlock(&vpt_lock);
	return ret ? ret : count;
}

static const struct file_operations vpt_add_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = vpt_add_write,
	.llseek = noop_llseek,
};

static int vpt_claimed_get(void *data, u64 *val)
{
	mutex_lock(&vpt_lock);
	*val = vpt_claimed();
	mutex_unlock(&vpt_lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vpt_claimed_fops, vpt_claimed_get, NULL, "%llu\n");

static int __init vpt_init(void)
{
	if (drill > 2) {
		pr_err("vivpoll_pdev_test: drill=%u: 0 (none), 1 (claim the first resource again after a failed add) or 2 (the same without the check)\n",
		       drill);
		return -EINVAL;
	}
	vpt_dir = debugfs_create_dir("vivpoll_pdev_test", NULL);
	if (IS_ERR(vpt_dir))
		return PTR_ERR(vpt_dir);
	debugfs_create_file("add", 0200, vpt_dir, NULL, &vpt_add_fops);
	debugfs_create_file_unsafe("claimed", 0444, vpt_dir, NULL,
				   &vpt_claimed_fops);
	return 0;
}

static void __exit vpt_exit(void)
{
	debugfs_remove(vpt_dir);
	/* what a failed check left: release it, then free its device */
	while (vpt_parent.child)
		release_resource(vpt_parent.child);
	platform_device_put(vpt_stuck);
}

module_init(vpt_init);
module_exit(vpt_exit);

MODULE_DESCRIPTION("Platform devices with resources on request, for vivpoll's fault injection tests");
MODULE_LICENSE("GPL");
