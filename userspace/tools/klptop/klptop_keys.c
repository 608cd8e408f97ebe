// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop_keys.c - what each key does to the view, and the help that
 * lists them
 *
 * One table binds the keys to what they do and to their line of the
 * help ('h' or '?'), so the help never lists a key that does nothing or
 * misses one that does something.  '/' starts a search: the characters
 * typed after it show on the status line, Enter applies them (rows of a
 * function, or of a patch, whose name contains them), Esc clears it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "klptop.h"

#define KT_KEYS_READ	64

static enum kt_action quit(struct kt_view *v)
{
	return KT_ACT_QUIT;
}

static enum kt_action next_sort(struct kt_view *v)
{
	v->sort = (v->sort + 1) % KT_NR_SORTS;
	return KT_ACT_REDRAW;
}

static enum kt_action pause_display(struct kt_view *v)
{
	v->paused = !v->paused;
	return KT_ACT_REDRAW;
}

static enum kt_action search_start(struct kt_view *v)
{
	v->editing = true;
	v->edit[0] = '\0';
	return KT_ACT_REDRAW;
}

static enum kt_action search_clear(struct kt_view *v)
{
	v->editing = false;
	v->edit[0] = '\0';
	v->search[0] = '\0';
	v->scroll = 0;
	return KT_ACT_REDRAW;
}

/* The last row the last frame could start at. */
static size_t last_scroll(const struct kt_view *v)
{
	return v->nr_rows > v->page ? v->nr_rows - v->page : 0;
}

static enum kt_action scroll_to(struct kt_view *v, size_t to)
{
	if (to > last_scroll(v))
		to = last_scroll(v);
	if (to == v->scroll)
		return KT_ACT_NONE;
	v->scroll = to;
	return KT_ACT_REDRAW;
}

static enum kt_action row_up(struct kt_view *v)
{
	return scroll_to(v, v->scroll ? v->scroll - 1 : 0);
}

static enum kt_action row_down(struct kt_view *v)
{
	return scroll_to(v, v->scroll + 1);
}

static enum kt_action page_up(struct kt_view *v)
{
	size_t page = v->page ? v->page : 1;

	return scroll_to(v, v->scroll > page ? v->scroll - page : 0);
}

static enum kt_action page_down(struct kt_view *v)
{
	return scroll_to(v, v->scroll + (v->page ? v->page : 1));
}

static enum kt_action first_row(struct kt_view *v)
{
	return scroll_to(v, 0);
}

static enum kt_action last_row(struct kt_view *v)
{
	return scroll_to(v, last_scroll(v));
}

static enum kt_action help(struct kt_view *v)
{
	v->help = true;
	return KT_ACT_REDRAW;
}

struct kt_binding {
	int key[3];			/* 0 ends */
	const char *names;		/* as the help shows them */
	const char *what;
	enum kt_action (*fn)(struct kt_view *v);
};

static const struct kt_binding bindings[] = {
	{ { 'q', 'Q' }, "q", "quit", quit },
	{ { 'h', '?' }, "h ?", "this help (any key returns)", help },
	{ { 's' }, "s", "next sort: rate, total, name, depth", next_sort },
	{ { 'p' }, "p", "pause the display (counting goes on)", pause_display },
	{ { '/' }, "/ TEXT Enter", "only functions (or patches) whose name contains TEXT",
	  search_start },
	{ { KT_KEY_ESC }, "Esc", "clear the filter", search_clear },
	{ { KT_KEY_UP, 'k' }, "Up k", "scroll up a row", row_up },
	{ { KT_KEY_DOWN, 'j' }, "Down j", "scroll down a row", row_down },
	{ { KT_KEY_PGUP, 'b' }, "PgUp b", "scroll up a page", page_up },
	{ { KT_KEY_PGDN, ' ' }, "PgDn Space", "scroll down a page", page_down },
	{ { KT_KEY_HOME, 'g' }, "Home g", "the first row", first_row },
	{ { KT_KEY_END, 'G' }, "End G", "the last row", last_row },
};

/* A key while a search is typed: it edits the search. */
static enum kt_action edit_key(struct kt_view *v, int key)
{
	size_t len = strlen(v->edit);

	switch (key) {
	case KT_KEY_ESC:
		return search_clear(v);
	case '\n':
		memcpy(v->search, v->edit, sizeof(v->search));
		v->editing = false;
		v->scroll = 0;
		return KT_ACT_REDRAW;
	case 0x7f:
		if (len)
			v->edit[len - 1] = '\0';
		return KT_ACT_REDRAW;
	case 'U' & 0x1f:
		v->edit[0] = '\0';
		return KT_ACT_REDRAW;
	}
	if (key < 0x20 || key > 0x7e || len + 1 >= sizeof(v->edit))
		return KT_ACT_NONE;
	v->edit[len] = key;
	v->edit[len + 1] = '\0';
	return KT_ACT_REDRAW;
}

/**
 * kt_view_key() - one key, applied to the view
 * @v:   the view
 * @key: a character or an enum kt_key
 *
 * Return: what the loop should do: quit, draw the screen again, or
 * nothing (a key bound to nothing, a scroll past the end).
 */
enum kt_action kt_view_key(struct kt_view *v, int key)
{
	size_t i, j;

	if (v->editing)
		return edit_key(v, key);
	if (v->help) {
		v->help = false;
		return KT_ACT_REDRAW;
	}
	for (i = 0; i < ARRAY_SIZE(bindings); i++)
		for (j = 0; j < 3 && bindings[i].key[j]; j++)
			if (bindings[i].key[j] == key)
				return bindings[i].fn(v);
	return KT_ACT_NONE;
}

/**
 * kt_view_input() - the keys waiting on the terminal, applied
 * @v:      the view
 * @t:      the terminal
 * @screen: the screen is shown; without it (--json) only q, s and p
 *
 * Return: KT_ACT_QUIT if one of them quits, else KT_ACT_REDRAW if one
 * changed what is shown.
 */
enum kt_action kt_view_input(struct kt_view *v, const struct kt_tty *t,
			     bool screen)
{
	enum kt_action act = KT_ACT_NONE, a;
	int keys[KT_KEYS_READ];
	size_t i, n;

	n = kt_tty_read_keys(t, keys, KT_KEYS_READ);
	for (i = 0; i < n; i++) {
		if (!screen && (keys[i] <= 0 || keys[i] >= 0x80 ||
				!strchr("qQsp", keys[i])))
			continue;
		a = kt_view_key(v, keys[i]);
		if (a == KT_ACT_QUIT)
			return a;
		if (a == KT_ACT_REDRAW)
			act = a;
	}
	return act;
}

/**
 * kt_help_lines() - the keys and what they do, as the frame's body
 * @f: the frame
 */
void kt_help_lines(struct kt_frame *f)
{
	size_t i;

	kt_frame_add(f, KT_TITLE, "%-14s %s", "KEY", "WHAT IT DOES");
	for (i = 0; i < ARRAY_SIZE(bindings); i++)
		kt_frame_add(f, KT_BODY, "%-14s %s", bindings[i].names,
			     bindings[i].what);
}
