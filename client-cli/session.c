/* session.c - see session.h. */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int left_ms(long long deadline) {
  if (deadline < 0) return -1;
  long long l = deadline - now_ms();
  return l < 0 ? 0 : (int)l;
}

/* TLS on the connected (non-blocking) socket: the handshake is driven
 * with poll against the same deadline as the connect. The socket stays
 * non-blocking; io_send/io_recv below turn WANT_READ/WANT_WRITE into the
 * same waits the plain path makes. */
static int tls_start(sess *s, const char *host, long long deadline,
                     agon_err *err);

int sess_connect(sess *s, const char *host, int port, int timeout_ms,
                 agon_err *err) {
  return sess_connect_net(s, host, port, NULL, timeout_ms, err);
}

int sess_connect_net(sess *s, const char *host, int port,
                     const sess_net *net, int timeout_ms, agon_err *err) {
  memset(s, 0, sizeof *s);
  s->fd = -1;
  s->want_id = -1;
  s->next_id = 1;
  if (net) s->net = *net;
  char ports[16];
  snprintf(ports, sizeof ports, "%d", port);
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  int g = getaddrinfo(host, ports, &hints, &res);
  if (g != 0)
    return agon_err_set(err, AGON_EINVAL, "%s: %s", host, gai_strerror(g));
  long long deadline = now_ms() + timeout_ms;
  int rc = AGON_EINVAL;
  char why[96] = "no address";
  for (struct addrinfo *a = res; a; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
                    a->ai_protocol);
    if (fd < 0) continue;
    if (s->net.source[0]) {
      struct addrinfo *src = NULL, sh;
      memset(&sh, 0, sizeof sh);
      sh.ai_family = a->ai_family;
      sh.ai_socktype = SOCK_STREAM;
      sh.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
      int b = getaddrinfo(s->net.source, NULL, &sh, &src);
      if (b != 0 || bind(fd, src->ai_addr, src->ai_addrlen) != 0) {
        snprintf(why, sizeof why, "cannot bind %s: %s", s->net.source,
                 b ? gai_strerror(b) : strerror(errno));
        if (src) freeaddrinfo(src);
        close(fd);
        continue;
      }
      freeaddrinfo(src);
    }
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    int c = connect(fd, a->ai_addr, a->ai_addrlen);
    if (c != 0 && errno == EINPROGRESS) {
      struct pollfd p = {fd, POLLOUT, 0};
      int r = poll(&p, 1, left_ms(deadline));
      if (r == 1) {
        int e = 0;
        socklen_t el = sizeof e;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
        c = e ? -1 : 0;
        errno = e;
      } else {
        errno = ETIMEDOUT;
        c = -1;
      }
    }
    if (c == 0) {
      s->fd = fd;
      rc = 0;
      break;
    }
    snprintf(why, sizeof why, "%s", strerror(errno));
    close(fd);
  }
  freeaddrinfo(res);
  if (rc)
    return agon_err_set(err, AGON_EINVAL, "cannot connect to %s:%d: %s",
                        host, port, why);
  if (s->net.tls) {
    rc = tls_start(s, host, deadline, err);
    if (rc) {
      sess_close(s);
      return rc;
    }
  }
  proto_framer_init(&s->fr, SESS_MAX_LINE);
  s->buf = cli_xmalloc(PROTO_FRAMER_BUFSIZE(SESS_MAX_LINE));
  proto_framer_attach(&s->fr, s->buf);
  return 0;
}

