/* lobby.h - the lobby of the terminal client: the online players, direct
 * challenges, private invitations (scriptable commands) and the full-screen
 * lobby (open seeks, live games, players, incoming challenges, a command
 * line).
 *
 * main.c owns the options, the connection set-up and the path a started
 * game takes (announce it, then play it on a terminal): lobby_env carries
 * them here as callbacks, so a game started from a challenge, an invitation
 * or the lobby screen is played exactly as one started by `agon seek`.
 */
#ifndef AGON_LOBBY_H
#define AGON_LOBBY_H

#include <jansson.h>
#include <stddef.h>

#include "agon_err.h"
#include "session.h"

typedef struct lobby_env {
  const char *host;
  int port;
  int json;                   /* --json */
  const char *const *pos;     /* positional arguments, subcommand first */
  int n_pos;
  const char *const *kv;      /* -o KEY=VALUE */
  int n_kv;
  const char *tc, *side;      /* --tc, --side (NULL: defaults) */
  const char *prefix;         /* --prefix (players) */
  int rated;                  /* --rated */
  /* Connect and say hello; login: resume the saved session (required;
   * token gets it for reconnecting), else anonymous. 0 or AGON_E*. */
  int (*connect)(const struct lobby_env *e, sess *s, int login, char *token,
                 size_t cap, agon_err *err);
  /* Report a failure (text on stderr or a JSON line). Returns 1. */
  int (*fail)(const struct lobby_env *e, const char *what,
              const agon_err *err);
  /* rc != 0: report err; else start (steals) is the game_start event:
   * announce the game and, on a terminal, play it. Closes s. Returns the
   * exit status. The ending of `seek` and `accept`. */
  int (*finish)(const struct lobby_env *e, sess *s, const char *token,
                json_t *start, int rc, const char *what, agon_err *err);
  /* From the lobby screen (terminal released): play the game that start
   * (borrowed) announced on s, or rejoin game_id on a new connection
   * (start NULL); watch game_id on a new connection. */
  int (*play)(const struct lobby_env *e, sess *s, const char *token,
              const json_t *start, long long game_id);
  int (*watch)(const struct lobby_env *e, long long game_id);
  void *arg;                  /* main.c's options */
} lobby_env;

/* agon players [--prefix P] [--json]: the players logged in now. */
int lobby_cmd_players(const lobby_env *e);
/* agon challenge NAME GAME [-o K=V]... [--tc TC] [--side S] [--rated]:
 * wait for the answer; accepted: the game starts as after seek; declined:
 * exit status 1. */
int lobby_cmd_challenge(const lobby_env *e);
/* agon invite GAME [...]: print the code, wait for the game. */
int lobby_cmd_invite(const lobby_env *e);
/* agon join CODE: take an invitation, then play. */
int lobby_cmd_join(const lobby_env *e);
/* agon lobby: the full-screen lobby (a terminal is required). */
int lobby_cmd_screen(const lobby_env *e);

/* The game request fields {game, options, time_control, side, rated} from
 * GAME and "KEY=VALUE" texts. NULL with err (AGON_EUNKNOWNGAME,
 * AGON_EINVAL) on an unknown game or a malformed option. New reference. */
json_t *lobby_game_fields(const char *game, const char *const *kv, int n_kv,
                          const char *tc, const char *side, int rated,
                          agon_err *err);

#endif
