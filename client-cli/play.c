/* play.c - see play.h. */
#include "play.h"

#include <ctype.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "complete.h"

const char *const play_commands[] = {
    "abort", "accept", "chat", "claim", "decline", "draw", "help", "moves",
    "quit", "rematch", "resign", "rules", "say", NULL};

static const char help_text[] =
    "Type a move in the game's notation and press Enter. Tab completes it\n"
    "from the legal moves (press Tab on an empty line to see them all).\n"
    "Commands:\n"
    "  help            this text\n"
    "  rules           a short summary of this game's rules\n"
    "  moves [PREFIX]  list the legal moves (starting with PREFIX)\n"
    "  resign          the side to move gives up\n"
    "  draw            offer a draw; the opponent types accept or decline\n"
    "  abort           leave the game without a result\n"
    "  rematch         after the game: the same game again\n"
    "  claim win|draw  online, the opponent gone past the grace period:\n"
    "                  end the game (the status line counts down)\n"
    "  chat TEXT       talk to the opponent (online; say TEXT as well;\n"
    "                  watching: to the other spectators)\n"
    "  quit            leave agon\n"
    "Keys: PgUp/PgDn scroll the move list, Ctrl-U clears the line,\n"
    "Ctrl-C or Ctrl-D quits.";

static void set_msg(play *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_msg(play *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->message, sizeof p->message, fmt, ap);
  va_end(ap);
}

/* A page of text shown over the board until a key is pressed (tty) or
 * printed (plain). Kept in message with a marker: the first byte '\f'. */
static void set_page(play *p, const char *text) {
  snprintf(p->message, sizeof p->message, "\f%s", text);
}

static void update_status(play *p) {
  game_outcome o = game_match_outcome(&p->m);
  p->status[0] = 0;
  if (o.result != GAME_ONGOING) {
    char t[128];
    view_outcome_text(p->m.vt, o, t, sizeof t);
    snprintf(p->status, sizeof p->status,
             "Game over: %s. Type rematch or quit.", t);
  } else if (p->draw_offer >= 0) {
    char side[32];
    view_side_title(p->m.vt, p->draw_offer, side, sizeof side);
    snprintf(p->status, sizeof p->status,
             "%s offers a draw: accept or decline.", side);
  }
}

long long play_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void play_set_clock(play *p, long long initial_ms, long long inc_ms) {
  p->clock_on = 1;
  p->clock_start_ms = initial_ms;
  p->clock_ms[0] = p->clock_ms[1] = initial_ms;
  p->clock_inc_ms = inc_ms;
  p->clock_mark = play_now_ms();
}

static int clock_side(const play *p) {
  if (!p->clock_on || game_match_outcome(&p->m).result != GAME_ONGOING)
    return -1;
  int tm = game_match_to_move(&p->m);
  return tm == GAME_SIDE0 || tm == GAME_SIDE1 ? tm : -1;
}

int play_tick(play *p, long long now) {
  int side = clock_side(p);
  long long dt = now - p->clock_mark;
  p->clock_mark = now;
  if (side < 0) return -1;
  p->clock_ms[side] -= dt;
  if (p->clock_ms[side] <= 0) {
    p->clock_ms[side] = 0;
    game_match_end(&p->m, game_outcome_win(1 - side, "time"));
    p->draw_offer = -1;
    char who[32];
    view_side_title(p->m.vt, side, who, sizeof who);
    snprintf(p->message, sizeof p->message, "%s ran out of time.", who);
    update_status(p);
    return -1;
  }
  /* Redraw when the shown (rounded-up) second changes. */
  long long ms = p->clock_ms[side] % 1000;
  return (int)(ms ? ms : 1000);
}

static int start(play *p, agon_err *err) {
  int rc;
  if (p->position)
    rc = game_match_init_position(&p->m, &p->setup, p->position,
                                  strlen(p->position), p->hist, PLAY_HIST,
                                  err);
  else
    rc = game_match_init(&p->m, &p->setup, p->seed, p->hist, PLAY_HIST, err);
  if (rc) return rc;
  for (size_t i = 0; i < p->n_moves; i++) free(p->moves[i]);
  p->n_moves = 0;
  p->last_mover = -1;
  p->draw_offer = -1;
  p->scroll = 0;
  if (p->clock_on) play_set_clock(p, p->clock_start_ms, p->clock_inc_ms);
  update_status(p);
  return 0;
}

