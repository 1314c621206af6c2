/* view.c - renderers for the play screen. See view.h.
 *
 * Layout at 80x24 (the minimum): title on row 0; the board at the top left;
 * the side panel (players, clocks, turn, counters, moves) right of the board
 * when it fits, else below it on the right half; the legend under the board
 * (or on the left half under a wide board); status, two message rows and the
 * command line at the bottom. Every glyph is one column wide, so frames
 * diff cell by cell.
 */
#include "view.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

/* Side colours: attributes too, so NO_COLOR still tells them apart where the
 * notation itself does not (letter case does everywhere but Gambo's line). */
#define ST_S0 term_st(TERM_YELLOW, 0, TERM_BOLD)
#define ST_S1 term_st(TERM_RED, 0, TERM_BOLD)
#define ST_DIM term_st(0, 0, TERM_DIM)
#define ST_SPECIAL term_st(TERM_GREEN, 0, 0)
#define ST_HEAD term_st(0, 0, TERM_BOLD)
#define ST_TITLE term_st(0, 0, TERM_REVERSE)
#define ST_ERR term_st(TERM_RED, 0, 0)

static term_style side_style(int side) { return side == 1 ? ST_S1 : ST_S0; }

static term_style hl(term_style st) {
  st.at |= TERM_REVERSE;
  return st;
}

/* ---- JSON access ------------------------------------------------------- */

