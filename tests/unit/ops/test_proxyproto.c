/* test_proxyproto - PROXY protocol v1/v2 parser: valid headers, strictness,
 * and the "need" contract (a reader asking for exactly *need bytes never
 * reads past the header). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "agon_err.h"
#include "limits_ops.h"
#include "proxyproto.h"
#include "test.h"

static const unsigned char SIG[12] = {0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d,
                                      0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a};

static long parse_str(const char *s, pp_info *o) {
  size_t need;
  return pp_parse((const unsigned char *)s, strlen(s), o, &need);
}

static const char *src4(const pp_info *o, char *buf, unsigned *port) {
  const struct sockaddr_in *a = (const struct sockaddr_in *)&o->src;
  *port = ntohs(a->sin_port);
  return inet_ntop(AF_INET, &a->sin_addr, buf, 64);
}

/* Feed buf to the parser the way ops.c reads: exactly *need bytes at a
 * time. Returns the header length, and checks no read went past it. */
static long incremental(const unsigned char *buf, size_t total, pp_info *o) {
  size_t have = 0, need = 0;
  long r = pp_parse(buf, 0, o, &need);
  for (int guard = 0; r == 0 && guard < 1000; guard++) {
    CHECK(need >= 1);
    if (have + need > total) return -100;
    have += need;
    r = pp_parse(buf, have, o, &need);
  }
  if (r > 0) CHECK_INT(have, r);  /* never read a byte of client data */
  return r;
}