int play_init(play *p, const game_setup *setup, uint64_t seed,
              const char *position, agon_err *err) {
  memset(p, 0, sizeof *p);
  p->setup = *setup;
  p->seed = seed;
  p->position = position ? cli_xstrdup(position) : NULL;
  p->mode = "local game";
  int rc = start(p, err);
  if (rc) {
    free(p->position);
    p->position = NULL;
    return rc;
  }
  set_msg(p, "Type a move (Tab completes), or help. Rules: rules.");
  return 0;
}

void play_close(play *p) {
  for (size_t i = 0; i < p->n_moves; i++) free(p->moves[i]);
  free(p->moves);
  free(p->movers);
  free(p->position);
  p->moves = NULL;
  p->movers = NULL;
  p->position = NULL;
  p->n_moves = p->cap_moves = 0;
}

int play_apply(play *p, const char *text, agon_err *err) {
  if (p->clock_on) {
    play_tick(p, play_now_ms());
    if (game_match_outcome(&p->m).result != GAME_ONGOING)
      return agon_err_set(err, AGON_EGAMEOVER, "the time is up");
  }
  int mover = game_match_to_move(&p->m);
  game_move mv;
  char echo[GAME_MOVE_TEXT_MAX] = "";
  /* The echo (describe_move) must be computed on the position before. */
  if (p->m.vt->parse_move(&p->m.st, text, strlen(text), &mv, NULL) == 0 &&
      p->m.vt->describe_move)
    p->m.vt->describe_move(&p->m.st, &mv, echo, sizeof echo);
  int rc = game_match_play(&p->m, text, strlen(text), NULL, err);
  if (rc) return rc;
  if (p->n_moves == p->cap_moves) {
    p->cap_moves = p->cap_moves ? p->cap_moves * 2 : 64;
    p->moves = cli_xrealloc(p->moves, sizeof *p->moves * p->cap_moves);
    p->movers = cli_xrealloc(p->movers, sizeof *p->movers * p->cap_moves);
  }
  p->moves[p->n_moves] = cli_xstrdup(p->m.last_text);
  p->movers[p->n_moves] = mover;
  p->n_moves++;
  p->last_mover = mover;
  if (p->clock_on && (mover == GAME_SIDE0 || mover == GAME_SIDE1))
    p->clock_ms[mover] += p->clock_inc_ms;
  p->draw_offer = -1;
  p->scroll = 0;
  char who[32];
  if (mover == GAME_CHOOSER)
    snprintf(who, sizeof who, "Chooser");
  else
    view_side_title(p->m.vt, mover, who, sizeof who);
  set_msg(p, "%s played %s", who, echo[0] ? echo : p->m.last_text);
  update_status(p);
  return 0;
}

/* ---- the local backend ------------------------------------------------- */

static int local_command(play *p, const char *cmd, const char *rest) {
  game_outcome o = game_match_outcome(&p->m);
  int tm = game_match_to_move(&p->m);
  if (!strcmp(cmd, "chat")) {
    set_msg(p, "chat is for online games (you said: %s)", rest);
    return 0;
  }
  if (!strcmp(cmd, "claim")) {
    set_msg(p, "claim is for online games (an opponent who left)");
    return AGON_ESTATE;
  }
  if (!strcmp(cmd, "abort")) {
    p->quit = 1;
    return 0;
  }
  if (!strcmp(cmd, "rematch")) {
    if (o.result == GAME_ONGOING) {
      set_msg(p, "rematch: the game is not over yet");
      return AGON_ESTATE;
    }
    agon_err err;
    if (!p->position) p->seed++;  /* a new deal / draw for seeded games */
    if (start(p, &err)) {
      set_msg(p, "rematch: %s", err.msg);
      return AGON_ESTATE;
    }
    set_msg(p, "Rematch: a new game has started.");
    return 0;
  }
  if (o.result != GAME_ONGOING) {
    set_msg(p, "%s: the game is over", cmd);
    return AGON_EGAMEOVER;
  }
  if (tm != GAME_SIDE0 && tm != GAME_SIDE1) {
    set_msg(p, "%s: the sides are not chosen yet", cmd);
    return AGON_ESTATE;
  }
  if (!strcmp(cmd, "resign")) {
    game_match_end(&p->m, game_outcome_win(1 - tm, "resignation"));
    char side[32];
    view_side_title(p->m.vt, tm, side, sizeof side);
    size_t n = strlen(side);
    set_msg(p, "%s %s.", side,
            n > 0 && side[n - 1] == 's' ? "resign" : "resigns");
  } else if (!strcmp(cmd, "draw")) {
    p->draw_offer = tm;
  } else if (!strcmp(cmd, "accept")) {
    if (p->draw_offer < 0) {
      set_msg(p, "accept: there is no draw offer");
      return AGON_ESTATE;
    }
    game_match_end(&p->m, game_outcome_draw("agreement"));
    p->draw_offer = -1;
    set_msg(p, "Draw agreed.");
  } else if (!strcmp(cmd, "decline")) {
    if (p->draw_offer < 0) {
      set_msg(p, "decline: there is no draw offer");
      return AGON_ESTATE;
    }
    p->draw_offer = -1;
    set_msg(p, "Draw declined.");
  }
  update_status(p);
  return 0;
}