static const char *js(const json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

static long long ji(const json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return json_is_integer(v) ? json_integer_value(v) : 0;
}

static int jb(const json_t *o, const char *k) {
  return json_is_true(json_object_get(o, k));
}

/* o[k0][k1] as integer */
static long long ji2(const json_t *o, const char *k0, const char *k1) {
  return ji(json_object_get(o, k0), k1);
}

void view_side_title(const game_vtable *vt, int side, char *buf, size_t cap) {
  snprintf(buf, cap, "%s", game_side_name(vt, side));
  if (buf[0]) buf[0] = (char)toupper((unsigned char)buf[0]);
}

void view_outcome_text(const game_vtable *vt, game_outcome o, char *buf,
                       size_t cap) {
  char reason[64];
  snprintf(reason, sizeof reason, "%s", o.reason ? o.reason : "");
  for (char *p = reason; *p; p++)
    if (*p == '_') *p = ' ';
  if (o.result == GAME_WIN) {
    char side[32];
    view_side_title(vt, o.winner, side, sizeof side);
    size_t n = strlen(side);  /* "Defenders win", "Light wins" */
    snprintf(buf, cap, "%s %s (%s)", side,
             n > 0 && side[n - 1] == 's' ? "win" : "wins", reason);
  } else if (o.result == GAME_DRAW) {
    snprintf(buf, cap, "Draw (%s)", reason);
  } else {
    snprintf(buf, cap, "in progress");
  }
}

/* ---- last-move squares ------------------------------------------------- */

#define MAX_HL 16

typedef struct hl_set {
  int n;
  int file[MAX_HL], rank[MAX_HL];  /* 0-based */
} hl_set;

/* Squares named in a move text. stop_at_x: the text after the first 'x'
 * lists captured pieces (Gwezboell), not the path. */
static void hl_squares(const char *t, int stop_at_x, hl_set *h) {
  h->n = 0;
  for (const char *p = t; *p && h->n < MAX_HL; p++) {
    if (stop_at_x && (*p == 'x' || *p == 'X')) break;
    if (*p >= 'a' && *p <= 'j' && isdigit((unsigned char)p[1])) {
      int r = 0;
      const char *q = p + 1;
      while (isdigit((unsigned char)*q)) r = r * 10 + (*q++ - '0');
      h->file[h->n] = *p - 'a';
      h->rank[h->n] = r - 1;
      h->n++;
      p = q - 1;
    }
  }
}

static int hl_has(const hl_set *h, int file, int rank) {
  for (int i = 0; i < h->n; i++)
    if (h->file[i] == file && h->rank[i] == rank) return 1;
  return 0;
}

/* ---- square boards ----------------------------------------------------- */

/* One square: up to 3 glyphs (UTF-8) and their style. */
typedef struct sq_cell {
  char text[32];
  term_style st;
} sq_cell;

typedef void (*sq_fn)(const json_t *view, int file, int rank, sq_cell *out,
                      void *arg);

static int draw_square_board(term_frame *f, int row, int col, int files,
                             int ranks, const json_t *view, sq_fn cell,
                             void *arg, const hl_set *h, int *width) {
  int x0 = col + 4;  /* first cell */
  for (int i = 0; i < files; i++) {
    char fl[2] = {(char)('a' + i), 0};
    term_put(f, row, x0 + 3 * i + 1, ST_DIM, fl, 1);
    term_put(f, row + ranks + 3, x0 + 3 * i + 1, ST_DIM, fl, 1);
  }
  term_put(f, row + 1, col + 3, ST_DIM, "\u250c", 1);
  term_put(f, row + ranks + 2, col + 3, ST_DIM, "\u2514", 1);
  for (int i = 0; i < 3 * files; i++) {
    term_put(f, row + 1, x0 + i, ST_DIM, "\u2500", 1);
    term_put(f, row + ranks + 2, x0 + i, ST_DIM, "\u2500", 1);
  }
  term_put(f, row + 1, x0 + 3 * files, ST_DIM, "\u2510", 1);
  term_put(f, row + ranks + 2, x0 + 3 * files, ST_DIM, "\u2518", 1);
  for (int r = ranks - 1; r >= 0; r--) {
    int y = row + 2 + (ranks - 1 - r);
    term_printf(f, y, col, ST_DIM, "%2d", r + 1);
    term_put(f, y, col + 3, ST_DIM, "\u2502", 1);
    term_put(f, y, x0 + 3 * files, ST_DIM, "\u2502", 1);
    term_printf(f, y, x0 + 3 * files + 1, ST_DIM, "%d", r + 1);
    for (int fi = 0; fi < files; fi++) {
      sq_cell c;
      snprintf(c.text, sizeof c.text, "   ");
      c.st = TERM_PLAIN;
      cell(view, fi, r, &c, arg);
      term_style st = c.st;
      if (h && hl_has(h, fi, r)) st = hl(st);
      int n = term_put(f, y, x0 + 3 * fi, st, c.text, 3);
      while (n < 3) term_put(f, y, x0 + 3 * fi + n++, st, " ", 1);
    }
  }
  if (width) *width = 4 + 3 * files + 3;
  return ranks + 4;
}

/* Gambit of Kings: letters of the position text, Light upper case, a '+'
 * before a promoted Knight. */
static void gok_cell(const json_t *view, int file, int rank, sq_cell *out,
                     void *arg) {
  (void)arg;
  json_t *board = json_object_get(view, "board");
  const char *row = json_string_value(json_array_get(board, 9 - (size_t)rank));
  if (!row || (int)strlen(row) <= file) return;
  char c = row[file];
  if (c == '.') {
    snprintf(out->text, sizeof out->text, " \u00b7 ");
    out->st = ST_DIM;
    return;
  }
  int promoted = 0;
  char sq[16];
  snprintf(sq, sizeof sq, "%c%d", 'a' + file, rank + 1);
  size_t i;
  json_t *p;
  json_array_foreach(json_object_get(view, "pieces"), i, p) {
    const char *s = js(p, "square");
    if (s && !strcmp(s, sq)) promoted = jb(p, "promoted");
  }
  snprintf(out->text, sizeof out->text, "%c%c ", promoted ? '+' : ' ', c);
  out->st = side_style(islower((unsigned char)c) ? 1 : 0);
}

/* Gwezboell: the view marks an empty throne '+' and empty corners '#'.
 * Special squares are bracketed, occupied or not. */
static void gwez_cell(const json_t *view, int file, int rank, sq_cell *out,
                      void *arg) {
  (void)arg;
  json_t *board = json_object_get(view, "board");
  const char *row = json_string_value(json_array_get(board, 8 - (size_t)rank));
  if (!row || (int)strlen(row) <= file) return;
  char c = row[file];
  int corner = (file == 0 || file == 8) && (rank == 0 || rank == 8);
  int throne = file == 4 && rank == 4;
  if (c == '.') {
    snprintf(out->text, sizeof out->text, " \u00b7 ");
    out->st = ST_DIM;
  } else if (c == '+') {
    snprintf(out->text, sizeof out->text, "[+]");
    out->st = ST_SPECIAL;
  } else if (c == '#') {
    snprintf(out->text, sizeof out->text, "[#]");
    out->st = ST_SPECIAL;
  } else {
    if (corner || throne)
      snprintf(out->text, sizeof out->text, "[%c]", c);
    else
      snprintf(out->text, sizeof out->text, " %c ", c);
    out->st = side_style(c == 'a' ? 1 : 0);
  }
}

/* Gomony: top marker and height; the full composition is listed beside. */
static void gomony_cell(const json_t *view, int file, int rank, sq_cell *out,
                        void *arg) {
  (void)arg;
  if ((file + rank) % 2 != 0) return;  /* light square: never used */
  char sq[16];
  snprintf(sq, sizeof sq, "%c%d", 'a' + file, rank + 1);
  const char *col = js(json_object_get(view, "board"), sq);
  if (!col) {
    snprintf(out->text, sizeof out->text, " \u00b7 ");
    out->st = ST_DIM;
    return;
  }
  size_t h = strlen(col);
  if (h == 1)
    snprintf(out->text, sizeof out->text, " %c ", col[0]);
  else if (h < 10)
    snprintf(out->text, sizeof out->text, " %c%zu", col[0], h);
  else
    snprintf(out->text, sizeof out->text, "%c%zu", col[0], h);
  out->st = side_style(tolower((unsigned char)col[0]) == 'b' ? 1 : 0);
}

/* ---- Gambo (both rule sets) -------------------------------------------- */

/* Column letters a move text names for the mover (own) and the opponent. */
static void gambo_hl(const char *t, char *own, char *opp) {
  own[0] = opp[0] = 0;
  char w[4][16] = {{0}};
  int n = sscanf(t, "%15s %15s %15s", w[0], w[1], w[2]);
  if (n < 2) return;
  if (!strcmp(w[0], "duel") && n >= 3) {
    own[0] = w[1][0], own[1] = 0;
    opp[0] = w[2][0], opp[1] = 0;
  } else if (!strcmp(w[0], "permute") && n >= 3) {
    own[0] = w[1][0], own[1] = w[2][0], own[2] = 0;
  } else if (!strcmp(w[0], "engage") || !strcmp(w[0], "advance") ||
             !strcmp(w[0], "respond") || !strcmp(w[0], "place")) {
    own[0] = w[1][0], own[1] = 0;
  }
}

static int draw_gambo(term_frame *f, int row, int col, const game_match *m,
                      const json_t *view, int last_mover, int *width) {
  json_t *board = json_object_get(view, "board");
  json_t *rows[2] = {json_object_get(board, "south"),
                     json_object_get(board, "north")};
  json_t *line = json_object_get(board, "line");
  const char *to_move = js(view, "to_move");
  int x0 = col + 8;
  char own[4] = "", opp[4] = "";
  if (m->ply > 0 && last_mover >= 0 && last_mover <= 1)
    gambo_hl(m->last_text, own, opp);
  /* rows: north letters, north, connectors, line, connectors, south,
   * south letters */
  int yrow[2] = {row + 5, row + 1};
  for (int s = 0; s < 2; s++) {
    char title[16];
    view_side_title(m->vt, s, title, sizeof title);
    int mine = to_move && !strcmp(to_move, game_side_name(m->vt, s));
    term_printf(f, yrow[s], col, mine ? ST_HEAD : ST_DIM, "%s%s",
                mine ? "\u25b6" : " ", title);
    for (int i = 0; i < 9; i++) {
      int x = x0 + (2 * i + s) * 3;
      char letter[2] = {(char)('a' + i), 0};
      term_put(f, s ? row : row + 6, x, ST_DIM, letter, 1);
      term_put(f, s ? row + 2 : row + 4, x, ST_DIM, "\u2502", 1);
      json_t *c = json_array_get(rows[s], (size_t)i);
      const char *state = js(c, "state");
      const char *piece = js(c, "piece");
      char txt[8];
      term_style st = side_style(s);
      if (!state || !strcmp(state, "empty") || !piece) {
        snprintf(txt, sizeof txt, "--");
        st = ST_DIM;
      } else if (!strcmp(state, "line") || !strcmp(state, "on_line")) {
        snprintf(txt, sizeof txt, "..");
        st = ST_DIM;
      } else if (!strcmp(state, "withdrawn")) {
        snprintf(txt, sizeof txt, "%c%c", tolower((unsigned char)piece[0]),
                 piece[1]);
        st.at = (uint8_t)((st.at & ~TERM_BOLD) | TERM_DIM);
      } else {
        snprintf(txt, sizeof txt, "%s", piece);
      }
      int lit = (s == last_mover && strchr(own, 'a' + i) && own[0]) ||
                (s == 1 - last_mover && strchr(opp, 'a' + i) && opp[0]);
      term_put(f, yrow[s], x, lit ? hl(st) : st, txt, 2);
    }
  }
  term_put(f, row + 3, col, ST_DIM, " Line", -1);
  for (int k = 0; k < 18; k++) {
    json_t *e = json_array_get(line, (size_t)k);
    int x = x0 + k * 3;
    if (json_is_object(e)) {
      const char *side = js(e, "side");
      int s = side ? game_side_from_name(m->vt, side) : 0;
      term_put(f, row + 3, x, side_style(s), js(e, "piece") ? js(e, "piece")
                                                            : "??", 2);
    } else {
      term_printf(f, row + 3, x, ST_DIM, "%02d", k + 1);
    }
  }
  if (width) *width = 8 + 18 * 3;
  return 7;
}

/* ---- board dispatch ---------------------------------------------------- */

enum { G_OTHER, G_GOK, G_GWEZ, G_GOMONY, G_GAMBO19, G_GAMBO23 };

static int game_kind(const game_vtable *vt) {
  if (!strcmp(vt->name, "gambit-of-kings")) return G_GOK;
  if (!strcmp(vt->name, "gwezboell")) return G_GWEZ;
  if (!strcmp(vt->name, "gomony")) return G_GOMONY;
  if (!strcmp(vt->name, "gambo-2019")) return G_GAMBO19;
  if (!strcmp(vt->name, "gambo-2023")) return G_GAMBO23;
  return G_OTHER;
}

static int board_with_view(term_frame *f, int row, int col,
                           const game_match *m, const json_t *view,
                           int last_mover, int *width) {
  hl_set h = {0, {0}, {0}};
  int kind = game_kind(m->vt);
  if (m->ply > 0 && m->last_text[0])
    hl_squares(m->last_text, kind == G_GWEZ, &h);
  switch (kind) {
  case G_GOK:
    return draw_square_board(f, row, col, 10, 10, view, gok_cell, NULL, &h,
                             width);
  case G_GWEZ:
    return draw_square_board(f, row, col, 9, 9, view, gwez_cell, NULL, &h,
                             width);
  case G_GOMONY:
    return draw_square_board(f, row, col, 8, 8, view, gomony_cell, NULL, &h,
                             width);
  case G_GAMBO19:
  case G_GAMBO23:
    return draw_gambo(f, row, col, m, view, last_mover, width);
  default: {
    /* A game without a renderer: its own text diagram. */
    char buf[GAME_TEXT_MAX];
    m->vt->to_text(&m->st, buf, sizeof buf);
    int r = 0, w = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
      int n = term_put(f, row + r++, col, TERM_PLAIN, line, -1);
      if (n > w) w = n;
    }
    if (width) *width = w;
    return r;
  }
  }
}

