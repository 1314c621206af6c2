/* play.h - the play controller: one game on screen, the command line, and
 * what the player's input does. Separate from the terminal (play_run_tty,
 * play_run_plain drive it) and from where moves go: a play_backend decides
 * what a move or a game command does. The local hot-seat backend (NULL)
 * plays both sides on the local rules core; the online backend will send
 * them to the server and apply what the server broadcasts (play_apply).
 */
#ifndef AGON_PLAY_H
#define AGON_PLAY_H

#include <stddef.h>
#include <stdio.h>

#include "game.h"
#include "term.h"
#include "view.h"

#define PLAY_INPUT_MAX 256
#define PLAY_MSG_MAX 1024
#define PLAY_HIST 4096

struct play;

typedef struct play_backend {
  /* A move typed by the player, already parsed legal by the local rules
   * core (canonical text). Returns 0 or an AGON_E* code. */
  int (*move)(struct play *p, const char *canonical, void *arg);
  /* resign, draw, accept, decline, abort, rematch, chat. rest = the text
   * after the command word. Returns 0 or an AGON_E* code. */
  int (*command)(struct play *p, const char *cmd, const char *rest,
                 void *arg);
  /* Online: handle what arrived from the server without waiting; returns
   * the descriptor to wait on for more (play_run_tty polls it with the
   * terminal), or -1 for none now. NULL for the local backend. */
  int (*pump)(struct play *p, void *arg);
  void *arg;
} play_backend;

typedef struct play {
  game_match m;
  uint64_t hist[PLAY_HIST];
  game_setup setup;
  uint64_t seed;
  char *position;            /* owned: start position, or NULL */
  char **moves;              /* owned: canonical texts */
  int *movers;
  size_t n_moves, cap_moves;
  int last_mover;
  int draw_offer;            /* side offering a draw, or -1 */
  const char *mode;          /* title: "local game" */
  const char *names[2];
  const play_backend *be;    /* NULL: local hot seat */
  int read_only;             /* watching: no move is ours to make */
  char input[PLAY_INPUT_MAX];
  size_t in_len;
  char message[PLAY_MSG_MAX];
  char status[256];
  int scroll;
  int quit;
  /* Clocks: online they come from the server; locally (agon local --clock)
   * play_tick runs them like a chess clock. */
  int clock_on;
  long long clock_ms[2];     /* remaining time per side */
  long long clock_inc_ms;    /* added to the mover after each move */
  long long clock_start_ms;  /* initial time (for rematch) */
  long long clock_mark;      /* monotonic ms when the running clock was
                                last charged */
} play;

/* Start a game (position may be NULL: from options and seed). */
int play_init(play *p, const game_setup *setup, uint64_t seed,
              const char *position, agon_err *err);
void play_close(play *p);
/* Play a move on the local copy and record it (local backend, or what the
 * server broadcast). 0 or an AGON_E* code with err. */
int play_apply(play *p, const char *text, agon_err *err);
/* Local chess clock: each side gets initial_ms, plus inc_ms per move. */
void play_set_clock(play *p, long long initial_ms, long long inc_ms);
/* Charge the time since the last call to the side to move (now_ms: a
 * monotonic clock); a flag ends the game (reason "time"). Returns the ms
 * until the displayed time changes (for the redraw timeout), or -1 when no
 * clock runs. */
int play_tick(play *p, long long now_ms);
/* Monotonic milliseconds. */
long long play_now_ms(void);
/* Handle one entered line: a command word or a move. */
void play_submit(play *p, const char *line);
/* Tab on the current input: complete it, or list the candidates. */
void play_tab(play *p);
/* Fill a view_state for the renderer (pointers into p). */
void play_view(const play *p, view_state *vs);
/* Prompt text, e.g. "light> ". */
void play_prompt(const play *p, char *buf, size_t cap);

/* Full-screen loop on a terminal. Returns when the player quits. */
int play_run_tty(play *p, term *t);
/* Line-mode loop (stdin/stdout not a terminal): prints the screen as text
 * after each change, reads one command per line. Returns at EOF or quit. */
int play_run_plain(play *p, FILE *in, FILE *out);

/* The command words, NULL-terminated (for completion and help). */
extern const char *const play_commands[];

#endif