static int tls_start(sess *s, const char *host, long long deadline,
                     agon_err *err) {
  SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx) return agon_err_set(err, AGON_EINTERNAL, "TLS: no context");
  s->ssl_ctx = ctx;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
  int ok = s->net.ca[0]
               ? SSL_CTX_load_verify_locations(ctx, s->net.ca, NULL)
               : SSL_CTX_set_default_verify_paths(ctx);
  if (ok != 1)
    return agon_err_set(err, AGON_EINVAL, "TLS: cannot load CA %s",
                        s->net.ca[0] ? s->net.ca : "(system store)");
  SSL *ssl = SSL_new(ctx);
  if (!ssl) return agon_err_set(err, AGON_EINTERNAL, "TLS: no session");
  s->ssl = ssl;
  SSL_set_fd(ssl, s->fd);
  /* A numeric host is checked against the certificate's IP addresses,
   * a name against its DNS names (and sent as SNI). */
  unsigned char ipbuf[16];
  int is_ip = inet_pton(AF_INET, host, ipbuf) == 1 ||
              inet_pton(AF_INET6, host, ipbuf) == 1;
  if (is_ip) {
    ok = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
  } else {
    SSL_set_tlsext_host_name(ssl, host);
    ok = SSL_set1_host(ssl, host);
  }
  if (ok != 1)
    return agon_err_set(err, AGON_EINVAL, "TLS: bad host name %s", host);
  for (;;) {
    ERR_clear_error();
    int r = SSL_connect(ssl);
    if (r == 1) return 0;
    int e = SSL_get_error(ssl, r);
    short want = e == SSL_ERROR_WANT_READ    ? POLLIN
                 : e == SSL_ERROR_WANT_WRITE ? POLLOUT
                                             : 0;
    if (!want) {
      long v = SSL_get_verify_result(ssl);
      if (v != X509_V_OK)
        return agon_err_set(err, AGON_EFORBIDDEN,
                            "TLS: the certificate of %s is not trusted: %s",
                            host, X509_verify_cert_error_string(v));
      unsigned long q = ERR_get_error();
      char b[120] = "handshake failed";
      if (q) ERR_error_string_n(q, b, sizeof b);
      return agon_err_set(err, AGON_EFORBIDDEN, "TLS with %s: %s", host, b);
    }
    struct pollfd p = {s->fd, want, 0};
    if (poll(&p, 1, left_ms(deadline)) == 0)
      return agon_err_set(err, AGON_ETIMEOUT, "TLS handshake timed out");
  }
}

/* send()/recv() semantics over TLS or plain TCP: >0 bytes, -1 with errno
 * EAGAIN (wait; *want says for what), or 0/-1 for a dead connection. */
static ssize_t io_send(sess *s, const char *p, size_t n, short *want) {
  *want = POLLOUT;
  if (!s->ssl) return send(s->fd, p, n, MSG_NOSIGNAL);
  ERR_clear_error();
  int r = SSL_write(s->ssl, p, (int)(n > 1 << 30 ? 1 << 30 : n));
  if (r > 0) return r;
  int e = SSL_get_error(s->ssl, r);
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
    *want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
    errno = EAGAIN;
    return -1;
  }
  errno = EPIPE;
  return -1;
}

static ssize_t io_recv(sess *s, char *p, size_t n) {
  if (!s->ssl) return recv(s->fd, p, n, 0);
  ERR_clear_error();
  int r = SSL_read(s->ssl, p, (int)(n > 1 << 30 ? 1 << 30 : n));
  if (r > 0) return r;
  int e = SSL_get_error(s->ssl, r);
  /* WANT_READ also after a TLS 1.3 session ticket: no data yet. */
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
    errno = EAGAIN;
    return -1;
  }
  return 0;
}

int sess_fd(const sess *s) { return s->fd; }

static int send_json(sess *s, const json_t *j, agon_err *err) {
  char small[4096];
  long n = proto_encode(j, small, sizeof small);
  char *p = small;
  if (n < 0) return agon_err_set(err, AGON_EINTERNAL, "cannot encode");
  if ((size_t)n > sizeof small) {
    p = cli_xmalloc((size_t)n + 1);
    n = proto_encode(j, p, (size_t)n + 1);
  }
  size_t off = 0;
  int rc = 0;
  while (off < (size_t)n) {
    short want;
    ssize_t w = io_send(s, p + off, (size_t)n - off, &want);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd pf = {s->fd, want, 0};
      poll(&pf, 1, SESS_TIMEOUT_MS);
      continue;
    }
    if (w <= 0) {
      s->closed = 1;
      snprintf(s->close_reason, sizeof s->close_reason, "connection lost");
      rc = agon_err_set(err, AGON_ESHUTDOWN, "connection lost");
      break;
    }
    off += (size_t)w;
  }
  if (p != small) free(p);
  return rc;
}

