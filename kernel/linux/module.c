// SPDX-License-Identifier: GPL-2.0
/*
 * module.c - gaze.ko entry points.  At this stage the module carries the
 * shared core (format, layout, tables, checkpoints, namespace) so that the
 * very same files are built by Kbuild as by the userspace library; the
 * VFS glue (super operations, address space, ioctls) arrives with the
 * kernel-module issue.  Loading it checks the format contract once.
 */
#include <linux/module.h>
#include <linux/init.h>
#include "gaze_core.h"

int gaze_log_level = GAZE_LOG_WARN;
module_param_named(log_level, gaze_log_level, int, 0644);
MODULE_PARM_DESC(log_level, "core log level (3 err, 4 warn, 6 info, 7 debug)");

static int __init gaze_init(void)
{
	u32 key[4] = { 0, 0, 0, 0 };

	/* a cheap self-check that the shared core is linked and sane */
	if (gaze_siphash(key, "gaze", 4) == 0)
		return -EINVAL;
	pr_info("gaze: shared core loaded (format version %d)\n",
		GAZE_FORMAT_VERSION);
	return 0;
}

static void __exit gaze_exit(void)
{
}

module_init(gaze_init);
module_exit(gaze_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("GAZE log-structured filesystem for zoned storage");
MODULE_AUTHOR("The GAZE developers");
