// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop_tty.c - the terminal: its keys, its size, a frame fitted to it
 *
 * On a terminal klptop is a top: the frame (klptop.h) is fitted to the
 * terminal's rows and columns, read again after each SIGWINCH, and
 * written in one write() over the last one: the cursor home, each row
 * erased and its line written, the last line erasing the rest of the
 * screen.  Nothing is cleared before it is drawn
 * again, so nothing flickers.  Keys come raw (no echo, no line editing)
 * and are decoded here, the arrow and page keys from their escape
 * sequences; what a key does is klptop_keys.c's.
 *
 * Names on the screen come from modules: a byte that is not printable
 * ASCII is shown as '?', so no name can move the cursor or recolour the
 * terminal, and a line's bytes are its columns.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "klptop.h"
#include "strbuf.h"

#define KT_ESC_WAIT_MS	30	/* the rest of an escape sequence */
#define KT_MIN_BODY	5	/* rows kept before the foot gets room */
#define KT_HEAD_SHARE	3	/* the head: at most a third of the lines */
#define KT_DEFAULT_ROWS	24
#define KT_DEFAULT_COLS	80

/*
 * Process-wide by nature: what SIGWINCH sets, and the terminal to give
 * back at exit (also after xrealloc()'s exit).
 */
static volatile sig_atomic_t winched;
static struct termios saved_tio;
static bool raw_on, cursor_hidden;

static void winch_handler(int sig)
{
	winched = 1;
}

/**
 * kt_tty_restore() - the terminal as it was: line mode, echo, the cursor
 *
 * The cursor goes below the last frame, so a shell prompt does not
 * land in it.
 */
void kt_tty_restore(void)
{
	if (raw_on)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	if (cursor_hidden)
		sb_write_all(STDOUT_FILENO, "\033[?25h\r\n", 8);
	raw_on = false;
	cursor_hidden = false;
}

/**
 * kt_tty_setup() - SIGWINCH noted, keys read raw, the cursor hidden
 * @t:      the terminal, filled
 * @screen: frames are drawn on it (else only keys, and only for a
 *          foreground process on a terminal: changing the terminal from
 *          the background stops us with SIGTTOU)
 *
 * SIGWINCH is blocked but in ppoll() (t->waitmask), so a resize between
 * a check and the wait still ends the wait.
 *
 * Return: 0 (keys or not: a top without keys still draws).
 */
int kt_tty_setup(struct kt_tty *t, bool screen)
{
	struct sigaction sa = { .sa_handler = winch_handler };
	struct termios tio;
	sigset_t block;

	t->fd = STDOUT_FILENO;
	sigemptyset(&block);
	sigaddset(&block, SIGWINCH);
	sigprocmask(SIG_BLOCK, &block, &t->waitmask);
	sigdelset(&t->waitmask, SIGWINCH);
	sigaction(SIGWINCH, &sa, NULL);
	atexit(kt_tty_restore);
	if (screen && sb_write_all(STDOUT_FILENO, "\033[?25l", 6) == 0)
		cursor_hidden = true;	/* no cursor dancing over the frame */
	if (!isatty(STDIN_FILENO) ||
	    tcgetpgrp(STDIN_FILENO) != getpgrp() ||
	    tcgetattr(STDIN_FILENO, &saved_tio))
		return 0;
	tio = saved_tio;
	tio.c_lflag &= ~(ICANON | ECHO);
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &tio))
		return 0;
	raw_on = true;
	t->keys = true;
	return 0;
}

/* Return: true once after each SIGWINCH. */
bool kt_tty_resized(void)
{
	if (!winched)
		return false;
	winched = 0;
	return true;
}

