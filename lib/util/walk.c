// SPDX-License-Identifier: GPL-2.0
/*
 * walk.c - the pieces of a directory tree walk that mkfs.gaze -d (which
 * copies a tree into an image) and gazectl extract (which copies one
 * out) share: a path buffer of any length, a descriptor stack kept under
 * a budget, a hard-link table and xattr name lists.
 *
 * Why: both walks must handle trees deeper than PATH_MAX and wider than
 * the descriptor limit in the same way; one copy keeps them equal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gaze_util.h"

/* ---------------------------------------------------------------- */
/* Path buffer                                                       */
/* ---------------------------------------------------------------- */

int
gaze_pathbuf_init(struct gaze_pathbuf *pb, const char *base)
{
	pb->len = strlen(base);
	pb->cap = pb->len + 256;
	pb->path = malloc(pb->cap);
	if (!pb->path)
		return -ENOMEM;
	memcpy(pb->path, base, pb->len + 1);
	while (pb->len > 1 && pb->path[pb->len - 1] == '/')
		pb->path[--pb->len] = '\0';
	return 0;
}

int
gaze_pathbuf_add(struct gaze_pathbuf *pb, const char *name, size_t len,
		 size_t *old)
{
	size_t need = pb->len + 1 + len + 1;
	char *p;

	if (need > pb->cap) {
		size_t cap = pb->cap * 2 > need ? pb->cap * 2 : need;

		p = realloc(pb->path, cap);
		if (!p)
			return -ENOMEM;
		pb->path = p;
		pb->cap = cap;
	}
	*old = pb->len;
	pb->path[pb->len++] = '/';
	memcpy(pb->path + pb->len, name, len);
	pb->len += len;
	pb->path[pb->len] = '\0';
	return 0;
}

void
gaze_pathbuf_cut(struct gaze_pathbuf *pb, size_t len)
{
	pb->len = len;
	pb->path[len] = '\0';
}

const char *
gaze_pathbuf_xpath(const struct gaze_pathbuf *pb, int dirfd,
		   const char *name, char *buf, size_t size)
{
	if (pb->len < PATH_MAX)
		return pb->path;
	snprintf(buf, size, "/proc/self/fd/%d/%s", dirfd, name);
	return buf;
}

void
gaze_pathbuf_free(struct gaze_pathbuf *pb)
{
	free(pb->path);
	pb->path = NULL;
	pb->len = 0;
	pb->cap = 0;
}

/* ---------------------------------------------------------------- */
/* Directory descriptor stack                                        */
/* ---------------------------------------------------------------- */

void
gaze_dirstack_init(struct gaze_dirstack *ds, uint32_t max_fds)
{
	long fdmax = sysconf(_SC_OPEN_MAX);

	memset(ds, 0, sizeof(*ds));
	if (fdmax <= 64)
		ds->maxfds = 16;
	else
		ds->maxfds = fdmax / 2 < max_fds ? fdmax / 2 : max_fds;
}

int
gaze_dirstack_push(struct gaze_dirstack *ds, int fd, const struct stat *st,
		   size_t pathlen)
{
	struct gaze_dirlevel *lv;

	if (ds->depth == ds->cap) {
		uint32_t cap = ds->cap ? ds->cap * 2 : 64;

		lv = realloc(ds->lv, cap * sizeof(*lv));
		if (!lv)
			return -ENOMEM;
		ds->lv = lv;
		ds->cap = cap;
	}
	if (ds->depth - ds->nclosed >= ds->maxfds) {
		close(ds->lv[ds->nclosed].fd);
		ds->lv[ds->nclosed].fd = -1;
		ds->nclosed++;
	}
	lv = &ds->lv[ds->depth++];
	lv->fd = fd;
	lv->dev = st->st_dev;
	lv->ino = st->st_ino;
	lv->pathlen = pathlen;
	return 0;
}

int
gaze_dirstack_pop(struct gaze_dirstack *ds, int oflags)
{
	struct gaze_dirlevel *top = &ds->lv[ds->depth - 1], *up;
	struct stat st;
	int fd, ret = 0;

	if (ds->depth >= 2 && ds->nclosed == ds->depth - 1) {
		up = top - 1;
		fd = openat(top->fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC |
			    oflags);
		if (fd < 0 || fstat(fd, &st) || st.st_dev != up->dev ||
		    st.st_ino != up->ino) {
			if (fd >= 0)
				close(fd);
			ret = -ESTALE;
		} else {
			up->fd = fd;
			ds->nclosed--;
		}
	}
	close(top->fd);
	ds->depth--;
	return ret;
}

void
gaze_dirstack_free(struct gaze_dirstack *ds)
{
	free(ds->lv);
	memset(ds, 0, sizeof(*ds));
}

/* ---------------------------------------------------------------- */
/* Inode table                                                       */
/* ---------------------------------------------------------------- */

static uint32_t
gaze_inode_hash(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev;

	return (uint32_t)(h ^ (h >> 29));
}

struct gaze_inode_node *
gaze_inode_table_find(const struct gaze_inode_table *t, dev_t dev, ino_t ino)
{
	struct gaze_inode_node *n;

	if (!t->tab)
		return NULL;
	for (n = t->tab[gaze_inode_hash(dev, ino) & t->mask]; n; n = n->next)
		if (n->ino == ino && n->dev == dev)
			return n;
	return NULL;
}

int
gaze_inode_table_add(struct gaze_inode_table *t, struct gaze_inode_node *n)
{
	struct gaze_inode_node *l, *next, **tab;
	uint32_t i, size;

	if (t->count >= (t->tab ? t->mask + 1 : 0)) {
		size = t->tab ? (t->mask + 1) * 2 : 1024;
		tab = calloc(size, sizeof(*tab));
		if (!tab)
			return -ENOMEM;
		for (i = 0; t->tab && i <= t->mask; i++) {
			for (l = t->tab[i]; l; l = next) {
				next = l->next;
				l->next = tab[gaze_inode_hash(l->dev, l->ino) &
					      (size - 1)];
				tab[gaze_inode_hash(l->dev, l->ino) &
				    (size - 1)] = l;
			}
		}
		free(t->tab);
		t->tab = tab;
		t->mask = size - 1;
	}
	i = gaze_inode_hash(n->dev, n->ino) & t->mask;
	n->next = t->tab[i];
	t->tab[i] = n;
	t->count++;
	return 0;
}

void
gaze_inode_table_free(struct gaze_inode_table *t,
		      void (*release)(struct gaze_inode_node *n))
{
	struct gaze_inode_node *n, *next;
	uint32_t i;

	for (i = 0; t->tab && i <= t->mask; i++) {
		for (n = t->tab[i]; n; n = next) {
			next = n->next;
			if (release)
				release(n);
		}
	}
	free(t->tab);
	memset(t, 0, sizeof(*t));
}

/* ---------------------------------------------------------------- */
/* xattr name lists                                                  */
/* ---------------------------------------------------------------- */

const char *
gaze_xname_next(const char *list, size_t len, const char *prev)
{
	const char *n = prev ? prev + strlen(prev) + 1 : list;

	while (n < list + len && !*n)
		n++;
	return n < list + len ? n : NULL;
}
