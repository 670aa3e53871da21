#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bigdir-small-zones.sh - tests/ns/test_bigdir on 1 MiB zones with a
# small metadata cache: a directory of a few hundred thousand names is
# built, churned, half removed, then removed whole, and every one of
# those checkpoints must fit in the meta ring.  Before the ring kept
# itself dense (kernel/core/space.c space_meta_compact) and checkpoints
# went early under ring pressure (gaze_meta_pressed), these runs ended
# with "the meta ring has N blocks free, the checkpoint needs M" and a
# failed final checkpoint.
set -e
T=$GAZE_BUILDDIR/tests/ns/test_bigdir
"$T" -n 200000 -z 1 -c 8
"$T" -n 300000 -z 1 -c 4 -s 3