/* The terminal's size; LINES and COLUMNS, or 24x80, if it will not say. */
void kt_tty_size(const struct kt_tty *t, int *rows, int *cols)
{
	struct winsize ws = {};
	const char *e;

	if (ioctl(t->fd, TIOCGWINSZ, &ws) || !ws.ws_row || !ws.ws_col) {
		e = getenv("LINES");
		ws.ws_row = e && atoi(e) > 0 ? atoi(e) : KT_DEFAULT_ROWS;
		e = getenv("COLUMNS");
		ws.ws_col = e && atoi(e) > 0 ? atoi(e) : KT_DEFAULT_COLS;
	}
	*rows = ws.ws_row;
	*cols = ws.ws_col;
}

/* The key of a CSI or SS3 sequence's final byte and parameter. */
static int csi_key(char final, int param)
{
	switch (final) {
	case 'A':
		return KT_KEY_UP;
	case 'B':
		return KT_KEY_DOWN;
	case 'H':
		return KT_KEY_HOME;
	case 'F':
		return KT_KEY_END;
	case '~':
		switch (param) {
		case 1:
		case 7:
			return KT_KEY_HOME;
		case 4:
		case 8:
			return KT_KEY_END;
		case 5:
			return KT_KEY_PGUP;
		case 6:
			return KT_KEY_PGDN;
		}
	}
	return KT_KEY_UNKNOWN;
}

/*
 * An escape sequence at buf (buf[0] is ESC): its key and length.  ESC
 * then neither '[' nor 'O' is the Esc key alone; a sequence cut short
 * by the buffer's end is an unknown key, all of it consumed.
 */
static size_t decode_esc(const char *buf, size_t len, int *key)
{
	size_t i = 2;
	int param = 0;

	if (len < 2 || (buf[1] != '[' && buf[1] != 'O')) {
		*key = KT_KEY_ESC;
		return 1;
	}
	if (buf[1] == 'O') {
		*key = len > 2 ? csi_key(buf[2], 0) : KT_KEY_UNKNOWN;
		return len > 2 ? 3 : 2;
	}
	/* CSI: parameter bytes, intermediate bytes, a final byte */
	for (; i < len && buf[i] >= 0x30 && buf[i] <= 0x3f; i++)
		if (buf[i] >= '0' && buf[i] <= '9' && param < 1000)
			param = param * 10 + buf[i] - '0';
	for (; i < len && buf[i] >= 0x20 && buf[i] <= 0x2f; i++)
		;
	if (i < len && buf[i] >= 0x40 && buf[i] <= 0x7e) {
		*key = csi_key(buf[i], param);
		return i + 1;
	}
	*key = KT_KEY_UNKNOWN;
	return i;
}

/**
 * kt_keys_decode() - the keys in bytes read from the terminal
 * @buf:  the bytes
 * @len:  how many
 * @keys: filled with enum kt_key values and characters
 * @max:  room in keys
 *
 * Return: the number of keys.  Enter is '\n' (also as '\r'), backspace
 * 0x7f (also as ^H).
 */
size_t kt_keys_decode(const char *buf, size_t len, int *keys, size_t max)
{
	size_t i = 0, n = 0;
	int key;

	while (i < len && n < max) {
		unsigned char c = buf[i];

		if (c == KT_KEY_ESC) {
			i += decode_esc(buf + i, len - i, &key);
		} else {
			key = c == '\r' ? '\n' : c == '\b' ? 0x7f : c;
			i++;
		}
		keys[n++] = key;
	}
	return n;
}

/* Does buf end inside an escape sequence? */
static bool cut_short(const char *buf, size_t len)
{
	size_t i;

	for (i = len; i > 0 && len - i < 8; i--) {
		if (buf[i - 1] != KT_KEY_ESC)
			continue;
		if (i == len)
			return true;
		if (buf[i] != '[' && buf[i] != 'O')
			return false;
		return i + 1 == len || (buf[len - 1] >= 0x20 && buf[len - 1] < 0x40);
	}
	return false;
}

/**
 * kt_tty_read_keys() - the keys waiting on stdin
 * @t:    the terminal (keys on)
 * @keys: filled
 * @max:  room in keys
 *
 * A read that ends in the middle of an escape sequence waits a moment
 * for the rest, so an arrow key is never taken for Esc and letters.
 *
 * Return: the number of keys; 0 at end of input or an error.
 */
