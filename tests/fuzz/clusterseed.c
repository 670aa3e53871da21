// SPDX-License-Identifier: GPL-2.0
/*
 * clusterseed.c DIR - seeds for fuzz_cluster: a valid stream of each
 * algorithm for a 4-block cluster of text (mode 0, byte 0 = 0), and the
 * same text as a round-trip input (mode 1).
 */
#include "gaze_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
put(const char *dir, const char *name, u8 b0, const u8 *p, u32 len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fputc(b0, f) == EOF || fwrite(p, 1, len, f) != len) {
		perror(path);
		return 1;
	}
	return fclose(f) ? 1 : 0;
}

int
main(int argc, char **argv)
{
	static const char *const name[] = { NULL, "lz4", "zstd", "gzip" };
	u32 raw = 4 * GAZE_BLOCK_SIZE, i, len;
	u8 *in = malloc(raw), *st = malloc(raw);
	int a, rc = 0;

	if (argc != 2 || !in || !st)
		return 2;
	for (i = 0; i < raw; i++)
		in[i] = (u8)"the zone, the cluster and the log\n"[i % 34];
	for (a = 1; a <= 3 && !rc; a++) {
		rc = gaze_cluster_encode((u8)a, 0, in, raw, st, raw, &len) ?
		     1 : put(argv[1], name[a], 0, st, len);
	}
	if (!rc)
		rc = put(argv[1], "roundtrip", 8, in, 200);
	free(in);
	free(st);
	return rc;
}
