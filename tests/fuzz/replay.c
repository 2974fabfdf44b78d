// Runs a fuzz target's LLVMFuzzerTestOneInput on files and on every file of directories, once
// each: how the kept regression inputs and the seed corpus are replayed by ctest in every build,
// with or without libFuzzer. A crash or abort in the target fails the test.
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int run_file(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t* buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t* more = realloc(buf, cap *= 2);
            if (!more) free(buf);
            buf = more;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "replay: out of memory on %s\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char** argv) {
    int files = 0, errors = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            errors++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            errors += run_file(argv[i]);
            files++;
            continue;
        }
        DIR* d = opendir(argv[i]);
        for (struct dirent* e; d && (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            errors += run_file(path);
            files++;
        }
        if (d) closedir(d);
    }
    printf("replayed %d inputs\n%d passed, %d failed\n", files, files - errors, errors);
    return errors ? 1 : 0;
}
