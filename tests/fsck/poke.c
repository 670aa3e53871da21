// SPDX-License-Identifier: GPL-2.0
/*
 * poke.c - hand-made corruptions for the fsck.gaze tests.
 *
 * Finds a block through the shared core (image opened read-only), then
 * rewrites it in the image file with plain pwrite, with a correct
 * checksum unless the corruption is the checksum itself:
 *
 *   poke IMAGE inode INO FIELD VALUE   FIELD: nlink size blocks parent
 *                                      mode flags
 *   poke IMAGE badcrc NID              flips a byte of a node's body
 *   poke IMAGE dirent-ino DIR NAME INO  inline directory entry -> INO
 *   poke IMAGE dirent-type DIR NAME T   inline directory entry file type
 *   poke IMAGE dirent-drop DIR NAME     removes an inline entry
 *   poke IMAGE usage-flip ADDR          flips ADDR's bit in the usage table
 *   poke IMAGE summary-zero ADDR        clears ADDR's summary entry
 *   poke IMAGE zinfo-valid ZONE N       sets main zone ZONE's valid count
 *   poke IMAGE blk-flip ADDR            flips a byte of block ADDR (bad crc)
 *   poke IMAGE child INO K              prints the inode's nids[K]
 *   poke IMAGE slot INO K ADDR          sets the inode's addr[K]
 *   poke IMAGE fblk INO LBLK            prints the address of a file block
 *   poke IMAGE addr INO                 prints the inode's block address
 *   poke IMAGE data INO                 prints the inode's first data block
 *
 * Exit 0 on success, 1 on failure, 2 on a usage error.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gaze_core.h"
#include "gaze_zdev.h"
#include "gaze_util.h"

static struct gaze_fs *fs;
static struct gaze_dev *dev;
static int fd = -1;
static u8 blk[GAZE_BLOCK_SIZE];

static int
die(const char *msg)
{
	fprintf(stderr, "poke: %s\n", msg);
	return 1;
}

static int
open_img(const char *path)
{
	struct gaze_dev_open_opts o = { .rdonly = true };
	struct gaze_super sb;

	fd = open(path, O_RDWR);
	if (fd < 0 || pread(fd, &sb, sizeof(sb), 0) != (ssize_t)sizeof(sb))
		return -1;
	o.zone_blocks = le32_to_cpu(sb.zone_blocks);
	if (gaze_dev_open(path, &o, &dev))
		return -1;
	return gaze_fs_open(dev, GAZE_FS_RDONLY, &fs);
}

static int
rd(u64 addr)
{
	return pread(fd, blk, sizeof(blk), (off_t)addr * GAZE_BLOCK_SIZE) ==
	       (ssize_t)sizeof(blk) ? 0 : -1;
}

static int
wr(u64 addr, bool csum)
{
	if (csum)
		gaze_fmt_csum_set(blk);
	return pwrite(fd, blk, sizeof(blk), (off_t)addr * GAZE_BLOCK_SIZE) ==
	       (ssize_t)sizeof(blk) ? 0 : -1;
}

static int
node_addr(u32 nid, u64 *addr)
{
	return gaze_imap_get(fs, nid, addr) || !*addr ? -1 : 0;
}

static int
poke_inode(u32 ino, const char *field, u64 v)
{
	struct gaze_inode *in = (void *)blk;
	u64 addr;

	if (node_addr(ino, &addr) || rd(addr))
		return die("cannot read the inode");
	if (!strcmp(field, "nlink"))
		in->nlink = cpu_to_le32((u32)v);
	else if (!strcmp(field, "size"))
		in->size = cpu_to_le64(v);
	else if (!strcmp(field, "blocks"))
		in->blocks = cpu_to_le64(v);
	else if (!strcmp(field, "parent"))
		in->parent = cpu_to_le32((u32)v);
	else if (!strcmp(field, "mode"))
		in->mode = cpu_to_le16((u16)v);
	else if (!strcmp(field, "flags"))
		in->flags = cpu_to_le32((u32)v);
	else
		return die("unknown field");
	return wr(addr, true) ? die("write failed") : 0;
}

/* the inline entry NAME of directory DIR: offset in i.data, or -1 */
static int
find_dirent(u32 dir, const char *name, u64 *addr)
{
	struct gaze_inode *in = (void *)blk;
	const struct gaze_dirent *de;
	u32 pos, used;

	if (node_addr(dir, addr) || rd(*addr))
		return -1;
	if (!(le32_to_cpu(in->flags) & GAZE_IF_INLINE_DENTRY))
		return -1;
	used = le16_to_cpu(in->inline_used);
	for (pos = 0; pos + sizeof(*de) <= used;
	     pos += le16_to_cpu(de->rec_len)) {
		de = (const void *)(in->i.data + pos);
		if (de->name_len == strlen(name) &&
		    !memcmp(de + 1, name, de->name_len))
			return (int)pos;
		if (!de->rec_len)
			break;
	}
	return -1;
}

static int
poke_dirent(const char *op, u32 dir, const char *name, u32 v)
{
	struct gaze_inode *in = (void *)blk;
	struct gaze_dirent *de;
	u64 addr;
	int pos;
	u32 rl, used;

	pos = find_dirent(dir, name, &addr);
	if (pos < 0)
		return die("no such inline entry");
	de = (void *)(in->i.data + pos);
	if (!strcmp(op, "dirent-ino")) {
		de->ino = cpu_to_le32(v);
	} else if (!strcmp(op, "dirent-type")) {
		de->file_type = (u8)v;
	} else {
		rl = le16_to_cpu(de->rec_len);
		used = le16_to_cpu(in->inline_used);
		memmove(in->i.data + pos, in->i.data + pos + rl,
			used - pos - rl);
		memset(in->i.data + used - rl, 0, rl);
		in->inline_used = cpu_to_le16((u16)(used - rl));
		in->dir_nentries = cpu_to_le32(le32_to_cpu(in->dir_nentries) -
					       1);
	}
	return wr(addr, true) ? die("write failed") : 0;
}