size_t kt_tty_read_keys(const struct kt_tty *t, int *keys, size_t max)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char buf[64];
	ssize_t n, more;

	n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	while ((size_t)n < sizeof(buf) && cut_short(buf, n) &&
	       poll(&pfd, 1, KT_ESC_WAIT_MS) == 1) {
		more = read(STDIN_FILENO, buf + n, sizeof(buf) - n);
		if (more <= 0)
			break;
		n += more;
	}
	return kt_keys_decode(buf, n, keys, max);
}

/*
 * A line of the screen, cut to cols, unprintable bytes as '?', after
 * an erase of the row from its start: whatever the last frame (or what
 * ran before klptop) left there goes, also when the line fills cols
 * (erasing after it would take its last character, where the cursor
 * waits) and on a terminal wider than it says (a serial console that
 * was never told its size says nothing: 80 columns, the default).
 */
static void put_line(struct strbuf *out, const char *s, int cols)
{
	int i;

	sb_lit(out, "\033[K");
	for (i = 0; s[i] && i < cols; i++) {
		unsigned char c = s[i];

		if (c < 0x20 || c >= 0x7f)
			c = '?';
		sb_put(out, (const char *)&c, 1);
	}
}

/*
 * What the terminal makes room for, in lines: see kt_tty_render().
 * more: the head's lines left out, said on a line after those shown.
 */
struct kt_fit {
	size_t head, more, title, body, foot;
};

static struct kt_fit fit_parts(struct kt_view *v, const struct kt_frame *f)
{
	const struct kt_lines *p = f->part;
	size_t avail = v->term_rows, want = p[KT_BODY].n, keep;
	struct kt_fit fit;

	fit.head = v->term_rows / KT_HEAD_SHARE ?: 1;
	if (fit.head > avail)
		fit.head = avail;
	fit.more = 0;
	if (p[KT_HEAD].n <= fit.head) {
		fit.head = p[KT_HEAD].n;
	} else if (fit.head > 1) {
		fit.head--;		/* its last line says what is left out */
		fit.more = p[KT_HEAD].n - fit.head;
	}
	avail -= fit.head + !!fit.more;
	if (avail)
		avail--;		/* the status line */
	fit.title = p[KT_TITLE].n < avail ? p[KT_TITLE].n : avail;
	avail -= fit.title;
	if (v->rows_given && !v->help && want > (size_t)v->rows)
		want = v->rows;
	keep = want < KT_MIN_BODY ? want : KT_MIN_BODY;
	fit.foot = avail > keep ? avail - keep : 0;
	if (fit.foot > p[KT_FOOT].n)
		fit.foot = p[KT_FOOT].n;
	fit.body = avail - fit.foot < want ? avail - fit.foot : want;
	return fit;
}

static void status_line(const struct kt_view *v, char *buf, size_t size)
{
	size_t last = v->scroll + v->page;
	int len;

	if (v->editing) {
		snprintf(buf, size, "/%s_   Enter: apply, Esc: clear", v->edit);
		return;
	}
	if (v->help) {
		snprintf(buf, size, "any key returns");
		return;
	}
	len = snprintf(buf, size, "rows %zu-%zu of %zu",
		       v->nr_rows ? v->scroll + 1 : 0,
		       last < v->nr_rows ? last : v->nr_rows, v->nr_rows);
	if (v->search[0] && len > 0 && (size_t)len < size)
		len += snprintf(buf + len, size - len, "  filter: %s", v->search);
	if (len > 0 && (size_t)len < size)
		snprintf(buf + len, size - len, "  h: help");
}

