// SPDX-License-Identifier: GPL-2.0
/*
 * readfast.c - short buffered reads from one cached folio without taking
 * a reference on it (read_fastpath=on, the default).
 *
 * generic_file_read_iter takes and drops a reference on every folio it
 * copies from; many CPUs reading the same cached page bounce the
 * refcount's cache line.  gaze_read_iter tries gaze_read_fast first for
 * a read of at most GAZE_RF_MAX bytes that lies inside one page:
 *
 *	s = seq(index)			(acquire)
 *	folio = xa_load(i_pages, index)	(under RCU)
 *	uptodate?			(folio_test_uptodate: smp_rmb)
 *	copy_from_kernel_nofault(buf, folio data)
 *	smp_rmb()				[R1]
 *	i_size covers the bytes?
 *	xa_load(i_pages, index) == folio && uptodate?
 *	smp_rmb()				[R2]
 *	seq(index) == s?
 *	copy_to_iter(buf)		(may fault: user memory)
 *
 * Nothing reaches user space before all the checks passed; any failed
 * check falls back to generic_file_read_iter, which does it all again the
 * normal way.  The memory ordering argument (why the seed's stale-folio
 * race cannot return bytes) is in doc/design.md, "Reads without a folio
 * reference"; the barriers it names are marked [R1], [R2], [W1] here.
 *
 * The sequence.  A module is not told when reclaim, truncation,
 * invalidation or compaction takes a folio out of a mapping, except by
 * aops->free_folio, which every removal path calls after the folio left
 * the xarray and before its page cache reference is dropped
 * (filemap_free_folio, __remove_mapping, replace_page_cache_folio), and
 * aops->migrate_folio for migration.  free_folio gets a folio whose
 * ->mapping is already NULL, so the sequence cannot be per mapping; the
 * folio keeps ->index until it is freed, so it is one of
 * GAZE_RF_SEQS counters chosen by the index (gaze_rf_seq): a removal
 * anywhere in any GAZE filesystem fails the fast reads of the same index
 * hash in flight at that moment, which only sends them down the normal
 * path.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/uio.h>
#include <linux/uaccess.h>
#include <linux/hash.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/migrate.h>
#include "gaze_kern.h"
#include "gaze_ioctl.h"

#define GAZE_RF_MAX	256	/* longest read the fast path copies */
#define GAZE_RF_BITS	6
#define GAZE_RF_SEQS	(1U << GAZE_RF_BITS)

/*
 * One counter per cache line: bumped (gaze_rf_bump) by whoever frees or
 * migrates a GAZE folio, read twice by every fast read of that index hash.
 */
struct gaze_rf_seq {
	atomic_long_t	seq;
} ____cacheline_aligned_in_smp;

static struct gaze_rf_seq gaze_rf_seqs[GAZE_RF_SEQS];

/*
 * Test-only (tests/vm/kmod-readfast.sh): bit 0 skips the re-validation
 * after the copy, bit 1 waits 20 us between the lookup and the copy to
 * widen the race window.  Setting it taints the kernel: a module with
 * bit 0 set can return bytes that were never written.
 */
#define GAZE_RF_T_NOCHECK	0x1
#define GAZE_RF_T_DELAY		0x2
static unsigned int gaze_rf_torture;

static int gaze_rf_torture_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (!ret && READ_ONCE(gaze_rf_torture)) {
		pr_warn("gaze: readfast_torture=%u: the read fast path's re-validation is %s (testing only)\n",
			gaze_rf_torture,
			gaze_rf_torture & GAZE_RF_T_NOCHECK ? "OFF" : "on");
		add_taint(TAINT_USER, LOCKDEP_STILL_OK);
	}
	return ret;
}

static const struct kernel_param_ops gaze_rf_torture_ops = {
	.set	= gaze_rf_torture_set,
	.get	= param_get_uint,
};
module_param_cb(readfast_torture, &gaze_rf_torture_ops, &gaze_rf_torture,
		0644);
MODULE_PARM_DESC(readfast_torture,
		 "testing only: 1 skips the read fast path's re-validation, 2 widens its race window (taints)");

static atomic_long_t *gaze_rf_seq(pgoff_t index)
{
	return &gaze_rf_seqs[hash_long(index, GAZE_RF_BITS)].seq;
}

/*
 * [W1] The folio left the xarray and is about to be freed (or its
 * migration copy replaced it): the bump is ordered before the free and
 * anything the next owner writes into the memory, and before anything
 * the remover does next (adding another folio, extending i_size).
 */
static void gaze_rf_bump(pgoff_t index)
{
	atomic_long_inc(gaze_rf_seq(index));
	smp_mb__after_atomic();
}

/*
 * aops->free_folio: called after removal from the page cache.  GAZE
 * caches only small folios, but a large one (khugepaged's collapse of
 * read-only file pages) covers many indices: each of its indices' counters
 * is bumped, every counter for one of GAZE_RF_SEQS pages or more.
 */
void gaze_free_folio(struct folio *folio)
{
	long i, nr = folio_nr_pages(folio);

	if (nr >= GAZE_RF_SEQS) {
		for (i = 0; i < GAZE_RF_SEQS; i++)
			atomic_long_inc(&gaze_rf_seqs[i].seq);
		smp_mb__after_atomic();
		return;
	}
	for (i = 0; i < nr; i++)
		gaze_rf_bump(folio->index + i);
}

