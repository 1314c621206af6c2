/* replay.c - runs a libFuzzer target over stored inputs as an ordinary test
 * (like SQLite's fuzzcheck): every file in every directory given. A target
 * aborts on a violated property, so a failing input fails the test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX_INPUT (1 << 20) /* corpus files are small; cap reads */

int main(int argc, char **argv) {
  static uint8_t buf[REPLAY_MAX_INPUT];
  unsigned files = 0;
  for (int i = 1; i < argc; i++) {
    DIR *d = opendir(argv[i]);
    if (d == NULL) {
      fprintf(stderr, "replay: cannot open %s\n", argv[i]);
      return 1;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      FILE *f = fopen(path, "rb");
      if (f == NULL) continue;
      size_t n = fread(buf, 1, sizeof buf, f);
      fclose(f);
      /* Hand the target an exact-size heap copy so ASan sees overreads. */
      uint8_t *copy = malloc(n ? n : 1);
      if (copy == NULL) return 1;
      memcpy(copy, buf, n);
      LLVMFuzzerTestOneInput(copy, n);
      free(copy);
      files++;
    }
    closedir(d);
  }
  printf("%u passed, 0 failed\n", files);
  return files ? 0 : 1;
}
