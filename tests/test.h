/* test.h - tiny assertion helpers that print both sides (like libuv's
 * test/task.h). A test program runs its checks, then returns
 * test_summary(): "N passed, N failed" and exit status 1 on any failure. */
#ifndef AGON_TEST_H
#define AGON_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned test_passed_, test_failed_;

#define TEST_FAIL_(...)                                   \
  do {                                                    \
    test_failed_++;                                       \
    fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                         \
    fputc('\n', stderr);                                  \
  } while (0)

#define CHECK(cond)                                   \
  do {                                                \
    if (cond) test_passed_++;                         \
    else TEST_FAIL_("%s", #cond);                     \
  } while (0)

#define CHECK_MSG(cond, ...)                          \
  do {                                                \
    if (cond) test_passed_++;                         \
    else TEST_FAIL_(__VA_ARGS__);                     \
  } while (0)

#define CHECK_INT(a, b)                                                     \
  do {                                                                      \
    long long a_ = (long long)(a), b_ = (long long)(b);                     \
    if (a_ == b_) test_passed_++;                                           \
    else TEST_FAIL_("%s == %s: %lld != %lld", #a, #b, a_, b_);              \
  } while (0)

#define CHECK_U64(a, b)                                                     \
  do {                                                                      \
    uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                        \
    if (a_ == b_) test_passed_++;                                           \
    else TEST_FAIL_("%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, a_, b_);   \
  } while (0)

#define CHECK_STR(a, b)                                                     \
  do {                                                                      \
    const char *a_ = (a), *b_ = (b);                                        \
    if (a_ && b_ && strcmp(a_, b_) == 0) test_passed_++;                    \
    else TEST_FAIL_("%s == %s: \"%s\" != \"%s\"", #a, #b,                   \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)");                \
  } while (0)

static inline int test_summary(void) {
  printf("%u passed, %u failed\n", test_passed_, test_failed_);
  return test_failed_ ? 1 : 0;
}

#endif