/**
 * kt_tty_render() - the bytes that draw a frame over the last one
 * @v:   the view: the terminal's size; its scroll is kept within the
 *       rows, and the rows shown are noted (page, nr_rows) for the keys
 * @f:   the frame
 * @out: appended to
 *
 * Top to bottom: the head (the summary, then the transitions in
 * progress), a status line (the rows shown, the filter, the search being
 * typed), the title, as many rows of the body from v->scroll as there is
 * room for (at most -r when given), then the foot's last lines: it gives
 * up its first lines to keep the body at KT_MIN_BODY rows.  The head
 * takes at most a third of the terminal's lines (one on a terminal under
 * six lines): when it has more, its last line shown says how many more
 * there are ("... and N more lines"), so that a transition holding back
 * thousands of tasks never pushes the rows off a small terminal.  No line
 * is longer than the terminal is wide, and no more lines than it is high:
 * nothing scrolls.
 */
void kt_tty_render(struct kt_view *v, const struct kt_frame *f,
		   struct strbuf *out)
{
	const struct kt_lines *p = f->part;
	struct kt_fit fit = fit_parts(v, f);
	size_t i, used = 0, last = 0, rows = v->term_rows;
	char status[KT_SEARCH_LEN + 128];

	v->nr_rows = p[KT_BODY].n;
	v->page = fit.body;
	if (v->scroll + fit.body > v->nr_rows)
		v->scroll = v->nr_rows > fit.body ? v->nr_rows - fit.body : 0;
	sb_lit(out, "\033[H");
#define LINE(s) do {						\
		if (used++)					\
			sb_lit(out, "\r\n");			\
		last = out->len;				\
		put_line(out, (s), v->term_cols);		\
	} while (0)
	for (i = 0; i < fit.head; i++)
		LINE(p[KT_HEAD].line[i]);
	if (fit.more) {
		snprintf(status, sizeof(status), "  ... and %zu more lines",
			 fit.more);
		LINE(status);
	}
	if (used < rows) {
		status_line(v, status, sizeof(status));
		LINE(status);
	}
	for (i = 0; i < fit.title; i++)
		LINE(p[KT_TITLE].line[i]);
	for (i = 0; i < fit.body; i++)
		LINE(p[KT_BODY].line[v->scroll + i]);
	for (i = p[KT_FOOT].n - fit.foot; i < p[KT_FOOT].n; i++)
		LINE(p[KT_FOOT].line[i]);
#undef LINE
	/*
	 * The last line erases the rest of the screen, not only of its row
	 * (ESC [ J for put_line()'s ESC [ K): what the last frame had below,
	 * or anything on a terminal taller than it says.
	 */
	if (used)
		out->s[last + 2] = 'J';
}

/* The help instead of the title, the rows and the foot. */
static void help_frame(struct kt_frame *f)
{
	struct kt_lines head = f->part[KT_HEAD];

	memset(&f->part[KT_HEAD], 0, sizeof(head));
	kt_frame_free(f);
	f->part[KT_HEAD] = head;
	kt_help_lines(f);
}

/* Without a terminal: every line of the frame as it is. */
static void print_frame(const struct kt_frame *f)
{
	size_t i;
	int p;

	for (p = 0; p < KT_NR_PARTS; p++)
		for (i = 0; i < f->part[p].n; i++)
			printf("%s\n", f->part[p].line[i]);
	fflush(stdout);
}

/**
 * kt_print_screen() - one screen: summary, rows, transitions
 * @v:   the view; on a terminal, its scroll is kept within the rows
 * @m:   the model, counted for this interval
 * @log: the transitions; the ones printed are marked shown
 * @tot: the interval's totals
 *
 * On a terminal (v->term_rows) the frame is fitted to its size and
 * written in one write(), over the last one: no clearing, no flicker.
 */
void kt_print_screen(struct kt_view *v, const struct model *m,
		     struct model_log *log, const struct kt_totals *tot)
{
	struct kt_frame f = {};
	struct strbuf out = {};

	kt_build_screen(v, m, log, tot, &f);
	if (!v->term_rows) {
		print_frame(&f);
	} else {
		if (v->help)
			help_frame(&f);
		kt_tty_render(v, &f, &out);
		sb_write_all(STDOUT_FILENO, out.s, out.len);
	}
	kt_frame_free(&f);
	sb_free(&out);
}