/* ---- input ------------------------------------------------------------- */

static void list_moves(play *p, const char *prefix) {
  complete_list l;
  complete_moves(&p->m, prefix, &l);
  cli_buf b;
  cli_buf_init(&b);
  if (l.n == 0)
    cli_buf_printf(&b, "No legal move starts with '%s'.", prefix);
  else
    cli_buf_printf(&b, "%zu legal move%s:\n", l.n, l.n == 1 ? "" : "s");
  size_t col = 0;
  for (size_t i = 0; i < l.n; i++) {
    size_t len = strlen(l.v[i]) + 2;
    if (col > 0 && col + len > 78) {
      cli_buf_adds(&b, "\n");
      col = 0;
    }
    cli_buf_printf(&b, "%s  ", l.v[i]);
    col += len;
  }
  set_page(p, b.s);
  cli_buf_close(&b);
  complete_free(&l);
}

void play_submit(play *p, const char *line) {
  while (*line == ' ' || *line == '\t') line++;
  char word[32];
  size_t wl = 0;
  while (line[wl] && !isspace((unsigned char)line[wl]) && wl < sizeof word - 1)
    wl++;
  memcpy(word, line, wl);
  word[wl] = 0;
  const char *rest = line + wl;
  while (*rest == ' ' || *rest == '\t') rest++;
  if (!word[0]) return;
  for (char *c = word; *c; c++) *c = (char)tolower((unsigned char)*c);
  if (!strcmp(word, "quit") || !strcmp(word, "exit")) {
    p->quit = 1;
    return;
  }
  if (!strcmp(word, "help") || !strcmp(word, "?")) {
    set_page(p, help_text);
    return;
  }
  if (!strcmp(word, "rules")) {
    const char *r = view_rules(p->m.vt->name);
    set_page(p, r ? r : "No summary for this game.");
    return;
  }
  if (!strcmp(word, "moves")) {
    list_moves(p, rest);
    return;
  }
  for (size_t i = 0; play_commands[i]; i++) {
    if (strcmp(word, play_commands[i])) continue;
    if (p->be && p->be->command)
      p->be->command(p, word, rest, p->be->arg);
    else
      local_command(p, word, rest);
    return;
  }
  if (p->read_only) {
    set_msg(p, "You are watching this game: say TEXT chats, quit leaves.");
    return;
  }
  /* A move: check it with the local rules core first, so typos get an
   * immediate answer; online, the server still decides. */
  game_move mv;
  agon_err err;
  agon_err_clear(&err);
  if (game_match_outcome(&p->m).result != GAME_ONGOING) {
    set_msg(p, "The game is over: rematch or quit.");
    return;
  }
  int rc = p->m.vt->parse_move(&p->m.st, line, strlen(line), &mv, &err);
  if (rc) {
    if (rc == AGON_EBADMOVE)
      set_msg(p, "'%s' is not a move or command (help lists them; Tab "
                 "completes moves)", line);
    else
      set_msg(p, "%s: %s", line, err.msg[0] ? err.msg : agon_err_name(rc));
    return;
  }
  char canon[GAME_MOVE_TEXT_MAX];
  p->m.vt->format_move(&p->m.st, &mv, canon, sizeof canon);
  if (p->be && p->be->move) {
    p->be->move(p, canon, p->be->arg);
  } else if (play_apply(p, canon, &err)) {
    set_msg(p, "%s: %s", canon, err.msg);
  }
}

