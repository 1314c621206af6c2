/* term.c - frame buffer, ANSI diff, raw-mode terminal. See term.h. */
#include "term.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "agon_err.h"
#include "cli_util.h"

/* ---- frame ------------------------------------------------------------- */

void term_frame_init(term_frame *f, int w, int h) {
  if (w < 1) w = 1;
  if (h < 1) h = 1;
  f->w = w;
  f->h = h;
  f->c = cli_xmalloc(sizeof *f->c * (size_t)w * (size_t)h);
  term_frame_clear(f);
}

void term_frame_close(term_frame *f) {
  free(f->c);
  f->c = NULL;
  f->w = f->h = 0;
}

void term_frame_clear(term_frame *f) {
  for (int i = 0; i < f->w * f->h; i++) {
    f->c[i].cp = ' ';
    f->c[i].st = TERM_PLAIN;
  }
}

/* Decode one UTF-8 sequence at s; *adv = bytes used. Invalid -> '?'. */
static uint32_t utf8_next(const unsigned char *s, int *adv) {
  unsigned c = s[0];
  int n;
  uint32_t cp;
  if (c < 0x80) {
    *adv = 1;
    return c;
  } else if ((c & 0xe0) == 0xc0) {
    n = 2;
    cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    cp = c & 0x07;
  } else {
    *adv = 1;
    return '?';
  }
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) {
      *adv = i;
      return '?';
    }
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  *adv = n;
  return cp;
}

int term_put(term_frame *f, int row, int col, term_style st, const char *s,
             int maxw) {
  const unsigned char *p = (const unsigned char *)s;
  int adv = 0, x = col;
  if (maxw < 0) maxw = f->w;
  while (*p && x - col < maxw) {
    int n;
    uint32_t cp = utf8_next(p, &n);
    p += n;
    if (cp < 0x20 || cp == 0x7f) cp = '?';  /* never emit controls */
    if (row >= 0 && row < f->h && x >= 0 && x < f->w) {
      term_cell *c = &f->c[row * f->w + x];
      c->cp = cp;
      c->st = st;
    }
    x++;
    adv++;
  }
  return adv;
}

int term_printf(term_frame *f, int row, int col, term_style st,
                const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return term_put(f, row, col, st, buf, -1);
}

void term_restyle(term_frame *f, int row, int col, int n, term_style st) {
  if (row < 0 || row >= f->h) return;
  for (int x = col; x < col + n; x++)
    if (x >= 0 && x < f->w) f->c[row * f->w + x].st = st;
}

