/* config.c - see config.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int config_dir(char *buf, size_t cap) {
  const char *x = getenv("XDG_CONFIG_HOME");
  int n;
  if (x && x[0] == '/') {
    n = snprintf(buf, cap, "%s/agon", x);
  } else {
    const char *home = getenv("HOME");
    if (!home || !home[0]) return AGON_EINVAL;
    n = snprintf(buf, cap, "%s/.config/agon", home);
  }
  return n < 0 || (size_t)n >= cap ? AGON_ENOSPACE : 0;
}

static int file_path(char *buf, size_t cap) {
  char dir[1024];
  int rc = config_dir(dir, sizeof dir);
  if (rc) return rc;
  int n = snprintf(buf, cap, "%s/sessions.json", dir);
  return n < 0 || (size_t)n >= cap ? AGON_ENOSPACE : 0;
}

/* mkdir -p with 0700 for what we create; our own directory is tightened
 * to 0700 even if it existed. */
static int make_dir(agon_err *err) {
  char dir[1024];
  if (config_dir(dir, sizeof dir))
    return agon_err_set(err, AGON_EINVAL, "no HOME or XDG_CONFIG_HOME");
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
      return agon_err_set(err, AGON_EINVAL, "mkdir %s: %s", dir,
                          strerror(errno));
    *p = '/';
  }
  if (mkdir(dir, 0700) != 0 && errno != EEXIST)
    return agon_err_set(err, AGON_EINVAL, "mkdir %s: %s", dir,
                        strerror(errno));
  if (chmod(dir, 0700) != 0)
    return agon_err_set(err, AGON_EINVAL, "chmod %s: %s", dir,
                        strerror(errno));
  return 0;
}

static json_t *load_all(void) {
  char path[1100];
  if (file_path(path, sizeof path)) return json_object();
  json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
  if (!json_is_object(j)) {
    json_decref(j);
    return json_object();
  }
  return j;
}

static int save_all(json_t *all, agon_err *err) {
  int rc = make_dir(err);
  if (rc) return rc;
  char path[1100], tmp[1200];
  file_path(path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return agon_err_set(err, AGON_EINVAL, "%s: %s", tmp, strerror(errno));
  fchmod(fd, 0600);  /* whatever the umask */
  char *s = json_dumps(all, JSON_INDENT(2) | JSON_SORT_KEYS);
  size_t len = s ? strlen(s) : 0;
  int ok = s != NULL;
  size_t off = 0;
  while (ok && off < len) {
    ssize_t w = write(fd, s + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ok = 0;
    else off += (size_t)w;
  }
  if (ok && write(fd, "\n", 1) != 1) ok = 0;
  if (ok && fsync(fd) != 0) ok = 0;
  free(s);
  if (close(fd) != 0) ok = 0;
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    return agon_err_set(err, AGON_EINVAL, "cannot write %s", path);
  }
  return 0;
}

int config_token_load(const char *server, char *name, size_t name_cap,
                      char *token, size_t token_cap) {
  json_t *all = load_all();
  json_t *e = json_object_get(all, server);
  const char *n = json_string_value(json_object_get(e, "name"));
  const char *t = json_string_value(json_object_get(e, "token"));
  int rc = AGON_ENOTFOUND;
  if (n && t) {
    snprintf(name, name_cap, "%s", n);
    snprintf(token, token_cap, "%s", t);
    rc = 0;
  }
  json_decref(all);
  return rc;
}

int config_token_save(const char *server, const char *name,
                      const char *token, agon_err *err) {
  json_t *all = load_all();
  json_object_set_new(all, server,
                      json_pack("{s:s, s:s}", "name", name, "token", token));
  int rc = save_all(all, err);
  json_decref(all);
  return rc;
}

int config_token_delete(const char *server, agon_err *err) {
  json_t *all = load_all();
  int rc = 0;
  if (json_object_get(all, server)) {
    json_object_del(all, server);
    rc = save_all(all, err);
  }
  json_decref(all);
  return rc;
}
