/* A noisy class histogram (refdp's noisy-majority): another implementation to cross-check with refdp.
 *
 *     cc -O2 -o leaf_counts leaf_counts.c -lm
 *     ./leaf_counts DATA SCHEMA SEED OUT EPSILON [scale-times-epsilon]
 *
 * DATA is a CSV file with a header line and the class in the last column;
 * SCHEMA is the public schema (`schema.json`), read for its list of classes
 * so that every class gets a count, zeros included.  A count has sensitivity
 * 1 under add-remove, so each class gets discrete Laplace noise of scale
 * 1/EPSILON, P[z] ~ exp(-|z| EPSILON), and the program writes
 *
 *     {"counts": {"CLASS": n, ...}}
 *
 * to OUT.  With the argument `scale-times-epsilon` it plants a classic
 * error: a noise scale of sensitivity * EPSILON instead of sensitivity /
 * EPSILON.  Randomness: SplitMix64 seeded with SEED; the discrete Laplace is
 * the difference of two geometric variables, drawn by inversion in floating
 * point (close to, not exactly, the law: the statistical check cannot see
 * the difference, an exact sampler would need integer arithmetic).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CLASSES 64
#define MAX_TEXT 65536

static uint64_t state;

static uint64_t splitmix64(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A double uniform on (0, 1] with 53 random bits. */
static double uniform_positive(void) { return (double)((splitmix64() >> 11) + 1) * 0x1.0p-53; }

/* Geometric on {0, 1, ...} with P[g] = (1 - r) r^g, by inversion. */
static long geometric(double r) { return (long)floor(log(uniform_positive()) / log(r)); }

static long discrete_laplace(double scale) {
    double r = exp(-1.0 / scale);
    return geometric(r) - geometric(r);
}

static int n_classes;
static char *classes[MAX_CLASSES];

/* The strings of the "classes" array of the schema (no escapes in class names). */
static void read_classes(const char *path) {
    static char text[MAX_TEXT];
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    char *p = strstr(text, "\"classes\"");
    if (!p || !(p = strchr(p, '['))) { fprintf(stderr, "no classes in %s\n", path); exit(1); }
    for (p++; *p && *p != ']'; p++) {
        if (*p != '"') continue;
        char *end = strchr(p + 1, '"');
        if (!end || n_classes == MAX_CLASSES) { fprintf(stderr, "bad classes in %s\n", path); exit(1); }
        classes[n_classes++] = strndup(p + 1, (size_t)(end - p - 1));
        p = end;
    }
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: leaf_counts DATA SCHEMA SEED OUT EPSILON [scale-times-epsilon]\n");
        return 2;
    }
    read_classes(argv[2]);
    state = strtoull(argv[3], NULL, 10);
    double epsilon = strtod(argv[5], NULL);
    double scale = argc == 7 && strcmp(argv[6], "scale-times-epsilon") == 0 ? epsilon : 1.0 / epsilon;
    FILE *in = fopen(argv[1], "r");
    if (!in) { perror(argv[1]); return 1; }
    static char line[MAX_TEXT];
    long count[MAX_CLASSES] = {0};
    int header = 1;
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (header || line[0] == '\0') { header = 0; continue; }
        char *label = strrchr(line, ',');
        label = label ? label + 1 : line;
        int c = 0;
        while (c < n_classes && strcmp(classes[c], label) != 0) c++;
        if (c == n_classes) { fprintf(stderr, "class %s is not in the schema\n", label); return 1; }
        count[c]++;
    }
    fclose(in);
    FILE *out = fopen(argv[4], "w");
    if (!out) { perror(argv[4]); return 1; }
    fprintf(out, "{\"counts\": {");
    for (int c = 0; c < n_classes; c++)
        fprintf(out, "%s\"%s\": %ld", c ? ", " : "", classes[c], count[c] + discrete_laplace(scale));
    fprintf(out, "}}\n");
    return fclose(out) == 0 ? 0 : 1;
}
