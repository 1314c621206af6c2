/* proxyproto.c - PROXY protocol v1/v2 parser (see proxyproto.h). */
#include "proxyproto.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "agon_err.h"
#include "limits_ops.h"

static const unsigned char v2_sig[12] = {0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d,
                                         0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a};
static const char v1_sig[6] = "PROXY ";

#define V1_MIN 15 /* "PROXY UNKNOWN\r\n" */
#define V2_FIXED 16

/* Decimal port, 0..65535, no sign, no leading zero. */
static int v1_port(const char *s, size_t n, unsigned short *out) {
  if (n == 0 || n > 5 || (n > 1 && s[0] == '0')) return -1;
  unsigned v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (unsigned)(s[i] - '0');
  }
  if (v > 65535) return -1;
  *out = (unsigned short)v;
  return 0;
}

static int v1_addr(const char *s, size_t n, int af,
                   struct sockaddr_storage *ss) {
  char tmp[INET6_ADDRSTRLEN + 1];
  if (n == 0 || n >= sizeof tmp) return -1;
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  memset(ss, 0, sizeof *ss);
  if (af == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    a->sin_family = AF_INET;
    return inet_pton(AF_INET, tmp, &a->sin_addr) == 1 ? 0 : -1;
  }
  struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
  a->sin6_family = AF_INET6;
  return inet_pton(AF_INET6, tmp, &a->sin6_addr) == 1 ? 0 : -1;
}

