// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * hindex_lib.c - an index of a caller's rows by a 64-bit key (see
 * hindex.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hindex.h"

#define HINDEX_MIN_SIZE	64

/**
 * hindex_fnv1a() - FNV-1a over n bytes, on from h
 * @h: HINDEX_FNV1A_INIT, or what an earlier call returned
 * @p: the bytes
 * @n: how many
 *
 * Return: the hash of what h stood for followed by the bytes.
 */
unsigned long long hindex_fnv1a(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* The first slot of a key: its bits mixed (splitmix64's finalizer). */
static size_t home(const struct hindex *h, unsigned long long key)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return key & (h->size - 1);
}

static void put(struct hindex *h, unsigned long long key, size_t row1)
{
	size_t s = home(h, key);

	while (h->slots[s].row)
		s = (s + 1) & (h->size - 1);
	h->slots[s].key = key;
	h->slots[s].row = row1;
}

/* Twice the slots (at least HINDEX_MIN_SIZE), every row put again. */
static int grow(struct hindex *h)
{
	struct hindex_slot *old = h->slots;
	size_t i, old_size = h->size;
	size_t size = old_size ? old_size * 2 : HINDEX_MIN_SIZE;

	if (size < old_size)
		return -ENOMEM;
	h->slots = calloc(size, sizeof(*h->slots));
	if (!h->slots) {
		h->slots = old;
		return -ENOMEM;
	}
	h->size = size;
	for (i = 0; i < old_size; i++)
		if (old[i].row)
			put(h, old[i].key, old[i].row);
	free(old);
	return 0;
}

/**
 * hindex_add() - index a row by its key
 * @h:   the index (zeroed at first)
 * @key: the row's 64-bit key
 * @row: the row
 *
 * Return: 0, or -ENOMEM with the index as it was.
 */
int hindex_add(struct hindex *h, unsigned long long key, size_t row)
{
	if (row + 1 == 0)
		return -ENOMEM;
	if ((h->nr + 1) * 2 > h->size && grow(h))
		return -ENOMEM;
	put(h, key, row + 1);
	h->nr++;
	return 0;
}

/**
 * hindex_find() - start a lookup of the rows added with a key
 * @h:   the index
 * @key: the 64-bit key
 * @it:  where the lookup stands, for hindex_next()
 */
void hindex_find(const struct hindex *h, unsigned long long key,
		 struct hindex_iter *it)
{
	it->h = h;
	it->key = key;
	it->slot = h->size ? home(h, key) : 0;
}

/**
 * hindex_next() - the next row added with the lookup's key
 * @it:  as hindex_find() left it, or the last hindex_next()
 * @row: the row
 *
 * The index must not change during the lookup.
 *
 * Return: true with @row set, or false when there is none left.
 */
bool hindex_next(struct hindex_iter *it, size_t *row)
{
	const struct hindex *h = it->h;
	const struct hindex_slot *s;

	if (!h->size)
		return false;
	/* never more than half full: the probe ends at an empty slot */
	for (s = &h->slots[it->slot]; s->row; s = &h->slots[it->slot]) {
		it->slot = (it->slot + 1) & (h->size - 1);
		if (s->key == it->key) {
			*row = s->row - 1;
			return true;
		}
	}
	return false;
}

/* No rows; the slots kept for the next ones. */
void hindex_clear(struct hindex *h)
{
	if (h->size)
		memset(h->slots, 0, h->size * sizeof(*h->slots));
	h->nr = 0;
}

void hindex_free(struct hindex *h)
{
	free(h->slots);
	memset(h, 0, sizeof(*h));
}