void play_tab(play *p) {
  complete_list l;
  complete_moves(&p->m, p->input, &l);
  if (l.n == 0 && p->input[0]) {
    complete_free(&l);
    complete_words(play_commands, p->input, &l);
  }
  if (l.n == 0) {
    set_msg(p, "no legal move or command starts with '%s'", p->input);
  } else if (l.n == 1) {
    snprintf(p->input, sizeof p->input, "%s", l.v[0]);
    p->in_len = strlen(p->input);
    p->message[0] = 0;
  } else {
    size_t c = complete_common(&l);
    if (c > strlen(p->input) || c >= p->in_len) {
      if (c >= sizeof p->input) c = sizeof p->input - 1;
      memcpy(p->input, l.v[0], c);
      p->input[c] = 0;
      p->in_len = c;
    }
    cli_buf b;
    cli_buf_init(&b);
    cli_buf_printf(&b, "%zu: ", l.n);
    size_t shown = 0;
    for (; shown < l.n; shown++) {
      if (b.len + strlen(l.v[shown]) + 2 > 150) break;
      cli_buf_printf(&b, "%s  ", l.v[shown]);
    }
    if (shown < l.n) cli_buf_printf(&b, "(+%zu more: moves)", l.n - shown);
    /* Two message rows of 80 columns. */
    if (b.len > 80) {
      char *s = b.s;
      size_t cut = 80;
      while (cut > 0 && s[cut] != ' ') cut--;
      if (cut > 0) s[cut] = '\n';
    }
    snprintf(p->message, sizeof p->message, "%s", b.s);
    cli_buf_close(&b);
  }
  complete_free(&l);
}

void play_prompt(const play *p, char *buf, size_t cap) {
  int tm = game_match_to_move(&p->m);
  if (game_match_outcome(&p->m).result != GAME_ONGOING)
    snprintf(buf, cap, "> ");
  else
    snprintf(buf, cap, "%s> ", game_side_name(p->m.vt, tm));
}

void play_view(const play *p, view_state *vs) {
  memset(vs, 0, sizeof *vs);
  vs->m = &p->m;
  vs->mode = p->mode;
  vs->names[0] = p->names[0];
  vs->names[1] = p->names[1];
  vs->last_mover = p->last_mover;
  vs->moves = (const char *const *)p->moves;
  vs->movers = p->movers;
  vs->n_moves = p->n_moves;
  vs->clock_on = p->clock_on;
  vs->clock_ms[0] = p->clock_ms[0];
  vs->clock_ms[1] = p->clock_ms[1];
  vs->clock_running = clock_side(p);
  vs->status = p->status[0] ? p->status : NULL;
  vs->message = p->message[0] == '\f' ? NULL : p->message;
  vs->input = p->input;
  vs->scroll = p->scroll;
}

/* ---- loops ------------------------------------------------------------- */

static void render_page(term_frame *f, const char *text) {
  term_frame_clear(f);
  int row = 0;
  const char *s = text;
  while (*s && row < f->h - 1) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    char tmp[512];
    if (len >= sizeof tmp) len = sizeof tmp - 1;
    memcpy(tmp, s, len);
    tmp[len] = 0;
    term_put(f, row++, 0, TERM_PLAIN, tmp, f->w);
    s = nl ? nl + 1 : s + len;
  }
  term_put(f, f->h - 1, 0, term_st(0, 0, TERM_REVERSE),
           " Press any key to go back ", -1);
}