static void set_port(struct sockaddr_storage *ss, unsigned short port) {
  if (ss->ss_family == AF_INET)
    ((struct sockaddr_in *)ss)->sin_port = htons(port);
  else
    ((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* line[0..n) is the whole v1 header without its CRLF. */
static int v1_fields(const char *line, size_t n, pp_info *o) {
  const char *p = line + 6, *end = line + n;
  if ((size_t)(end - p) >= 7 && memcmp(p, "UNKNOWN", 7) == 0 &&
      (p + 7 == end || p[7] == ' ')) {
    /* The rest may be anything (the sender could not tell): ignored. */
    o->local = 1;
    return 0;
  }
  int af;
  if ((size_t)(end - p) >= 5 && memcmp(p, "TCP4 ", 5) == 0) af = AF_INET;
  else if ((size_t)(end - p) >= 5 && memcmp(p, "TCP6 ", 5) == 0) af = AF_INET6;
  else return -1;
  p += 5;
  /* Four fields separated by single spaces: src dst sport dport. */
  const char *f[4];
  size_t fl[4];
  for (int i = 0; i < 4; i++) {
    const char *sp = memchr(p, ' ', (size_t)(end - p));
    const char *fe = i < 3 ? sp : end;
    if (fe == NULL || (i == 3 && sp != NULL) || fe == p) return -1;
    f[i] = p;
    fl[i] = (size_t)(fe - p);
    p = fe + 1;
  }
  unsigned short sport, dport;
  if (v1_addr(f[0], fl[0], af, &o->src) || v1_addr(f[1], fl[1], af, &o->dst) ||
      v1_port(f[2], fl[2], &sport) || v1_port(f[3], fl[3], &dport))
    return -1;
  set_port(&o->src, sport);
  set_port(&o->dst, dport);
  o->local = 0;
  return 0;
}

static long parse_v1(const unsigned char *buf, size_t len, pp_info *o,
                     size_t *need) {
  size_t cmp = len < sizeof v1_sig ? len : sizeof v1_sig;
  if (memcmp(buf, v1_sig, cmp) != 0) return AGON_EINVAL;
  if (len < V1_MIN) {
    *need = V1_MIN - len;
    return 0;
  }
  size_t lim = len < PP_V1_MAX ? len : PP_V1_MAX;
  for (size_t i = sizeof v1_sig; i < lim; i++) {
    if (buf[i] == '\n') return AGON_EINVAL;  /* LF without CR */
    if (buf[i] != '\r') {
      /* Printable ASCII only (the UNKNOWN tail included). */
      if (buf[i] < 0x20 || buf[i] > 0x7e) return AGON_EINVAL;
      continue;
    }
    if (i + 1 >= len) {
      *need = 1;
      return 0;
    }
    if (buf[i + 1] != '\n') return AGON_EINVAL;
    if (v1_fields((const char *)buf, i, o) != 0) return AGON_EINVAL;
    o->version = 1;
    o->len = i + 2;
    return (long)o->len;
  }
  if (len >= PP_V1_MAX) return AGON_EINVAL;
  *need = 1;
  return 0;
}

static long parse_v2(const unsigned char *buf, size_t len, pp_info *o,
                     size_t *need) {
  size_t cmp = len < sizeof v2_sig ? len : sizeof v2_sig;
  if (memcmp(buf, v2_sig, cmp) != 0) return AGON_EINVAL;
  if (len > 12 && (buf[12] & 0xf0) != 0x20) return AGON_EINVAL;
  if (len > 12 && (buf[12] & 0x0f) > 1) return AGON_EINVAL;
  if (len > 13 && buf[13] != 0x00 && buf[13] != 0x11 && buf[13] != 0x21)
    return AGON_EINVAL;
  if (len < V2_FIXED) {
    *need = V2_FIXED - len;
    return 0;
  }
  size_t body = ((size_t)buf[14] << 8) | buf[15];
  if (body > PP_V2_MAX_LEN) return AGON_EINVAL;
  int local = (buf[12] & 0x0f) == 0;
  unsigned char fam = buf[13];
  size_t alen = fam == 0x11 ? 12 : fam == 0x21 ? 36 : 0;
  /* The addresses must fit in the announced length (LOCAL too: a sender
   * announcing TCP4 must carry it, even if we then ignore it). */
  if (body < alen) return AGON_EINVAL;
  if (len < V2_FIXED + body) {
    *need = V2_FIXED + body - len;
    return 0;
  }
  const unsigned char *a = buf + V2_FIXED;
  memset(&o->src, 0, sizeof o->src);
  memset(&o->dst, 0, sizeof o->dst);
  o->local = local || fam == 0x00;
  if (fam == 0x11) {
    struct sockaddr_in *s = (struct sockaddr_in *)&o->src;
    struct sockaddr_in *d = (struct sockaddr_in *)&o->dst;
    s->sin_family = d->sin_family = AF_INET;
    memcpy(&s->sin_addr, a, 4);
    memcpy(&d->sin_addr, a + 4, 4);
    memcpy(&s->sin_port, a + 8, 2); /* both already in network order */
    memcpy(&d->sin_port, a + 10, 2);
  } else if (fam == 0x21) {
    struct sockaddr_in6 *s = (struct sockaddr_in6 *)&o->src;
    struct sockaddr_in6 *d = (struct sockaddr_in6 *)&o->dst;
    s->sin6_family = d->sin6_family = AF_INET6;
    memcpy(&s->sin6_addr, a, 16);
    memcpy(&d->sin6_addr, a + 16, 16);
    memcpy(&s->sin6_port, a + 32, 2);
    memcpy(&d->sin6_port, a + 34, 2);
  }
  o->version = 2;
  o->len = V2_FIXED + body;
  return (long)o->len;
}

long pp_parse(const unsigned char *buf, size_t len, pp_info *out,
              size_t *need) {
  pp_info scratch;
  size_t need_scratch;
  if (out == NULL) out = &scratch;
  if (need == NULL) need = &need_scratch;
  memset(out, 0, sizeof *out);
  *need = 0;
  if (len == 0) {
    *need = V1_MIN; /* both versions are at least that long */
    return 0;
  }
  if (buf[0] == 'P') return parse_v1(buf, len, out, need);
  if (buf[0] == 0x0d) return parse_v2(buf, len, out, need);
  return AGON_EINVAL;
}
