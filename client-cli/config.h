/* config.h - the client's files: session tokens per server.
 *
 * $XDG_CONFIG_HOME/agon/ (default ~/.config/agon/), mode 0700, holds
 * sessions.json, mode 0600: {"HOST:PORT": {"name": ..., "token": ...}}.
 * A token is a password equivalent for its lifetime, hence the modes; the
 * file is replaced atomically (write a temporary file, fsync, rename) so a
 * crash never leaves half a file.
 */
#ifndef AGON_CONFIG_H
#define AGON_CONFIG_H

#include <stddef.h>

#include "agon_err.h"

/* The directory path (not created). 0 or AGON_EINVAL (no HOME). */
int config_dir(char *buf, size_t cap);
/* Token and name saved for server key "host:port". 0, or AGON_ENOTFOUND. */
int config_token_load(const char *server, char *name, size_t name_cap,
                      char *token, size_t token_cap);
/* Save (replace) the session for server. Creates the directory. */
int config_token_save(const char *server, const char *name,
                      const char *token, agon_err *err);
/* Forget the session for server (0 even if there was none). */
int config_token_delete(const char *server, agon_err *err);

#endif