int view_board(term_frame *f, int row, int col, const game_match *m,
               int last_mover, int *width) {
  json_t *view = game_match_view(m, GAME_VIEW_ALL);
  int r = board_with_view(f, row, col, m, view, last_mover, width);
  json_decref(view);
  return r;
}

/* ---- counters and legend ----------------------------------------------- */

#define MAX_LINES 24

typedef struct lines {
  int n;
  char t[MAX_LINES][160];
  term_style st[MAX_LINES];
} lines;

static void addl(lines *l, term_style st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void addl(lines *l, term_style st, const char *fmt, ...) {
  if (l->n >= MAX_LINES) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->t[l->n], sizeof l->t[0], fmt, ap);
  va_end(ap);
  l->st[l->n++] = st;
}

/* Counters go in the side panel, legend lines under the board. */
static void game_info(const game_match *m, const json_t *v, lines *ctr,
                      lines *leg) {
  switch (game_kind(m->vt)) {
  case G_GOK: {
    json_t *c = json_object_get(v, "castles");
    addl(ctr, TERM_PLAIN, "Castles: light %s, dark %s",
         js(c, "light") ? js(c, "light") : "destroyed",
         js(c, "dark") ? js(c, "dark") : "destroyed");
    addl(ctr, TERM_PLAIN, "Promotions: light %lld, dark %lld",
         ji2(v, "promotions", "light"), ji2(v, "promotions", "dark"));
    addl(ctr, TERM_PLAIN, "Quiet plies: %lld", ji(v, "quiet_plies"));
    addl(leg, ST_HEAD, "UPPER Light, lower Dark; +K promoted");
    addl(leg, TERM_PLAIN, "S Soldier/Skeleton  E Elf/Orc");
    addl(leg, TERM_PLAIN, "K Knight/Death Knight L Lion/Dire Wolf");
    addl(leg, TERM_PLAIN, "G Griffin/Dragon  T Giant/Ogre");
    addl(leg, TERM_PLAIN, "P Paladin/Lich  C Castle (capture it)");
    break;
  }
  case G_GWEZ:
    addl(ctr, TERM_PLAIN, "King on %s", js(v, "king") ? js(v, "king") : "?");
    addl(ctr, TERM_PLAIN, "Attackers %lld, guards %lld", ji(v, "attackers"),
         ji(v, "guards"));
    addl(ctr, TERM_PLAIN, "Quiet plies: %lld", ji(v, "quiet_plies"));
    addl(leg, ST_HEAD, "K King  D guard  a attacker");
    addl(leg, TERM_PLAIN, "[+] throne  [#] corner (exit)");
    addl(leg, TERM_PLAIN, "King on a corner: defenders win");
    addl(leg, TERM_PLAIN, "King framed by attackers: they win");
    break;
  case G_GOMONY: {
    addl(ctr, TERM_PLAIN, "Columns: white %lld, black %lld",
         ji2(v, "columns", "white"), ji2(v, "columns", "black"));
    addl(ctr, TERM_PLAIN, "Prisoners: white %lld, black %lld",
         ji2(v, "prisoners", "white"), ji2(v, "prisoners", "black"));
    addl(ctr, TERM_PLAIN, "Promoted: white %lld, black %lld",
         ji2(v, "promoted", "white"), ji2(v, "promoted", "black"));
    addl(leg, ST_HEAD, "w b markers, W B promoted");
    addl(leg, TERM_PLAIN, "digit: column height");
    /* Every column of two or more markers, top first, wrapped. */
    char buf[160] = "Stacks (top first):";
    const char *k;
    json_t *val;
    int any = 0;
    json_object_foreach(json_object_get(v, "board"), k, val) {
      const char *s = json_string_value(val);
      if (!s || strlen(s) < 2) continue;
      char item[48];
      snprintf(item, sizeof item, " %s=%s", k, s);
      if (strlen(buf) + strlen(item) > 32) {
        addl(leg, TERM_PLAIN, "%s", buf);
        snprintf(buf, sizeof buf, " ");
      }
      strncat(buf, item, sizeof buf - strlen(buf) - 1);
      any = 1;
    }
    if (!any) strncat(buf, " none", sizeof buf - strlen(buf) - 1);
    addl(leg, TERM_PLAIN, "%s", buf);
    break;
  }
  case G_GAMBO23: {
    addl(ctr, TERM_PLAIN, "Score: South %lld, North %lld",
         ji2(v, "scores", "south"), ji2(v, "scores", "north"));
    addl(ctr, TERM_PLAIN, "Duels %lld/9, pieces left %lld", ji(v, "duels"),
         ji(v, "pieces_left"));
    const char *hand = js(v, "hand");
    addl(ctr, TERM_PLAIN, "Hand: %s (turn order %s)", hand ? hand : "-",
         js(v, "turn_order") ? js(v, "turn_order") : "?");
    json_t *p = json_object_get(v, "permutation");
    addl(ctr, TERM_PLAIN, "Permutation %s",
         jb(p, "allowed") ? "allowed" : "not allowed now");
    json_t *b = json_object_get(v, "bonus");
    if (json_is_object(b))
      addl(ctr, TERM_PLAIN, "Bonus +%lld to %s", ji(b, "points"),
           js(b, "side") ? js(b, "side") : "?");
    addl(leg, ST_HEAD, "E Elephant  C Cat  M Mouse; 1-3 strength");
    addl(leg, TERM_PLAIN, "Each home column faces one Line square;");
    addl(leg, TERM_PLAIN, "'..' piece on the Line, '--' gone.");
    addl(leg, TERM_PLAIN, "Lower score holds the hand.");
    break;
  }
  case G_GAMBO19: {
    addl(ctr, TERM_PLAIN, "Prisoners: South %lld, North %lld",
         ji2(v, "prisoners", "south"), ji2(v, "prisoners", "north"));
    const char *ini = js(v, "initiative");
    addl(ctr, TERM_PLAIN, "Initiative: %s%s", ini ? ini : "-",
         jb(v, "must_engage") ? " (must engage)" : "");
    json_t *e = json_object_get(v, "engaged");
    if (json_is_object(e)) {
      char cand[40] = "";
      size_t i;
      json_t *c;
      json_array_foreach(json_object_get(v, "candidates"), i, c) {
        if (json_is_string(c) && strlen(cand) + 3 < sizeof cand) {
          strcat(cand, " ");
          strcat(cand, json_string_value(c));
        }
      }
      addl(ctr, TERM_PLAIN, "Engaged: %s %s (%s) on L%lld",
           js(e, "side") ? js(e, "side") : "?",
           js(e, "column") ? js(e, "column") : "?",
           js(e, "piece") ? js(e, "piece") : "?", ji(e, "line"));
      addl(ctr, TERM_PLAIN, "Respond with:%s", cand);
    }
    json_t *pl = json_object_get(v, "placement");
    if (json_is_object(pl))
      addl(ctr, TERM_PLAIN, "Placing: %s, strength %lld",
           js(pl, "placer") ? js(pl, "placer") : "?", ji(pl, "strength"));
    addl(leg, ST_HEAD, "E Elephant  C Cat  M Mouse; 1-3 strength");
    addl(leg, TERM_PLAIN, "lower case: withdrawn (won a duel)");
    addl(leg, TERM_PLAIN, "'..' engaged on the Line, '--' gone.");
    break;
  }
  default:
    break;
  }
}

