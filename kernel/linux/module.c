// SPDX-License-Identifier: GPL-2.0
/*
 * module.c - gaze.ko entry points.  The module carries the shared core
 * (format, layout, tables, checkpoints, namespace: the very same files
 * the userspace library builds) and the VFS glue in linux/ (see
 * gaze_kern.h).  Loading it checks the core once and registers the
 * "gaze" filesystem; unloading unregisters it.
 */
#include <linux/module.h>
#include <linux/init.h>
#include "gaze_kern.h"

int gaze_log_level = GAZE_LOG_WARN;
module_param_named(log_level, gaze_log_level, int, 0644);
MODULE_PARM_DESC(log_level, "core log level (3 err, 4 warn, 6 info, 7 debug)");

static int __init gaze_init(void)
{
	u32 key[4] = { 0, 0, 0, 0 };
	int ret;

	/* a cheap self-check that the shared core is linked and sane */
	if (gaze_siphash(key, "gaze", 4) == 0)
		return -EINVAL;
	ret = gaze_super_init();
	if (ret) {
		pr_err("gaze: cannot register the filesystem: %d\n", ret);
		return ret;
	}
	pr_info("gaze: loaded (format version %d)\n", GAZE_FORMAT_VERSION);
	return 0;
}

static void __exit gaze_exit(void)
{
	gaze_super_exit();
}

module_init(gaze_init);
module_exit(gaze_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("GAZE log-structured filesystem for zoned storage");
MODULE_AUTHOR("The GAZE developers");