/* table block of main block addr, read from where the core found it */
static int
table_block(u32 table, u64 addr, u32 *off, u64 *where)
{
	u32 zb = le32_to_cpu(fs->sb.zone_blocks);
	u64 zone = addr / zb;
	u32 zi, n;
	struct gaze_mbuf *mb;

	if (table == GAZE_TABLE_ZINFO) {
		n = (u32)addr / GAZE_ZINFO_PER_BLOCK;	/* addr = zone index */
		goto get;
	}
	if (zone < fs->lay.main_zone_start)
		return -1;
	zi = (u32)(zone - fs->lay.main_zone_start);
	*off = (u32)(addr % zb);
	if (table == GAZE_TABLE_USAGE)
		n = zi * fs->lay.usage_blocks_per_zone +
		    *off / GAZE_USAGE_BITS_PER_BLOCK;
	else
		n = zi * fs->lay.summary_blocks_per_zone +
		    *off / GAZE_SUMMARY_PER_BLOCK;
get:
	if (gaze_table_get(fs, table, n, &mb))
		return -1;
	*where = mb->blkaddr;
	gaze_mbuf_put(fs, mb);
	if (!*where || rd(*where))
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	u64 addr, where, v;
	u32 off;

	if (argc < 4)
		return 2;
	if (open_img(argv[1]))
		return die("cannot open the image");
	if (!strcmp(argv[2], "inode") && argc == 6) {
		v = strtoull(argv[5], NULL, 0);
		return poke_inode((u32)atoi(argv[3]), argv[4], v);
	}
	if (!strcmp(argv[2], "badcrc")) {
		if (node_addr((u32)atoi(argv[3]), &addr) || rd(addr))
			return die("cannot read the inode");
		blk[100] ^= 0x5a;
		return wr(addr, false) ? die("write failed") : 0;
	}
	if (!strncmp(argv[2], "dirent-", 7) && argc >= 5)
		return poke_dirent(argv[2], (u32)atoi(argv[3]), argv[4],
				   argc > 5 ? (u32)strtoul(argv[5], NULL, 0) :
				   0);
	if (!strcmp(argv[2], "addr") || !strcmp(argv[2], "data")) {
		if (node_addr((u32)atoi(argv[3]), &addr))
			return die("no such inode");
		if (!strcmp(argv[2], "data")) {
			if (rd(addr))
				return die("read failed");
			addr = le64_to_cpu(((struct gaze_inode *)blk)->i.addr[0]);
		}
		printf("%llu\n", (unsigned long long)addr);
		return 0;
	}
	if (!strcmp(argv[2], "child") && argc == 5) {
		if (node_addr((u32)atoi(argv[3]), &addr) || rd(addr))
			return die("no such inode");
		printf("%u\n", le32_to_cpu(((struct gaze_inode *)blk)->
					  nids[atoi(argv[4])]));
		return 0;
	}
	if (!strcmp(argv[2], "slot") && argc == 6) {
		if (node_addr((u32)atoi(argv[3]), &addr) || rd(addr))
			return die("no such inode");
		((struct gaze_inode *)blk)->i.addr[atoi(argv[4])] =
			cpu_to_le64(strtoull(argv[5], NULL, 0));
		return wr(addr, true) ? die("write failed") : 0;
	}
	if (!strcmp(argv[2], "fblk") && argc == 5) {
		if (gaze_file_bmap(fs, (u32)atoi(argv[3]),
				   strtoull(argv[4], NULL, 0), &addr) || !addr)
			return die("no such block");
		printf("%llu\n", (unsigned long long)addr);
		return 0;
	}
	addr = strtoull(argv[3], NULL, 0);
	if (!strcmp(argv[2], "blk-flip")) {
		if (rd(addr))
			return die("read failed");
		blk[200] ^= 0x33;
		return wr(addr, false) ? die("write failed") : 0;
	}
	if (!strcmp(argv[2], "usage-flip")) {
		struct gaze_usage_block *ub = (void *)blk;
		u32 bit;

		if (table_block(GAZE_TABLE_USAGE, addr, &off, &where))
			return die("usage block not stored");
		bit = off % GAZE_USAGE_BITS_PER_BLOCK;
		ub->bits[bit / 8] ^= (u8)(1u << (bit % 8));
		return wr(where, true) ? die("write failed") : 0;
	}
	if (!strcmp(argv[2], "summary-zero")) {
		struct gaze_summary_block *sb = (void *)blk;

		if (table_block(GAZE_TABLE_SUMMARY, addr, &off, &where))
			return die("summary block not stored");
		memset(&sb->s[off % GAZE_SUMMARY_PER_BLOCK], 0,
		       sizeof(sb->s[0]));
		return wr(where, true) ? die("write failed") : 0;
	}
	if (!strcmp(argv[2], "zinfo-valid") && argc == 5) {
		struct gaze_zinfo_block *zb = (void *)blk;
		u32 zi = (u32)addr;

		if (table_block(GAZE_TABLE_ZINFO, zi, &off, &where))
			return die("zinfo block not stored");
		zb->z[zi % GAZE_ZINFO_PER_BLOCK].valid =
			cpu_to_le32((u32)strtoul(argv[4], NULL, 0));
		return wr(where, true) ? die("write failed") : 0;
	}
	return 2;
}
