/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fixture_fsck.h - the checker's library (fsck/) on an emulated device,
 * for core tests that link it (their Makefile.inc adds the fsck sources and
 * -I fsck).
 */
#ifndef GAZE_TEST_FIXTURE_FSCK_H
#define GAZE_TEST_FIXTURE_FSCK_H

#include <stdio.h>
#include <string.h>

#include "fsck.h"

/* fsck -fn on the device: 0 when it finds nothing */
static inline int
fsck_problems_on(struct gaze_dev *dev)
{
	struct fsck_opts o;
	struct fsck f;
	FILE *out = fopen("/dev/null", "w");
	int err;

	memset(&o, 0, sizeof(o));
	o.mode = FSCK_MODE_CHECK;
	o.force = true;
	o.out = out;
	fsck_init(&f, dev, "emulator", &o);
	err = fsck_check(&f);
	err = err ? err : (int)(f.problems + f.fatal);
	fsck_fini(&f);
	if (out)
		fclose(out);
	return err;
}

#endif /* GAZE_TEST_FIXTURE_FSCK_H */
