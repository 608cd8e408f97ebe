/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * hindex.h - an index of a caller's rows (0, 1, 2... of its own array) by
 * a 64-bit key: the key itself when it is one number (an address, a
 * pointer), or a hash of the key's fields (hindex_fnv1a()).  The index
 * gives the rows added with the same 64-bit key, in no particular order;
 * the caller compares its full key when two keys may share one.  Rows are
 * added, never removed one at a time: hindex_clear() empties the index.
 *
 * Open addressing with linear probing, never more than half full, the
 * slot picked by a mix of the key: a lookup reads a few slots however
 * many rows there are, and addresses that differ only in their high bits
 * (4 KiB apart, say) spread as well as any others.
 */
#ifndef _KLP_HINDEX_H
#define _KLP_HINDEX_H

#include <stdbool.h>
#include <stddef.h>

#define HINDEX_FNV1A_INIT	14695981039346656037ULL

struct hindex_slot {
	unsigned long long key;
	size_t row;		/* the row + 1; 0: an empty slot */
};

struct hindex {
	struct hindex_slot *slots;
	size_t size;		/* a power of 2, or 0 */
	size_t nr;		/* rows added */
};

/* Where a lookup stands: hindex_find(), then hindex_next() to the end. */
struct hindex_iter {
	const struct hindex *h;
	unsigned long long key;
	size_t slot;
};

unsigned long long hindex_fnv1a(unsigned long long h, const void *p,
				size_t n);
int hindex_add(struct hindex *h, unsigned long long key, size_t row);
void hindex_find(const struct hindex *h, unsigned long long key,
		 struct hindex_iter *it);
bool hindex_next(struct hindex_iter *it, size_t *row);
void hindex_clear(struct hindex *h);
void hindex_free(struct hindex *h);

#endif /* _KLP_HINDEX_H */