/* ---- the whole screen -------------------------------------------------- */

static void fmt_clock(long long ms, char *buf, size_t cap) {
  if (ms < 0) ms = 0;
  long long s = (ms + 999) / 1000;
  if (s >= 3600)
    snprintf(buf, cap, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    snprintf(buf, cap, "%02lld:%02lld", s / 60, s % 60);
}

static void turn_text(const view_state *vs, char *buf, size_t cap,
                      term_style *st) {
  const game_match *m = vs->m;
  game_outcome o = game_match_outcome(m);
  *st = ST_HEAD;
  if (o.result != GAME_ONGOING) {
    char t[96];
    view_outcome_text(m->vt, o, t, sizeof t);
    snprintf(buf, cap, "Game over: %s", t);
    return;
  }
  int tm = game_match_to_move(m);
  if (tm == GAME_CHOOSER) {
    snprintf(buf, cap, "Chooser: pick a side (choose ...)");
    return;
  }
  char side[32];
  view_side_title(m->vt, tm, side, sizeof side);
  *st = side_style(tm);
  snprintf(buf, cap, "%s to move%s", side,
           vs->last_mover == tm && m->ply > 0 ? " again" : "");
}

void view_render(term_frame *f, const view_state *vs, int *crow, int *ccol) {
  term_frame_clear(f);
  const game_match *m = vs->m;
  if (f->w < TERM_MIN_W || f->h < TERM_MIN_H) {
    term_printf(f, 0, 0, ST_ERR, "Terminal %dx%d is too small:", f->w, f->h);
    term_printf(f, 1, 0, ST_ERR, "agon needs %dx%d.", TERM_MIN_W, TERM_MIN_H);
    term_put(f, 2, 0, TERM_PLAIN, vs->prompt ? vs->prompt : "> ", -1);
    int n = term_put(f, 2, (int)strlen(vs->prompt ? vs->prompt : "> "),
                     TERM_PLAIN, vs->input ? vs->input : "", -1);
    *crow = 2;
    *ccol = (int)strlen(vs->prompt ? vs->prompt : "> ") + n;
    return;
  }
  json_t *view = game_match_view(m, GAME_VIEW_ALL);

  /* Title bar */
  term_restyle(f, 0, 0, f->w, ST_TITLE);
  term_printf(f, 0, 1, ST_TITLE, "agon \u2502 %s \u2502 %s", m->vt->title,
              vs->mode ? vs->mode : "");
  char right[32];
  snprintf(right, sizeof right, "ply %u ", (unsigned)m->ply);
  term_put(f, 0, f->w - (int)strlen(right), ST_TITLE, right, -1);

  int bw = 0;
  int bh = board_with_view(f, 1, 1, m, view, vs->last_mover, &bw);
  int bottom = f->h - 4; /* first row of the status area */
  int px, py, pw, lx, ly, lw;
  int wide = bw + 4 + 30 <= f->w;  /* panel right of the board */
  if (wide) {
    px = bw + 4, py = 1, pw = f->w - px - 1;
    lx = 1, ly = 1 + bh, lw = px - 2;
  } else {
    px = f->w / 2 + 2, py = 1 + bh + 1, pw = f->w - px - 1;
    lx = 1, ly = 1 + bh + 1, lw = f->w / 2;
  }

  lines ctr = {0}, leg = {0};
  game_info(m, view, &ctr, &leg);

  /* Side panel: players, turn, counters, moves */
  int y = py;
  for (int s = 1; s >= 0 && y < bottom; s--, y++) {
    char title[32], clk[48];
    view_side_title(m->vt, s, title, sizeof title);
    int tm = game_match_to_move(m);
    term_put(f, y, px, side_style(s), tm == s ? "\u25b6" : " ", 1);
    if (vs->names[s])
      term_printf(f, y, px + 2, side_style(s), "%s (%s)", title, vs->names[s]);
    else
      term_put(f, y, px + 2, side_style(s), title, pw - 10);
    if (vs->clock_on)
      fmt_clock(vs->clock_ms[s], clk, sizeof clk);
    else
      snprintf(clk, sizeof clk, "--:--");
    term_style cst = vs->clock_on && vs->clock_running == s
                         ? term_st(0, 0, TERM_BOLD | TERM_REVERSE)
                         : ST_DIM;
    term_put(f, y, px + pw - (int)strlen(clk), cst, clk, -1);
  }
  char turn[128];
  term_style tst;
  turn_text(vs, turn, sizeof turn, &tst);
  if (y < bottom) term_put(f, y++, px, tst, turn, pw);
  for (int i = 0; wide && i < ctr.n && y < bottom; i++)
    term_put(f, y++, px, ctr.st[i], ctr.t[i], pw);
  y++;
  if (y < bottom) {
    term_put(f, y++, px, ST_HEAD, "Moves", -1);
    int room = bottom - y;
    if (room > 0) {
      int n = (int)vs->n_moves;
      int end = n - vs->scroll;
      if (end > n) end = n;
      if (end < room && n >= room) end = room;
      if (end < 0) end = 0;
      int start = end - room < 0 ? 0 : end - room;
      for (int i = start; i < end; i++, y++) {
        char tag[8] = "";
        if (vs->movers) {
          int s = vs->movers[i];
          if (s == GAME_CHOOSER) snprintf(tag, sizeof tag, "*");
          else view_side_title(m->vt, s, tag, 2);
        }
        int hl = vs->highlight ? vs->highlight : n;  /* -1: none */
        term_style st = i == hl - 1 ? ST_HEAD
                        : vs->highlight > 0 && i >= hl ? ST_DIM
                                                       : TERM_PLAIN;
        term_printf(f, y, px, st, "%3d %-1s %.*s", i + 1, tag, pw - 7,
                    vs->moves[i]);
      }
    }
  }
  /* Legend */
  int yy = ly;
  for (int i = 0; !wide && i < ctr.n && yy < bottom; i++, yy++)
    term_put(f, yy, lx, ctr.st[i], ctr.t[i], lw);
  for (int i = 0; i < leg.n && yy < bottom; i++, yy++)
    term_put(f, yy, lx, leg.st[i], leg.t[i], lw);

  /* Status, messages, command line */
  if (vs->status) term_put(f, f->h - 4, 0, ST_HEAD, vs->status, -1);
  if (vs->message) {
    const char *p = vs->message;
    for (int r = 0; r < 2 && *p; r++) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      char tmp[512];
      if (len >= sizeof tmp) len = sizeof tmp - 1;
      memcpy(tmp, p, len);
      tmp[len] = 0;
      term_put(f, f->h - 3 + r, 0, TERM_PLAIN, tmp, f->w);
      p = nl ? nl + 1 : p + len;
    }
  }
  const char *prompt = vs->prompt ? vs->prompt : "> ";
  int pl = term_put(f, f->h - 1, 0, ST_HEAD, prompt, -1);
  /* Long input scrolls left so the cursor stays visible. */
  const char *in = vs->input ? vs->input : "";
  int room = f->w - pl - 1;
  int len = (int)strlen(in);
  if (len > room) in += len - room;
  int il = term_put(f, f->h - 1, pl, TERM_PLAIN, in, room);
  *crow = f->h - 1;
  *ccol = pl + il;
  json_decref(view);
}