static void handle_event(sess *s, json_t *j) {
  const char *ev = json_string_value(json_object_get(j, "event"));
  if (ev && !strcmp(ev, "ping")) {
    json_t *pong = json_pack("{s:s, s:O}", "type", "pong", "nonce",
                             json_object_get(j, "nonce"));
    if (pong) send_json(s, pong, NULL);
    json_decref(pong);
  } else if (ev && (!strcmp(ev, "disconnect") || !strcmp(ev, "shutdown"))) {
    const char *m = json_string_value(json_object_get(j, "message"));
    const char *r = json_string_value(json_object_get(j, "reason"));
    snprintf(s->close_reason, sizeof s->close_reason, "%s%s%s",
             r ? r : ev, m ? ": " : "", m ? m : "");
  }
  if (s->on_event) s->on_event(s, j, s->ev_arg);
}

static int on_line(void *arg, int kind, const char *line, size_t len) {
  sess *s = arg;
  if (kind != PROTO_LINE) return 0;  /* over a MiB: nothing we asked for */
  json_t *j = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
  if (!json_is_object(j)) {
    json_decref(j);
    return 0;
  }
  if (json_object_get(j, "event")) {
    handle_event(s, j);
  } else {
    json_t *id = json_object_get(j, "id");
    if (s->want_id >= 0 && json_is_integer(id) &&
        json_integer_value(id) == s->want_id && !s->reply) {
      s->reply = json_incref(j);
    }
  }
  json_decref(j);
  return 0;
}

/* Read once (waiting up to timeout_ms) and frame what came. */
static int read_some(sess *s, int timeout_ms, agon_err *err) {
  if (s->closed) return agon_err_set(err, AGON_ESHUTDOWN, "%s",
                                     s->close_reason);
  /* TLS may hold decrypted bytes the socket no longer shows. */
  if (!s->ssl || SSL_pending(s->ssl) == 0) {
    struct pollfd p = {s->fd, POLLIN, 0};
    int r = poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) return 0;
    if (r <= 0) return 0;
  }
  char *dst;
  size_t room;
  proto_framer_space(&s->fr, &dst, &room);
  ssize_t n = io_recv(s, dst, room);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
  if (n <= 0) {
    s->closed = 1;
    if (!s->close_reason[0])
      snprintf(s->close_reason, sizeof s->close_reason,
               "the server closed the connection");
    return agon_err_set(err, AGON_ESHUTDOWN, "%s", s->close_reason);
  }
  proto_framer_feed(&s->fr, (size_t)n, on_line, s);
  return 0;
}

int sess_pump(sess *s, int timeout_ms, agon_err *err) {
  return read_some(s, timeout_ms, err);
}

int sess_request(sess *s, const char *type, json_t *fields, int timeout_ms,
                 json_t **data, long long *retry_after_ms, agon_err *err) {
  if (data) *data = NULL;
  if (retry_after_ms) *retry_after_ms = -1;
  json_t *req = fields ? fields : json_object();
  long long id = s->next_id++;
  json_object_set_new(req, "type", json_string(type));
  json_object_set_new(req, "id", json_integer(id));
  s->want_id = id;
  json_decref(s->reply);
  s->reply = NULL;
  int rc = send_json(s, req, err);
  json_decref(req);
  if (rc) return rc;
  long long deadline = now_ms() + timeout_ms;
  while (!s->reply) {
    if (now_ms() >= deadline)
      return agon_err_set(err, AGON_ETIMEOUT, "no reply to %s", type);
    rc = read_some(s, left_ms(deadline), err);
    if (rc) return rc;
  }
  json_t *rep = s->reply;
  s->reply = NULL;
  s->want_id = -1;
  if (json_is_true(json_object_get(rep, "ok"))) {
    if (data) *data = json_incref(json_object_get(rep, "data"));
    rc = 0;
  } else {
    json_t *e = json_object_get(rep, "error");
    const char *code = json_string_value(json_object_get(e, "code"));
    const char *msg = json_string_value(json_object_get(e, "message"));
    int c = code ? agon_err_from_name(code) : 0;
    if (!c) c = AGON_EINTERNAL;
    json_t *ra = json_object_get(e, "retry_after_ms");
    if (retry_after_ms && json_is_integer(ra))
      *retry_after_ms = json_integer_value(ra);
    rc = agon_err_set(err, c, "%s", msg ? msg : (code ? code : "error"));
  }
  json_decref(rep);
  return rc;
}

int sess_open(sess *s, const char *host, int port, const sess_net *net,
              agon_err *err) {
  if (net && net->ca[0] && !net->tls) {
    memset(s, 0, sizeof *s);
    s->fd = -1;
    return agon_err_set(err, AGON_EINVAL, "--ca needs --tls");
  }
  int rc = sess_connect_net(s, host, port, net, SESS_TIMEOUT_MS, err);
  return rc ? rc : sess_hello(s, SESS_CLIENT_NAME, err);
}