int term_utf8_encode(uint32_t cp, char *out) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  } else if (cp < 0x800) {
    out[0] = (char)(0xc0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  } else if (cp < 0x10000) {
    out[0] = (char)(0xe0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  out[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

static void row_text(const term_frame *f, int row, cli_buf *b) {
  int last = f->w - 1;
  while (last >= 0 && f->c[row * f->w + last].cp == ' ') last--;
  for (int x = 0; x <= last; x++) {
    char u[4];
    cli_buf_add(b, u, (size_t)term_utf8_encode(f->c[row * f->w + x].cp, u));
  }
}

void term_frame_row(const term_frame *f, int row, char *buf, size_t cap) {
  cli_buf b;
  cli_buf_init(&b);
  if (row >= 0 && row < f->h) row_text(f, row, &b);
  snprintf(buf, cap, "%s", b.s ? b.s : "");
  cli_buf_close(&b);
}

char *term_frame_text(const term_frame *f) {
  cli_buf b;
  cli_buf_init(&b);
  int rows = f->h;
  while (rows > 0) {
    int blank = 1;
    for (int x = 0; x < f->w && blank; x++)
      if (f->c[(rows - 1) * f->w + x].cp != ' ') blank = 0;
    if (!blank) break;
    rows--;
  }
  for (int r = 0; r < rows; r++) {
    row_text(f, r, &b);
    cli_buf_add(&b, "\n", 1);
  }
  return cli_buf_take(&b);
}

static int style_eq(term_style a, term_style b) {
  return a.fg == b.fg && a.bg == b.bg && a.at == b.at;
}

static void emit_style(cli_buf *b, term_style st, int color) {
  cli_buf_adds(b, "\x1b[0");
  if (st.at & TERM_BOLD) cli_buf_adds(b, ";1");
  if (st.at & TERM_DIM) cli_buf_adds(b, ";2");
  if (st.at & TERM_UNDERLINE) cli_buf_adds(b, ";4");
  if (st.at & TERM_REVERSE) cli_buf_adds(b, ";7");
  if (color && st.fg) cli_buf_printf(b, ";%d", 30 + st.fg - 1);
  if (color && st.bg) cli_buf_printf(b, ";%d", 40 + st.bg - 1);
  cli_buf_adds(b, "m");
}

char *term_frame_diff(const term_frame *prev, const term_frame *cur,
                      int color, int crow, int ccol, size_t *len) {
  cli_buf b;
  cli_buf_init(&b);
  int full = !prev || prev->w != cur->w || prev->h != cur->h;
  /* Hide the cursor while drawing so it does not flicker across. */
  cli_buf_adds(&b, "\x1b[?25l");
  if (full) cli_buf_adds(&b, "\x1b[0m\x1b[H\x1b[2J");
  term_style cur_st = TERM_PLAIN;
  int have_st = 0;
  for (int r = 0; r < cur->h; r++) {
    int x = 0;
    while (x < cur->w) {
      const term_cell *c = &cur->c[r * cur->w + x];
      if (!full) {
        const term_cell *p = &prev->c[r * cur->w + x];
        if (p->cp == c->cp && style_eq(p->st, c->st)) {
          x++;
          continue;
        }
      }
      /* A changed run: position once, then write until cells match. */
      cli_buf_printf(&b, "\x1b[%d;%dH", r + 1, x + 1);
      while (x < cur->w) {
        c = &cur->c[r * cur->w + x];
        if (!full) {
          const term_cell *p = &prev->c[r * cur->w + x];
          if (p->cp == c->cp && style_eq(p->st, c->st)) break;
        }
        term_style st = c->st;
        if (!color) st.fg = st.bg = 0;
        if (!have_st || !style_eq(st, cur_st)) {
          emit_style(&b, st, color);
          cur_st = st;
          have_st = 1;
        }
        char u[4];
        cli_buf_add(&b, u, (size_t)term_utf8_encode(c->cp, u));
        x++;
      }
    }
  }
  cli_buf_adds(&b, "\x1b[0m");
  cli_buf_printf(&b, "\x1b[%d;%dH\x1b[?25h", crow + 1, ccol + 1);
  *len = b.len;
  return cli_buf_take(&b);
}

/* ---- terminal ---------------------------------------------------------- */

static struct termios saved_tio;
static int saved_fd = -1;
static int winch_pipe[2] = {-1, -1};

static void on_winch(int sig) {
  (void)sig;
  int e = errno;
  if (winch_pipe[1] >= 0) {
    ssize_t r = write(winch_pipe[1], "w", 1);
    (void)r;
  }
  errno = e;
}

int term_no_color(void) {
  const char *nc = getenv("NO_COLOR");
  return nc && *nc;
}

static void write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += w;
    n -= (size_t)w;
  }
}

static void write_str(int fd, const char *s) { write_all(fd, s, strlen(s)); }

/* Alternate screen on/off; leaving also resets attributes and shows the
 * cursor, so an exit never leaves the terminal unusable. */
#define ENTER_SCREEN "\x1b[?1049h\x1b[H\x1b[2J"
#define LEAVE_SCREEN "\x1b[0m\x1b[?25h\x1b[?1049l"

void term_update_size(term *t) {
  struct winsize ws;
  if (ioctl(t->out_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 &&
      ws.ws_row > 0) {
    t->w = ws.ws_col;
    t->h = ws.ws_row;
  } else {
    t->w = TERM_MIN_W;
    t->h = TERM_MIN_H;
  }
}

static void restore_atexit(void) {
  if (saved_fd >= 0) {
    tcsetattr(saved_fd, TCSAFLUSH, &saved_tio);
    write_str(STDOUT_FILENO, LEAVE_SCREEN);
    saved_fd = -1;
  }
}

/* SIGTERM/SIGHUP while in raw mode: restore the terminal (tcsetattr and
 * write are async-signal-safe), then die of the signal as usual. */
static void on_fatal(int sig) {
  if (saved_fd >= 0) {
    tcsetattr(saved_fd, TCSAFLUSH, &saved_tio);
    write_str(STDOUT_FILENO, LEAVE_SCREEN);
    saved_fd = -1;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

int term_open(term *t, int in_fd, int out_fd) {
  memset(t, 0, sizeof *t);
  t->in_fd = in_fd;
  t->out_fd = out_fd;
  t->color = !term_no_color();
  if (!isatty(in_fd) || !isatty(out_fd))
    return AGON_EINVAL;
  struct termios tio;
  if (tcgetattr(in_fd, &tio) != 0) return AGON_EINVAL;
  saved_tio = tio;
  saved_fd = in_fd;
  atexit(restore_atexit);
  /* Raw input (no echo, no line discipline, no signals: Ctrl-C is a key),
   * but keep output processing so "\n" still works in messages. */
  tio.c_iflag &= ~(tcflag_t)(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
  tio.c_cflag |= CS8;
  tio.c_lflag &= ~(tcflag_t)(ECHO | ICANON | IEXTEN | ISIG);
  tio.c_cc[VMIN] = 1;
  tio.c_cc[VTIME] = 0;
  if (tcsetattr(in_fd, TCSAFLUSH, &tio) != 0) return AGON_EINVAL;
  t->raw = 1;
  if (winch_pipe[0] < 0 && pipe(winch_pipe) == 0) {
    fcntl(winch_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(winch_pipe[1], F_SETFL, O_NONBLOCK);
    fcntl(winch_pipe[0], F_SETFD, FD_CLOEXEC);
    fcntl(winch_pipe[1], F_SETFD, FD_CLOEXEC);
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_winch;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGWINCH, &sa, NULL);
  sa.sa_handler = on_fatal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  write_str(out_fd, ENTER_SCREEN);
  term_update_size(t);
  return 0;
}

void term_close(term *t) {
  if (t->raw) {
    tcsetattr(t->in_fd, TCSAFLUSH, &saved_tio);
    write_str(t->out_fd, LEAVE_SCREEN);
    t->raw = 0;
    saved_fd = -1;
  }
  signal(SIGWINCH, SIG_DFL);
  term_frame_close(&t->shown);
}

void term_invalidate(term *t) { term_frame_close(&t->shown); }

void term_present(term *t, const term_frame *f, int crow, int ccol) {
  size_t n;
  char *s = term_frame_diff(t->shown.c ? &t->shown : NULL, f, t->color, crow,
                            ccol, &n);
  write_all(t->out_fd, s, n);
  free(s);
  if (t->shown.w != f->w || t->shown.h != f->h) {
    term_frame_close(&t->shown);
    term_frame_init(&t->shown, f->w, f->h);
  }
  memcpy(t->shown.c, f->c, sizeof *f->c * (size_t)f->w * (size_t)f->h);
}

static int read_byte(int fd, int timeout_ms) {
  struct pollfd p = {fd, POLLIN, 0};
  int r = poll(&p, 1, timeout_ms);
  if (r <= 0) return -1;
  unsigned char c;
  ssize_t n = read(fd, &c, 1);
  if (n == 1) return c;
  return n == 0 ? -2 : -1;
}

int term_read_key(term *t, int timeout_ms) {
  struct pollfd p[2] = {{t->in_fd, POLLIN, 0}, {winch_pipe[0], POLLIN, 0}};
  int np = winch_pipe[0] >= 0 ? 2 : 1;
  for (;;) {
    int r = poll(p, (nfds_t)np, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return TERM_KEY_NONE;
    if (np == 2 && (p[1].revents & POLLIN)) {
      char junk[64];
      while (read(winch_pipe[0], junk, sizeof junk) > 0) {
      }
      term_update_size(t);
      return TERM_KEY_RESIZE;
    }
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) break;
  }
  int c = read_byte(t->in_fd, 0);
  if (c == -2 || c == -1) return c == -2 ? TERM_KEY_EOF : TERM_KEY_NONE;
  if (c == 0x1b) {
    /* Escape sequences arrive in one write; a lone ESC has nothing after. */
    int c1 = read_byte(t->in_fd, 30);
    if (c1 < 0) return 0x1b;
    if (c1 != '[' && c1 != 'O') return TERM_KEY_NONE;
    int num = 0, c2;
    for (;;) {
      c2 = read_byte(t->in_fd, 30);
      if (c2 < 0) return TERM_KEY_NONE;
      if (c2 >= '0' && c2 <= '9') {
        num = num * 10 + (c2 - '0');
        continue;
      }
      if (c2 == ';') continue;
      break;
    }
    switch (c2) {
    case 'A': return TERM_KEY_UP;
    case 'B': return TERM_KEY_DOWN;
    case 'C': return TERM_KEY_RIGHT;
    case 'D': return TERM_KEY_LEFT;
    case 'H': return TERM_KEY_HOME;
    case 'F': return TERM_KEY_END;
    case '~':
      if (num == 5) return TERM_KEY_PGUP;
      if (num == 6) return TERM_KEY_PGDN;
      if (num == 3) return TERM_KEY_DEL;
      if (num == 1 || num == 7) return TERM_KEY_HOME;
      if (num == 4 || num == 8) return TERM_KEY_END;
      return TERM_KEY_NONE;
    default: return TERM_KEY_NONE;
    }
  }
  if (c >= 0xc0) {
    /* Gather a UTF-8 sequence. */
    unsigned char s[5] = {(unsigned char)c, 0, 0, 0, 0};
    int n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    for (int i = 1; i < n; i++) {
      int b = read_byte(t->in_fd, 30);
      if (b < 0) return '?';
      s[i] = (unsigned char)b;
    }
    int adv;
    return (int)utf8_next(s, &adv);
  }
  return c;
}