static void test_v1(void) {
  pp_info o;
  char ip[64];
  unsigned port;
  const char *h = "PROXY TCP4 203.0.113.7 10.0.0.1 51234 7879\r\n";
  CHECK_INT(parse_str(h, &o), (long)strlen(h));
  CHECK_INT(o.version, 1);
  CHECK_INT(o.local, 0);
  CHECK_STR(src4(&o, ip, &port), "203.0.113.7");
  CHECK_INT(port, 51234);

  /* Client data after the header is not part of it. */
  char buf[200];
  snprintf(buf, sizeof buf, "%s{\"type\":\"hello\"}\n", h);
  CHECK_INT(parse_str(buf, &o), (long)strlen(h));
  CHECK_INT(incremental((const unsigned char *)buf, strlen(buf), &o), (long)strlen(h));

  const char *h6 = "PROXY TCP6 2001:db8::1 ::1 65535 0\r\n";
  CHECK_INT(parse_str(h6, &o), (long)strlen(h6));
  CHECK_INT(o.src.ss_family, AF_INET6);
  CHECK_INT(ntohs(((struct sockaddr_in6 *)&o.src)->sin6_port), 65535);

  CHECK_INT(parse_str("PROXY UNKNOWN\r\n", &o), 15);
  CHECK_INT(o.local, 1);
  CHECK_INT(parse_str("PROXY UNKNOWN ffff::1 ::1 1 2\r\n", &o), 31);
  CHECK_INT(o.local, 1);

  /* Incomplete: need more, never a verdict. */
  size_t need;
  CHECK_INT(pp_parse((const unsigned char *)"PROXY", 5, &o, &need), 0);
  CHECK_INT(need, 10);
  CHECK_INT(pp_parse((const unsigned char *)h, 20, &o, &need), 0);
  CHECK_INT(need, 1);

  /* Strictness. */
  static const char *const bad[] = {
      "proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n",
      "PROXY  TCP4 1.2.3.4 5.6.7.8 1 2\r\n",
      "PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 1 2 \r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 1 65536\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
      "PROXY TCP4 ::1 5.6.7.8 1 2\r\n",
      "PROXY TCP6 1.2.3.4 ::1 1 2\r\n",
      "PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n",
      "PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX",
      "PROXY UNKNOWNX\r\n",
      "GET / HTTP/1.0\r\n\r\n",
      "{\"type\":\"hello\"}\n",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK_MSG(parse_str(bad[i], &o) == AGON_EINVAL, "accepted: %s", bad[i]);

  /* No CRLF within 107 bytes. */
  char longh[200] = "PROXY UNKNOWN ";
  while (strlen(longh) < 150) strcat(longh, "x");
  CHECK_INT(parse_str(longh, &o), AGON_EINVAL);
  /* Exactly 107 with CRLF is fine. */
  memset(longh, 0, sizeof longh);
  strcpy(longh, "PROXY UNKNOWN ");
  while (strlen(longh) < PP_V1_MAX - 2) strcat(longh, "y");
  strcat(longh, "\r\n");
  CHECK_INT(parse_str(longh, &o), PP_V1_MAX);
}

static size_t v2(unsigned char *b, unsigned char vc, unsigned char fam,
                 const unsigned char *body, size_t blen) {
  memcpy(b, SIG, 12);
  b[12] = vc;
  b[13] = fam;
  b[14] = (unsigned char)(blen >> 8);
  b[15] = (unsigned char)blen;
  memcpy(b + 16, body, blen);
  return 16 + blen;
}

static void test_v2(void) {
  unsigned char b[1024], body[600];
  pp_info o;
  char ip[64];
  unsigned port;
  /* TCP4 203.0.113.9:4242 -> 127.0.0.1:7879 */
  const unsigned char a4[12] = {203, 0, 113, 9, 127, 0, 0, 1, 0x10, 0x92, 0x1e, 0xc7};
  size_t n = v2(b, 0x21, 0x11, a4, 12);
  memcpy(b + n, "{\"x\":1}\n", 8);
  CHECK_INT(pp_parse(b, n + 8, &o, NULL), 28);
  CHECK_INT(o.version, 2);
  CHECK_INT(o.local, 0);
  CHECK_STR(src4(&o, ip, &port), "203.0.113.9");
  CHECK_INT(port, 4242);
  CHECK_INT(incremental(b, n + 8, &o), 28);

  /* TCP4 with TLVs (HAProxy's send-proxy-v2-ssl and the like): skipped. */
  memcpy(body, a4, 12);
  memset(body + 12, 0xAB, 40);
  n = v2(b, 0x21, 0x11, body, 52);
  CHECK_INT(pp_parse(b, n, &o, NULL), 68);
  CHECK_STR(src4(&o, ip, &port), "203.0.113.9");

  /* TCP6 */
  memset(body, 0, 36);
  body[0] = 0x20; body[1] = 0x01; body[2] = 0x0d; body[3] = 0xb8; body[15] = 5;
  body[31] = 1;
  body[32] = 0x01; body[33] = 0x00;
  n = v2(b, 0x21, 0x21, body, 36);
  CHECK_INT(incremental(b, n, &o), 52);
  CHECK_INT(o.src.ss_family, AF_INET6);
  inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&o.src)->sin6_addr, ip, sizeof ip);
  CHECK_STR(ip, "2001:db8::5");
  CHECK_INT(ntohs(((struct sockaddr_in6 *)&o.src)->sin6_port), 256);

  /* LOCAL (health checks): the socket's own address is used. */
  n = v2(b, 0x20, 0x00, body, 0);
  CHECK_INT(pp_parse(b, n, &o, NULL), 16);
  CHECK_INT(o.local, 1);
  n = v2(b, 0x20, 0x11, a4, 12);
  CHECK_INT(pp_parse(b, n, &o, NULL), 28);
  CHECK_INT(o.local, 1);
  /* PROXY + UNSPEC: no address either. */
  n = v2(b, 0x21, 0x00, body, 0);
  CHECK_INT(pp_parse(b, n, &o, NULL), 16);
  CHECK_INT(o.local, 1);

  /* Refused: version 1 in the v2 format, unknown command, UDP, unix,
   * too short for the family, too long, broken signature. */
  n = v2(b, 0x11, 0x11, a4, 12);
  CHECK_INT(pp_parse(b, n, &o, NULL), AGON_EINVAL);
  n = v2(b, 0x22, 0x11, a4, 12);
  CHECK_INT(pp_parse(b, n, &o, NULL), AGON_EINVAL);
  n = v2(b, 0x21, 0x12, a4, 12);
  CHECK_INT(pp_parse(b, n, &o, NULL), AGON_EINVAL);
  n = v2(b, 0x21, 0x31, body, 216);
  CHECK_INT(pp_parse(b, n, &o, NULL), AGON_EINVAL);
  n = v2(b, 0x21, 0x11, a4, 8);
  CHECK_INT(pp_parse(b, n, &o, NULL), AGON_EINVAL);
  n = v2(b, 0x21, 0x21, a4, 12);
  CHECK_INT(pp_parse(b, n, &o, NULL), AGON_EINVAL);
  memset(body, 0, sizeof body);
  n = v2(b, 0x21, 0x11, body, PP_V2_MAX_LEN + 1);
  CHECK_INT(pp_parse(b, 16, &o, NULL), AGON_EINVAL);  /* at the length */
  n = v2(b, 0x21, 0x11, body, PP_V2_MAX_LEN);
  CHECK_INT(pp_parse(b, n, &o, NULL), 16 + PP_V2_MAX_LEN);
  b[5] = 0x0e;
  CHECK_INT(pp_parse(b, 6, &o, NULL), AGON_EINVAL);  /* early verdict */

  /* Incomplete v2: needs the rest of the fixed part, then the body. */
  size_t need;
  n = v2(b, 0x21, 0x11, a4, 12);
  CHECK_INT(pp_parse(b, 3, &o, &need), 0);
  CHECK_INT(need, 13);
  CHECK_INT(pp_parse(b, 16, &o, &need), 0);
  CHECK_INT(need, 12);
}

int main(void) {
  test_v1();
  test_v2();
  return test_summary();
}