int sess_hello(sess *s, const char *client, agon_err *err) {
  json_t *d = NULL;
  int rc = sess_request(s, "hello",
                        json_pack("{s:i, s:s}", "version", 1, "client",
                                  client),
                        SESS_TIMEOUT_MS, &d, NULL, err);
  if (rc) return rc;
  json_decref(s->hello);
  s->hello = d;
  return 0;
}

static int auth(sess *s, const char *type, const char *name,
                const char *password, char *token, size_t cap,
                agon_err *err) {
  json_t *d = NULL;
  int rc = sess_request(s, type,
                        json_pack("{s:s, s:s}", "name", name, "password",
                                  password),
                        SESS_TIMEOUT_MS * 3, &d, NULL, err);
  if (rc) return rc;
  const char *t = json_string_value(json_object_get(d, "token"));
  const char *n = json_string_value(json_object_get(d, "name"));
  snprintf(token, cap, "%s", t ? t : "");
  snprintf(s->name, sizeof s->name, "%s", n ? n : name);
  s->player_id = json_integer_value(json_object_get(d, "player_id"));
  json_decref(d);
  return t ? 0 : agon_err_set(err, AGON_EINTERNAL, "reply without token");
}

int sess_register(sess *s, const char *name, const char *password,
                  char *token, size_t cap, agon_err *err) {
  return auth(s, "register", name, password, token, cap, err);
}

int sess_login(sess *s, const char *name, const char *password, char *token,
               size_t cap, agon_err *err) {
  return auth(s, "login", name, password, token, cap, err);
}

int sess_resume(sess *s, const char *token, agon_err *err) {
  json_t *d = NULL;
  int rc = sess_request(s, "resume", json_pack("{s:s}", "token", token),
                        SESS_TIMEOUT_MS * 3, &d, NULL, err);
  if (rc) return rc;
  const char *n = json_string_value(json_object_get(d, "name"));
  snprintf(s->name, sizeof s->name, "%s", n ? n : "");
  s->player_id = json_integer_value(json_object_get(d, "player_id"));
  json_decref(d);
  return 0;
}

int sess_logout(sess *s, agon_err *err) {
  int rc = sess_request(s, "logout", NULL, SESS_TIMEOUT_MS, NULL, NULL, err);
  if (rc == 0) {
    s->name[0] = 0;
    s->player_id = 0;
  }
  return rc;
}

void sess_close(sess *s) {
  if (s->ssl) {
    SSL_shutdown(s->ssl);  /* best effort: one non-blocking close_notify */
    SSL_free(s->ssl);
  }
  SSL_CTX_free(s->ssl_ctx);
  s->ssl = NULL;
  s->ssl_ctx = NULL;
  if (s->fd >= 0) close(s->fd);
  s->fd = -1;
  free(s->buf);
  s->buf = NULL;
  json_decref(s->reply);
  json_decref(s->hello);
  s->reply = s->hello = NULL;
}

int sess_reconnect(sess *s, const char *host, int port, const char *token,
                   int within_ms, agon_err *err) {
  sess_event_cb cb = s->on_event;
  void *arg = s->ev_arg;
  sess_net net = s->net;
  long long deadline = now_ms() + within_ms;
  int backoff = 100, rc;
  sess_close(s);
  for (;;) {
    rc = sess_connect_net(s, host, port, &net, SESS_TIMEOUT_MS, err);
    if (rc == AGON_EFORBIDDEN) return rc;  /* TLS refused: final */
    if (rc == 0) {
      s->on_event = cb;
      s->ev_arg = arg;
      rc = sess_hello(s, SESS_CLIENT_NAME, err);
      if (rc == 0 && token && token[0]) rc = sess_resume(s, token, err);
      /* A refused token is final; anything else may be the server still
       * starting up. */
      if (rc == 0 || rc == AGON_EBADTOKEN) return rc;
      sess_close(s);
    }
    if (now_ms() + backoff > deadline) return rc;
    struct timespec ts = {backoff / 1000, (long)(backoff % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    backoff = backoff * 2 > 2000 ? 2000 : backoff * 2;
  }
}
