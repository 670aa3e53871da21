// SPDX-License-Identifier: GPL-2.0
/*
 * mount.c - is a device or image file mounted?
 *
 * Why: formatting or repairing a mounted filesystem destroys it, and the
 * tools must refuse that always, -f or not.  O_EXCL on a block device
 * catches most cases, but not image files, loop devices set up over an
 * image, or a device named by another path; so the mount table is read
 * and compared by device number and by path.
 *
 * GAZE_TEST_MOUNTINFO names a file read instead of /proc/self/mountinfo,
 * so tests can pretend an image is mounted.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include "gaze_util.h"

/* undoes mountinfo's octal escapes (\040 for space) in place */
static void
unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) |
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/* same file?  compares canonical paths, falling back to the raw names */
static bool
same_path(const char *a, const char *canon_b)
{
	char ca[PATH_MAX];

	if (a[0] != '/')
		return false;
	if (realpath(a, ca))
		return strcmp(ca, canon_b) == 0;
	return strcmp(a, canon_b) == 0;
}

/*
 * Scans the mount table for a mount whose device number is dev (if
 * use_dev) or whose source is the file canon.  Returns 1, 0 or -errno.
 */
static int
mountinfo_find(bool use_dev, dev_t dev, const char *canon, char *where,
	       size_t len)
{
	const char *file = getenv("GAZE_TEST_MOUNTINFO");
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	if (!file || !*file)
		file = "/proc/self/mountinfo";
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *fields[16], *save = NULL, *tok, *mnt, *src = NULL;
		unsigned int maj, mnr, n = 0, i;

		line[strcspn(line, "\n")] = '\0';
		for (tok = strtok_r(line, " ", &save); tok && n < 16;
		     tok = strtok_r(NULL, " ", &save))
			fields[n++] = tok;
		/* id parent maj:min root mountpoint opts [optional] - fs src */
		if (n < 7 || sscanf(fields[2], "%u:%u", &maj, &mnr) != 2)
			continue;
		mnt = fields[4];
		for (i = 6; i + 2 < n; i++) {
			if (!strcmp(fields[i], "-")) {
				src = fields[i + 2];
				break;
			}
		}
		if (use_dev && makedev(maj, mnr) == dev) {
			ret = 1;
		} else if (src && canon) {
			unescape(src);
			if (same_path(src, canon))
				ret = 1;
		}
		if (ret) {
			if (where) {
				unescape(mnt);
				snprintf(where, len, "%s", mnt);
			}
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

/* loop devices whose backing file is canon: is any of them mounted? */
static int
loop_find(const char *canon, char *where, size_t len)
{
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = opendir("/sys/block");
	if (!d)
		return 0;	/* no sysfs: nothing more to learn */
	while ((de = readdir(d))) {
		char p[PATH_MAX], back[PATH_MAX];
		unsigned int maj, mnr;
		FILE *f;
		int ok;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file",
			 de->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		ok = fgets(back, sizeof(back), f) != NULL;
		fclose(f);
		if (!ok)
			continue;
		back[strcspn(back, "\n")] = '\0';
		if (strcmp(back, canon))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/dev", de->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		ok = fscanf(f, "%u:%u", &maj, &mnr) == 2;
		fclose(f);
		if (!ok)
			continue;
		ret = mountinfo_find(true, makedev(maj, mnr), NULL, where, len);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

int
gaze_mount_check(const char *path, char *where, size_t len)
{
	char canon[PATH_MAX];
	struct stat st;
	int ret;

	if (where && len)
		where[0] = '\0';
	if (stat(path, &st) < 0)
		return -errno;
	if (!realpath(path, canon))
		return -errno;
	if (S_ISBLK(st.st_mode))
		return mountinfo_find(true, st.st_rdev, canon, where, len);
	ret = mountinfo_find(false, 0, canon, where, len);
	if (ret)
		return ret;
	if (S_ISREG(st.st_mode))
		ret = loop_find(canon, where, len);
	return ret;
}
