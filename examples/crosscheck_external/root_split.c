/* The root split of DiffP-ID3 with the max operator: another implementation to cross-check with refdp.
 *
 *     cc -O2 -o root_split root_split.c -lm
 *     ./root_split DATA SEED OUT EPSILON DEPTH RELATION [no-half | keep-half]
 *
 * DATA is a CSV file with a header line, categorical attributes and the class
 * in the last column (what `crosscheck-cmd` writes; no quoted fields).  The
 * program scores every attribute with the max operator, q(A) = sum over the
 * values v of A of max over the classes c of n(v, c) (sensitivity 1), and
 * draws the root's attribute by the exponential mechanism with the per-query
 * budget of DiffP-ID3 without a noisy size (refdp's size_share=0): under
 * RELATION add-remove eps = EPSILON / (2 (DEPTH + 1)), under substitute
 * eps = EPSILON / (4 DEPTH + 2).  Under add-remove the max operator of every
 * attribute moves one way (up by 0 or 1) when a record joins the data, so the
 * mechanism needs no factor 2; under substitute it does:
 *
 *     add-remove: P[A] ~ exp(eps q(A))        substitute: P[A] ~ exp(eps q(A) / 2)
 *
 * It writes {"attribute": "NAME"} to OUT.  Planted errors: `no-half` drops the
 * 1/2 under substitute too, where the utilities are not monotone (not private
 * at eps); `keep-half` keeps it under add-remove too (private, but not refdp's
 * mechanism: the paper's calibration).  Randomness: SplitMix64 seeded with
 * SEED, so a run is a function of the data and the seed.  The utilities are
 * computed here from the CSV, not taken from refdp: this is the other
 * implementation.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLUMNS 64
#define MAX_VALUES 64
#define MAX_CLASSES 16
#define MAX_LINE 65536

static uint64_t state;

static uint64_t splitmix64(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A double uniform on [0, 1) with 53 random bits. */
static double uniform(void) { return (double)(splitmix64() >> 11) * 0x1.0p-53; }

/* The distinct strings seen in one column, in order of appearance. */
typedef struct {
    int n;
    char *names[MAX_VALUES];
} Domain;

static int intern(Domain *d, const char *s) {
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->names[i], s) == 0) return i;
    if (d->n == MAX_VALUES) { fprintf(stderr, "more than %d values in a column\n", MAX_VALUES); exit(1); }
    d->names[d->n] = strdup(s);
    return d->n++;
}

/* Split a CSV line in place; returns the number of fields. */
static int split(char *line, char **fields) {
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line;; p++) {
        if (n == MAX_COLUMNS) { fprintf(stderr, "more than %d columns\n", MAX_COLUMNS); exit(1); }
        fields[n++] = p;
        p += strcspn(p, ",");
        if (*p == '\0') return n;
        *p = '\0';
    }
}

static long counts[MAX_COLUMNS][MAX_VALUES][MAX_CLASSES];

int main(int argc, char **argv) {
    const char *usage = "usage: root_split DATA SEED OUT EPSILON DEPTH add-remove|substitute [no-half|keep-half]\n";
    if (argc != 7 && argc != 8) { fputs(usage, stderr); return 2; }
    state = strtoull(argv[2], NULL, 10);
    double epsilon = strtod(argv[4], NULL);
    int depth = atoi(argv[5]);
    int substitute = strcmp(argv[6], "substitute") == 0;
    if (!substitute && strcmp(argv[6], "add-remove") != 0) { fputs(usage, stderr); return 2; }
    const char *fault = argc == 8 ? argv[7] : "";
    if (argc == 8 && strcmp(fault, "no-half") != 0 && strcmp(fault, "keep-half") != 0) { fputs(usage, stderr); return 2; }
    FILE *in = fopen(argv[1], "r");
    if (!in) { perror(argv[1]); return 1; }
    static char line[MAX_LINE], header[MAX_LINE];
    char *names[MAX_COLUMNS], *fields[MAX_COLUMNS];
    if (!fgets(header, sizeof header, in)) { fprintf(stderr, "empty data\n"); return 1; }
    int columns = split(header, names), attributes = columns - 1;
    static Domain values[MAX_COLUMNS];
    Domain classes = {0};
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '\n' || line[0] == '\r') continue;
        if (split(line, fields) != columns) { fprintf(stderr, "a row without %d fields\n", columns); return 1; }
        int c = intern(&classes, fields[attributes]);
        if (c >= MAX_CLASSES) { fprintf(stderr, "too many classes\n"); return 1; }
        for (int a = 0; a < attributes; a++) counts[a][intern(&values[a], fields[a])][c]++;
    }
    fclose(in);

    double q[MAX_COLUMNS], top = -INFINITY;
    for (int a = 0; a < attributes; a++) {
        q[a] = 0;
        for (int v = 0; v < values[a].n; v++) {
            long best = 0;
            for (int c = 0; c < classes.n; c++)
                if (counts[a][v][c] > best) best = counts[a][v][c];
            q[a] += (double)best;
        }
        if (q[a] > top) top = q[a];
    }
    double eps = substitute ? epsilon / (4.0 * depth + 2.0) : epsilon / (2.0 * (depth + 1));
    int half = substitute;  /* monotone utilities under add-remove: no 1/2 */
    if (strcmp(fault, "no-half") == 0) half = 0;
    if (strcmp(fault, "keep-half") == 0) half = 1;
    double coefficient = half ? eps / 2.0 : eps;
    double weight[MAX_COLUMNS], total = 0;
    for (int a = 0; a < attributes; a++) total += weight[a] = exp(coefficient * (q[a] - top));
    double u = uniform() * total;
    int chosen = attributes - 1;
    for (int a = 0; a < attributes; a++) {
        if (u < weight[a]) { chosen = a; break; }
        u -= weight[a];
    }
    FILE *out = fopen(argv[3], "w");
    if (!out) { perror(argv[3]); return 1; }
    fprintf(out, "{\"attribute\": \"%s\"}\n", names[chosen]);
    return fclose(out) == 0 ? 0 : 1;
}
