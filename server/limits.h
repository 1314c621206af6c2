/* limits.h - every server limit, with why it has that value (like SQLite's
 * sqliteLimit.h). Operators may lower or raise some through flags/config;
 * these are the defaults. */
#ifndef AGON_LIMITS_H
#define AGON_LIMITS_H

/* ---- network and protocol (server core) -------------------------------- */

/* ---- storage and accounts: see limits_storage.h ------------------------ */
#include "limits_storage.h"

#endif
