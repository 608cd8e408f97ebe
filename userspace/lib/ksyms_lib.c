// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ksyms_lib.c - kernel text symbols from /proc/kallsyms, by address
 *
 * Replacement functions live in patch modules that may load after a tool
 * starts, so /proc/kallsyms is read when an address first needs a name and
 * again when an address has no exact match and the module list changed.
 * Names point into one buffer holding the whole file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hindex.h"
#include "ksyms.h"

static char *read_file(const char *path, size_t *size)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = NULL, *tmp;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (!buf || len + 1 == cap) {
			cap = buf ? cap * 2 : cap;
			tmp = realloc(buf, cap);
			if (!tmp)
				goto err;
			buf = tmp;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto err;
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	*size = len;
	return buf;
err:
	free(buf);
	close(fd);
	return NULL;
}

/* FNV-1a over the name and address of every module of mods (/proc/modules) */
static unsigned long long modules_hash(const char *mods)
{
	unsigned long long h = HINDEX_FNV1A_INIT;
	const char *p = mods;
	size_t n;
	int col = 0;

	/* columns: name size refcount users state address */
	for (;;) {
		n = strcspn(p, " \n");
		if (col == 0 || col == 5)
			h = hindex_fnv1a(h, p, n);
		p += n;
		if (!*p)
			return h;
		col = *p++ == ' ' ? col + 1 : 0;
	}
}

/* The hash of /proc/modules as it is now; 0 when unreadable. */
static unsigned long long modules_hash_now(void)
{
	unsigned long long h;
	size_t size;
	char *mods;

	mods = read_file("/proc/modules", &size);
	if (!mods)
		return 0;
	h = modules_hash(mods);
	free(mods);
	return h;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct klp_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Is the text symbol at addr of module "[mod]" inside that module's
 * memory as /proc/modules gives it (base address, size)?  /proc/kallsyms
 * can still list a module's init function after its init memory was freed
 * (seen on 6.12, where the next module's text then reuses the address):
 * such a stale entry lies outside the module.
 */
static bool ksym_in_module(const char *mods, const char *mod,
			   unsigned long long addr)
{
	unsigned long long base, size;
	size_t len = strcspn(mod, "]");
	const char *line, *next;

	for (line = mods; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			next++;
		if (strncmp(line, mod, len) || line[len] != ' ')
			continue;
		/* columns: name size refcount users state address */
		if (sscanf(line, "%*s %llu %*s %*s %*s %llx", &size, &base) != 2)
			return true;
		return addr >= base && addr < base + size;
	}
	return true;	/* not listed (going away): keep it */
}

static void ksyms_load(struct klp_ksyms *ks)
{
	size_t size, nr = 0, cap = 0, msize;
	struct klp_ksym *syms = NULL, *tmp;
	char *buf, *p, *nl, *end, *mod, *mods;
	unsigned long long addr;
	char type;

	ks->tried = true;
	mods = read_file("/proc/modules", &msize);
	ks->modules_hash = mods ? modules_hash(mods) : 0;
	buf = read_file("/proc/kallsyms", &size);
	if (!buf) {
		free(mods);
		return;
	}

	for (p = buf; p < buf + size; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		/* "<addr> <type> <name>[\t[<module>]]" */
		addr = strtoull(p, &end, 16);
		if (end == p || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		if (!addr || !strchr("tTwW", type))
			continue;
		end += 3;
		mod = strchr(end, '\t');
		if (mod) {
			*mod = '\0';
			if (mod[1] == '[' && mods && !ksym_in_module(mods, mod + 2, addr))
				continue;
		}
		if (nr == cap) {
			cap = cap ? cap * 2 : 65536;
			tmp = realloc(syms, cap * sizeof(*syms));
			if (!tmp) {
				free(syms);
				free(buf);
				free(mods);
				return;
			}
			syms = tmp;
		}
		syms[nr].addr = addr;
		syms[nr].name = end;
		nr++;
	}
	free(mods);
	if (nr)		/* syms is NULL when none: qsort needs an array */
		qsort(syms, nr, sizeof(*syms), ksym_cmp);

	free(ks->syms);
	free(ks->buf);
	ks->syms = syms;
	ks->nr = nr;
	ks->buf = buf;
}

/* The symbol at or below addr, or NULL. */
static const struct klp_ksym *ksym_lookup(const struct klp_ksyms *ks,
					  unsigned long long addr)
{
	size_t lo = 0, hi = ks->nr, mid;

	if (!ks->nr || addr < ks->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &ks->syms[lo];
}

const struct klp_ksym *klp_ksyms_resolve(struct klp_ksyms *ks,
					 unsigned long long addr)
{
	const struct klp_ksym *sym;

	if (!ks->tried)
		ksyms_load(ks);
	sym = ksym_lookup(ks, addr);
	if ((!sym || sym->addr != addr) &&
	    modules_hash_now() != ks->modules_hash) {
		ksyms_load(ks);
		sym = ksym_lookup(ks, addr);
	}
	return sym;
}

void klp_ksyms_free(struct klp_ksyms *ks)
{
	free(ks->syms);
	free(ks->buf);
	memset(ks, 0, sizeof(*ks));
}

/**
 * klp_ksyms_data_addr() - the address of a data symbol of the kernel's
 * own (not a module's), as /proc/kallsyms lists it to root
 * @want: its name
 *
 * Return: the address, or 0 when it is not listed (or the addresses are
 * hidden: not root, kptr_restrict).
 */
unsigned long long klp_ksyms_data_addr(const char *want)
{
	unsigned long long addr, found = 0;
	char line[512], type, name[256];
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (strchr(line, '['))
			continue;	/* a module's */
		if ((type == 'd' || type == 'D' || type == 'b' || type == 'B') &&
		    !strcmp(name, want)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}
