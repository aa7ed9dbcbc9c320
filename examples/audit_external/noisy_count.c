/* Release the number of rows of a CSV file plus Laplace noise: an external program to audit.
 *
 *     cc -O2 -o noisy_count noisy_count.c -lm
 *     ./noisy_count DATA SEED OUT EPSILON [FACTOR]
 *
 * writes {"count": n + Laplace(FACTOR / EPSILON)} to OUT, n being the rows of
 * DATA (a CSV file with a header line).  The count has sensitivity 1 under
 * add-remove, so FACTOR = 1 (the default) is EPSILON-DP; FACTOR = 0.5 (a noise
 * scale of 1/(2 epsilon)) is only 2 EPSILON-DP; FACTOR = 0 releases the exact
 * count.  The noise comes from SplitMix64 seeded with SEED (an unsigned 64-bit
 * integer), so a run is a function of the data and the seed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;

static uint64_t splitmix64(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A double uniform on [0, 1) with 53 random bits. */
static double uniform(void) { return (double)(splitmix64() >> 11) * 0x1.0p-53; }

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: noisy_count DATA SEED OUT EPSILON [FACTOR]\n");
        return 2;
    }
    state = strtoull(argv[2], NULL, 10);
    double epsilon = strtod(argv[4], NULL);
    double factor = argc == 6 ? strtod(argv[5], NULL) : 1.0;
    FILE *in = fopen(argv[1], "r");
    if (!in) { perror(argv[1]); return 1; }
    long lines = 0;
    int c, blank = 1;
    while ((c = fgetc(in)) != EOF) {
        if (c == '\n') { lines += !blank; blank = 1; }
        else if (c != '\r' && c != ' ') blank = 0;
    }
    lines += !blank;
    fclose(in);
    double noise = 0.0;
    if (factor > 0) {
        double u;
        do { u = uniform() - 0.5; } while (u == -0.5);
        noise = -(factor / epsilon) * (u < 0 ? -1.0 : 1.0) * log(1.0 - 2.0 * fabs(u));
    }
    FILE *out = fopen(argv[3], "w");
    if (!out) { perror(argv[3]); return 1; }
    fprintf(out, "{\"count\": %.17g}\n", (double)(lines - 1) + noise);
    return fclose(out) == 0 ? 0 : 1;
}
