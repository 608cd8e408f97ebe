/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * klptop.h - klptop's own rooms and the state they pass around: what is
 * shown of the model (model.h), and how
 *
 *   klptop.c              options, the sources opened, the refresh loop
 *   klptop_screen.c       which rows and transitions to show; the screen,
 *                         built as a frame of lines in parts
 *   klptop_transitions.c  the transitions in progress on the screen and in
 *                         the JSON
 *   klptop_tty.c          the terminal: its keys, its size (SIGWINCH), and
 *                         a frame fitted to it and written in one go
 *   klptop_keys.c         what each key does to the view, and its help
 *   klptop_json.c         the same as one JSON object per interval
 */
#ifndef _KLPTOP_H
#define _KLPTOP_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include "model.h"

struct strbuf;

#define KT_FOOTER_LINES		6	/* transitions in the screen's footer */

enum kt_sort {
	KT_SORT_RATE,		/* hits/s in the last interval, highest first */
	KT_SORT_TOTAL,		/* hits since start, highest first */
	KT_SORT_NAME,		/* object, then function */
	KT_SORT_DEPTH,		/* func_stack depth, deepest first */
	KT_NR_SORTS,
};

extern const char *const kt_sort_names[KT_NR_SORTS];

/* --- what is shown (klptop_screen.c, klptop_json.c) ---------------------- */

#define KT_SEARCH_LEN	64	/* the '/' filter's text, NUL included */

struct kt_view {
	bool noclear;			/* scroll: print only new transitions */
	bool nosummary;
	bool paused;
	int rows;			/* -r: at most this many rows */
	bool rows_given;		/* ... given: caps a terminal's rows too */
	enum kt_sort sort;
	const char *patch;		/* shell patterns, or NULL */
	const char *func;
	long long realtime_off_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	/* on a terminal (klptop_keys.c changes them) */
	char search[KT_SEARCH_LEN];	/* '/': rows of a patch or function
					 * containing it; "" for all */
	char edit[KT_SEARCH_LEN];	/* the search being typed */
	bool editing;			/* ... while it is */
	bool help;			/* the help instead of the rows */
	size_t scroll;			/* first row shown */
	size_t page;			/* rows the last frame had room for */
	size_t nr_rows;			/* rows the last frame could show */
	int term_rows, term_cols;	/* the terminal's size, 0: no terminal */
};

struct kt_totals {
	unsigned long long tick_ns;	/* CLOCK_MONOTONIC at the interval's end */
	double elapsed;			/* seconds in the interval */
	unsigned long long hits;
	double rate;
	unsigned long long lost_hits;
	unsigned long long lost_events;
};

/*
 * A screen as lines, in parts: the head (the time line and whatever
 * follows it), the title (the column header), the body (the rows, which
 * scroll) and the foot (the transitions).  A section of the screen is a
 * function that adds its lines to a part; the terminal fits the parts to
 * its size (klptop_tty.c).
 */
enum kt_part { KT_HEAD, KT_TITLE, KT_BODY, KT_FOOT, KT_NR_PARTS };

struct kt_lines {
	char **line;
	size_t n, cap;
};

struct kt_frame {
	struct kt_lines part[KT_NR_PARTS];
};

void kt_frame_add(struct kt_frame *f, enum kt_part part, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kt_frame_free(struct kt_frame *f);

size_t kt_select_rows(const struct kt_view *v, const struct model *m,
		      struct model_fn ***rows);
bool kt_transition_matches(const struct kt_view *v,
			   const struct model_transition *t);
void kt_fmt_hms(const struct kt_view *v, unsigned long long mono_ns,
		char *buf, size_t size);
void kt_build_screen(const struct kt_view *v, const struct model *m,
		     struct model_log *log, const struct kt_totals *tot,
		     struct kt_frame *f);
void kt_interval_totals(struct model *m, unsigned long long unknown,
			struct kt_totals *tot);
void kt_print_screen(struct kt_view *v, const struct model *m,
		     struct model_log *log, const struct kt_totals *tot);
void kt_print_json(const struct kt_view *v, const struct model *m,
		   struct model_log *log, const struct kt_totals *tot,
		   struct strbuf *out);

/* --- the terminal (klptop_tty.c) and its keys (klptop_keys.c) ------------ */

/* A key: a character as itself, or one of these. */
enum kt_key {
	KT_KEY_ESC = 0x1b,
	KT_KEY_UP = 0x100,
	KT_KEY_DOWN,
	KT_KEY_PGUP,
	KT_KEY_PGDN,
	KT_KEY_HOME,
	KT_KEY_END,
	KT_KEY_UNKNOWN,		/* an escape sequence we do not use */
};

/* What a key asks of the loop. */
enum kt_action { KT_ACT_NONE, KT_ACT_REDRAW, KT_ACT_QUIT };

struct kt_tty {
	bool keys;			/* stdin in raw mode: keys are read */
	sigset_t waitmask;		/* for ppoll(): SIGWINCH let in */
	int fd;				/* the screen: stdout */
};

int kt_tty_setup(struct kt_tty *t, bool screen);
void kt_tty_restore(void);
bool kt_tty_resized(void);
void kt_tty_size(const struct kt_tty *t, int *rows, int *cols);
size_t kt_keys_decode(const char *buf, size_t len, int *keys, size_t max);
size_t kt_tty_read_keys(const struct kt_tty *t, int *keys, size_t max);
void kt_tty_render(struct kt_view *v, const struct kt_frame *f,
		   struct strbuf *out);

enum kt_action kt_view_key(struct kt_view *v, int key);
enum kt_action kt_view_input(struct kt_view *v, const struct kt_tty *t,
			     bool screen);
void kt_help_lines(struct kt_frame *f);

/* --- the transitions in progress (klptop_transitions.c) ------------------- */

/*
 * The lines of the screen's head and the "transitions_in_progress" of the
 * JSON: the transitions of patches that match patch (a shell pattern;
 * NULL: all)
 */
void kt_tr_add_lines(const struct model_trset *s, const char *patch,
		     unsigned long long now_ns, int max_tasks,
		     struct kt_frame *f);
void kt_tr_json(struct strbuf *b, const struct model_trset *s, const char *patch,
		unsigned long long now_ns);

#endif /* _KLPTOP_H */
