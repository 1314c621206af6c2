/* term.h - the client's terminal layer: a cell frame buffer that renderers
 * draw into, a diff of two frames into ANSI output, and raw-mode input.
 *
 * Design: renderers never write to the terminal. They fill a term_frame
 * (one cell per column, every glyph we draw is one column wide); the play
 * loop diffs it against the frame on screen and writes only the changed
 * runs. The same frame dumps to plain text (term_frame_text), which is what
 * the plain-line fallback prints and what the snapshot tests compare.
 * No ncurses: the output we need is a handful of CSI sequences that every
 * terminal since the VT100 understands, and terminfo would not tell us
 * anything about UTF-8 support anyway.
 */
#ifndef AGON_TERM_H
#define AGON_TERM_H

#include <stddef.h>
#include <stdint.h>

/* Colours: 0 = terminal default, else one of the eight ANSI colours + 1. */
enum {
  TERM_DEFAULT = 0, TERM_BLACK, TERM_RED, TERM_GREEN, TERM_YELLOW,
  TERM_BLUE, TERM_MAGENTA, TERM_CYAN, TERM_WHITE
};
/* Attributes (bit set). Not colours: kept under NO_COLOR. */
enum { TERM_BOLD = 1, TERM_DIM = 2, TERM_UNDERLINE = 4, TERM_REVERSE = 8 };

typedef struct term_style {
  uint8_t fg, bg, at;
} term_style;

typedef struct term_cell {
  uint32_t cp;  /* Unicode code point; ' ' when blank */
  term_style st;
} term_cell;

typedef struct term_frame {
  int w, h;
  term_cell *c;  /* owned, w*h cells, row-major */
} term_frame;

/* The minimum screen the play view is laid out for. */
#define TERM_MIN_W 80
#define TERM_MIN_H 24

static inline term_style term_st(uint8_t fg, uint8_t bg, uint8_t at) {
  term_style s = {fg, bg, at};
  return s;
}
#define TERM_PLAIN term_st(0, 0, 0)

/* Allocate a blank w x h frame (xmalloc: dies only on OOM). */
void term_frame_init(term_frame *f, int w, int h);
void term_frame_close(term_frame *f);
void term_frame_clear(term_frame *f);
/* Draw UTF-8 text at (row, col), clipped to the frame and to maxw columns
 * (maxw < 0: to the frame edge). Returns the columns advanced. Invalid UTF-8
 * bytes are drawn as '?'. */
int term_put(term_frame *f, int row, int col, term_style st, const char *s,
             int maxw);
int term_printf(term_frame *f, int row, int col, term_style st,
                const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Set the style of n cells (for highlights). */
void term_restyle(term_frame *f, int row, int col, int n, term_style st);
/* Plain UTF-8 text of the frame, one line per row, trailing blanks dropped,
 * trailing empty rows dropped. New malloc'd string. */
char *term_frame_text(const term_frame *f);
/* Text of one row (trailing blanks dropped) into buf. */
void term_frame_row(const term_frame *f, int row, char *buf, size_t cap);

/* ANSI output that turns the screen showing prev (NULL: unknown, redraw
 * all) into cur, and leaves the cursor at (crow, ccol). color = 0 drops
 * colours (NO_COLOR) but keeps attributes. New malloc'd string, *len set. */
char *term_frame_diff(const term_frame *prev, const term_frame *cur,
                      int color, int crow, int ccol, size_t *len);

/* UTF-8 encode cp into out (4 bytes max). Returns the byte count. */
int term_utf8_encode(uint32_t cp, char *out);

/* ---- the real terminal ------------------------------------------------- */

/* Keys returned by term_read_key besides plain bytes/code points. */
enum {
  TERM_KEY_NONE = -1, TERM_KEY_EOF = -2, TERM_KEY_RESIZE = -3,
  TERM_KEY_UP = -10, TERM_KEY_DOWN = -11, TERM_KEY_LEFT = -12,
  TERM_KEY_RIGHT = -13, TERM_KEY_PGUP = -14, TERM_KEY_PGDN = -15,
  TERM_KEY_HOME = -16, TERM_KEY_END = -17, TERM_KEY_DEL = -18
};

typedef struct term {
  int in_fd, out_fd;
  int raw;          /* termios changed (restore at close) */
  int color;        /* colours allowed: not NO_COLOR */
  int w, h;
  term_frame shown; /* what the screen holds; w == 0 when unknown */
} term;

/* Does NO_COLOR (any non-empty value) forbid colours? */
int term_no_color(void);
/* Enter raw mode and the alternate screen on in_fd/out_fd (both ttys).
 * Installs a SIGWINCH handler. 0 or a negative AGON_E* code. */
int term_open(term *t, int in_fd, int out_fd);
/* Restore the terminal (idempotent). */
void term_close(term *t);
/* Current window size into t->w, t->h (falls back to 80x24). */
void term_update_size(term *t);
/* Show frame f (diffed against what is on screen) with the cursor at
 * (crow, ccol). */
void term_present(term *t, const term_frame *f, int crow, int ccol);
/* Forget what is on screen: the next present redraws everything. */
void term_invalidate(term *t);
/* Wait up to timeout_ms (-1: forever) for a key. Returns a code point
 * (>= 0), or TERM_KEY_*: NONE on timeout, RESIZE after SIGWINCH, EOF. */
int term_read_key(term *t, int timeout_ms);

#endif