int play_run_tty(play *p, term *t) {
  term_frame f = {0, 0, NULL};
  char prompt[64];
  for (;;) {
    if (!f.c || f.w != t->w || f.h != t->h) {
      term_frame_close(&f);
      term_frame_init(&f, t->w, t->h);
      term_invalidate(t);
    }
    int crow, ccol;
    int paging = p->message[0] == '\f';
    if (paging) {
      render_page(&f, p->message + 1);
      crow = f.h - 1;
      ccol = 0;
    } else {
      view_state vs;
      play_view(p, &vs);
      play_prompt(p, prompt, sizeof prompt);
      vs.prompt = prompt;
      view_render(&f, &vs, &crow, &ccol);
    }
    term_present(t, &f, crow, ccol);
    if (p->quit) break;
    int wait = p->clock_on ? play_tick(p, play_now_ms()) : -1;
    int k;
    if (p->be && p->be->pump) {
      /* Online: wake for the server too. The wait is capped so a lost
       * connection (no descriptor) is retried and SIGWINCH, which
       * term_read_key watches, is noticed soon. */
      int sfd = p->be->pump(p, p->be->arg);
      struct pollfd pf[2] = {{t->in_fd, POLLIN, 0}, {sfd, POLLIN, 0}};
      int w = wait < 0 || wait > 250 ? 250 : wait;
      poll(pf, sfd >= 0 ? 2 : 1, w);
      if (sfd >= 0 && pf[1].revents) p->be->pump(p, p->be->arg);
      k = term_read_key(t, 0);
    } else {
      k = term_read_key(t, wait);
    }
    if (p->clock_on) play_tick(p, play_now_ms());
    if (k == TERM_KEY_NONE || k == TERM_KEY_RESIZE) continue;
    if (k == TERM_KEY_EOF || k == 3 || k == 4) break;  /* Ctrl-C, Ctrl-D */
    if (paging) {
      p->message[0] = 0;
      continue;
    }
    if (k == '\r' || k == '\n') {
      char line[PLAY_INPUT_MAX];
      snprintf(line, sizeof line, "%s", p->input);
      p->input[0] = 0;
      p->in_len = 0;
      play_submit(p, line);
    } else if (k == '\t') {
      play_tab(p);
    } else if (k == 127 || k == 8) {
      /* Drop one UTF-8 character. */
      while (p->in_len > 0) {
        unsigned char c = (unsigned char)p->input[--p->in_len];
        if ((c & 0xc0) != 0x80) break;
      }
      p->input[p->in_len] = 0;
    } else if (k == 21) {  /* Ctrl-U */
      p->in_len = 0;
      p->input[0] = 0;
    } else if (k == 12) {  /* Ctrl-L: redraw */
      term_invalidate(t);
    } else if (k == TERM_KEY_PGUP) {
      p->scroll += 5;
      if ((size_t)p->scroll > p->n_moves) p->scroll = (int)p->n_moves;
    } else if (k == TERM_KEY_PGDN) {
      p->scroll = p->scroll > 5 ? p->scroll - 5 : 0;
    } else if (k >= 32 && k != 127) {
      char u[4];
      int n = term_utf8_encode((uint32_t)k, u);
      if (p->in_len + (size_t)n < sizeof p->input - 1) {
        memcpy(p->input + p->in_len, u, (size_t)n);
        p->in_len += (size_t)n;
        p->input[p->in_len] = 0;
      }
    }
  }
  term_frame_close(&f);
  return 0;
}

int play_run_plain(play *p, FILE *in, FILE *out) {
  int echo = !isatty(fileno(in));
  term_frame f;
  term_frame_init(&f, TERM_MIN_W, TERM_MIN_H);
  char line[PLAY_INPUT_MAX * 2];
  int redraw = 1;  /* a page replaces the board once; then draw again */
  for (;;) {
    if (p->message[0] == '\f') {
      fprintf(out, "%s\n", p->message + 1);
      p->message[0] = 0;
    } else if (redraw) {
      view_state vs;
      int crow, ccol;
      play_view(p, &vs);
      vs.prompt = "";
      view_render(&f, &vs, &crow, &ccol);
      char *txt = term_frame_text(&f);
      /* The last row is the (empty) command line: the prompt follows. */
      fputs(txt, out);
      free(txt);
    }
    if (p->quit) break;
    char prompt[64];
    play_prompt(p, prompt, sizeof prompt);
    fputs(prompt, out);
    fflush(out);
    if (!fgets(line, sizeof line, in)) {
      fputc('\n', out);
      break;
    }
    line[strcspn(line, "\r\n")] = 0;
    if (echo) fprintf(out, "%s\n", line);  /* a transcript reads well */
    if (p->clock_on) play_tick(p, play_now_ms());
    play_submit(p, line);
    redraw = 1;
  }
  fflush(out);
  term_frame_close(&f);
  return 0;
}