/* aops->migrate_folio: the source is freed after this returns */
int gaze_migrate_folio(struct address_space *mapping, struct folio *dst,
		       struct folio *src, enum migrate_mode mode)
{
	int ret = filemap_migrate_folio(mapping, dst, src, mode);

	if (ret == MIGRATEPAGE_SUCCESS)
		gaze_rf_bump(src->index);
	return ret;
}

int gaze_rf_init(struct gaze_sb_info *sbi)
{
	sbi->rf_stats = alloc_percpu(struct gaze_rf_stats);
	return sbi->rf_stats ? 0 : -ENOMEM;
}

void gaze_rf_exit(struct gaze_sb_info *sbi)
{
	free_percpu(sbi->rf_stats);
	sbi->rf_stats = NULL;
}

void gaze_rf_stats_sum(struct gaze_sb_info *sbi, struct gaze_rf_stats *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		struct gaze_rf_stats *s = per_cpu_ptr(sbi->rf_stats, cpu);

		sum->hits += READ_ONCE(s->hits);
		for (i = 0; i < GAZE_RF_REASONS; i++)
			sum->fallback[i] += READ_ONCE(s->fallback[i]);
	}
}

/*
 * Copies [pos, pos + len) of the folio at `index` into buf, or says why
 * not (GAZE_RF_*).  Under RCU only for the xarray walk: the folio may be
 * freed while we look at it, which the checks after the copy detect.
 */
static int gaze_rf_copy(struct inode *inode, pgoff_t index, size_t off,
			size_t len, void *buf)
{
	struct address_space *mapping = inode->i_mapping;
	atomic_long_t *seqp = gaze_rf_seq(index);
	unsigned int torture = READ_ONCE(gaze_rf_torture);
	struct folio *folio;
	long seq;
	int ret;

	rcu_read_lock();
	seq = atomic_long_read_acquire(seqp);
	folio = xa_load(&mapping->i_pages, index);
	ret = GAZE_RF_MISS;
	if (!folio || xa_is_value(folio) || !folio_test_uptodate(folio))
		goto out;
	ret = GAZE_RF_OTHER;
	if (folio_test_large(folio) || folio_test_highmem(folio))
		goto out;
	if (unlikely(torture & GAZE_RF_T_DELAY))
		udelay(20);
	ret = GAZE_RF_FAULT;
	if (copy_from_kernel_nofault(buf, folio_address(folio) + off, len))
		goto out;
	if (unlikely(torture & GAZE_RF_T_NOCHECK)) {
		ret = 0;
		goto out;
	}
	smp_rmb();	/* [R1]: the copy before i_size, xarray, seq */
	ret = GAZE_RF_EOF;
	if (((loff_t)index << PAGE_SHIFT) + off + len > i_size_read(inode))
		goto out;
	ret = GAZE_RF_RACE;
	if (xa_load(&mapping->i_pages, index) != folio ||
	    !folio_test_uptodate(folio))
		goto out;
	smp_rmb();	/* [R2]: i_size and the xarray before seq */
	if (atomic_long_read(seqp) != seq)
		goto out;
	ret = 0;
out:
	rcu_read_unlock();
	return ret;
}

static void gaze_rf_count(struct gaze_sb_info *sbi, int why)
{
	if (why < 0)
		this_cpu_inc(sbi->rf_stats->hits);
	else
		this_cpu_inc(sbi->rf_stats->fallback[why]);
}

/*
 * The fast path: > 0 bytes read, or -EAGAIN to take the normal path.
 * Atime as filemap_read does it (file_accessed after the copy).
 */
static ssize_t gaze_read_fast(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	struct gaze_sb_info *sbi = GAZE_SB(inode->i_sb);
	size_t len = iov_iter_count(to), off, done;
	loff_t pos = iocb->ki_pos;
	char buf[GAZE_RF_MAX];
	int why;

	off = offset_in_page(pos);
	if (len > GAZE_RF_MAX || off + len > PAGE_SIZE || pos < 0 ||
	    (iocb->ki_flags & IOCB_DIRECT)) {
		gaze_rf_count(sbi, GAZE_RF_LONG);
		return -EAGAIN;
	}
	why = gaze_rf_copy(inode, pos >> PAGE_SHIFT, off, len, buf);
	if (why) {
		gaze_rf_count(sbi, why);
		return -EAGAIN;
	}
	done = copy_to_iter(buf, len, to);
	if (!done) {
		/* the normal path reports the fault */
		gaze_rf_count(sbi, GAZE_RF_FAULT);
		return -EAGAIN;
	}
	gaze_rf_count(sbi, -1);
	iocb->ki_pos += done;
	file_accessed(file);
	return done;
}

ssize_t gaze_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct gaze_sb_info *sbi = GAZE_SB(file_inode(iocb->ki_filp)->i_sb);
	ssize_t ret;

	if (!iov_iter_count(to) || !READ_ONCE(sbi->read_fastpath))
		return generic_file_read_iter(iocb, to);
	ret = gaze_read_fast(iocb, to);
	if (ret != -EAGAIN)
		return ret;
	return generic_file_read_iter(iocb, to);
}
