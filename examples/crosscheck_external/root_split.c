/* The root split of DiffP-ID3 with the max operator: another implementation to cross-check with refdp.
 *
 *     cc -O2 -o root_split root_split.c -lm
 *     ./root_split DATA SEED OUT EPSILON DEPTH [no-half]
 *
 * DATA is a CSV file with a header line, categorical attributes and the class
 * in the last column (what `crosscheck-cmd` writes; no quoted fields).  The
 * program scores every attribute with the max operator, q(A) = sum over the
 * values v of A of max over the classes c of n(v, c) (sensitivity 1), and
 * draws the root's attribute by the exponential mechanism with the per-query
 * budget of DiffP-ID3, eps = EPSILON / (2 (DEPTH + 1)):
 *
 *     P[A] ~ exp(eps q(A) / 2)
 *
 * It writes {"attribute": "NAME"} to OUT.  With the argument `no-half` it
 * plants a classic error: exp(eps q(A)), the exponential mechanism without
 * its 1/2.  Randomness: SplitMix64 seeded with SEED, so a run is a function
 * of the data and the seed.  The utilities are computed here from the CSV,
 * not taken from refdp: this is the other implementation.
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
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: root_split DATA SEED OUT EPSILON DEPTH [no-half]\n");
        return 2;
    }
    state = strtoull(argv[2], NULL, 10);
    double epsilon = strtod(argv[4], NULL);
    int depth = atoi(argv[5]);
    int no_half = argc == 7 && strcmp(argv[6], "no-half") == 0;
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
    double eps = epsilon / (2.0 * (depth + 1));
    double coefficient = no_half ? eps : eps / 2.0;  /* the planted error drops the 1/2 */
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
