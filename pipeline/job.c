/* pipeline/job.c — job files: parsing with libinih (a line reader that counts lines and notices
 * section headers, so that every message names file:line and empty sections such as
 * [transpose] count), validation of the stage chain, output name templates, and the expansion
 * of inputs (file globs x dataset patterns) into entries. */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <hdf5.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/internal.h"
#include "pipeline/job.h"

static const char *stage_names[GP_JS_N] = {"read", "cast", "scale", "affine", "standardize", "transpose",
                                            "reduce", "stats", "write"};
const char *gp_jstage_name(gp_jstage_kind k) { return k < GP_JS_N ? stage_names[k] : "?"; }

#define MAX_LINE (1 << 20)   /* longest accepted line (inline coefficient vectors) */
#define MAX_STAGES 64

/* ---- parser state ------------------------------------------------------------------------- */
enum { SEC_NONE = -1, SEC_JOB = GP_JS_N };
typedef struct {
    const char *name;         /* file name for messages */
    const char *text;
    size_t len, pos;
    int line;                 /* line of the text most recently handed to inih */
    int nl_done;              /* newlines handed out so far */
    int sec;                  /* SEC_NONE, SEC_JOB or a gp_jstage_kind */
    int sec_line;
    int njob;
    gp_job *job;
    char *err;
    size_t errlen;
    int failed;
    char seen[32][32];        /* keys seen in the current section (duplicates are errors) */
    int nseen;
} pctx;

static int perr(pctx *c, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int perr(pctx *c, int line, const char *fmt, ...)
{
    if (c->failed) return 0;
    c->failed = 1;
    int n = snprintf(c->err, c->errlen, "%s:%d: ", c->name, line);
    if (n < 0 || (size_t)n >= c->errlen) return 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return 0;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* A path of the job, resolved against the job file's directory when relative. */
static char *resolve(const gp_job *job, const char *p)
{
    if (p[0] == '/' || !job->dir[0] || strcmp(job->dir, ".") == 0) return xstrdup(p);
    size_t n = strlen(job->dir) + strlen(p) + 2;
    char *r = malloc(n);
    if (r) snprintf(r, n, "%s/%s", job->dir, p);
    return r;
}

static int section_kind(const char *s)
{
    if (strcmp(s, "job") == 0) return SEC_JOB;
    for (int k = 0; k < GP_JS_N; k++)
        if (strcmp(s, stage_names[k]) == 0) return k;
    return -2;
}

/* Called for each section header line, before inih parses it. */
static int on_section(pctx *c, const char *hdr, size_t n)
{
    /* hdr points after '['; the name ends at ']' (inih reports a header without one) */
    const char *end = memchr(hdr, ']', n);
    if (!end) return 1;
    char name[64];
    while (hdr < end && isspace((unsigned char)*hdr)) hdr++;
    size_t len = (size_t)(end - hdr);
    while (len && isspace((unsigned char)hdr[len - 1])) len--;
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, hdr, len);
    name[len] = 0;
    int k = section_kind(name);
    c->nseen = 0;
    c->sec_line = c->line;
    if (k == -2)
        return perr(c, c->line, "unknown section [%s] (expected job, read, cast, scale, affine, standardize, "
                    "transpose, reduce, stats or write)", name);
    c->sec = k;
    gp_job *j = c->job;
    if (k == SEC_JOB) {
        if (c->njob++) return perr(c, c->line, "a second [job] section (one per file)");
        return 1;
    }
    if (j->nstages >= MAX_STAGES) return perr(c, c->line, "too many stages (at most %d)", MAX_STAGES);
    if (k == GP_JS_READ && j->nstages) return perr(c, c->line, "[read] must be the first stage and appear once");
    if (k != GP_JS_READ && !j->nstages) return perr(c, c->line, "[%s] before [read]: the chain starts with [read]", name);
    gp_jstage *s = &j->stages[j->nstages++];
    memset(s, 0, sizeof *s);
    s->kind = (gp_jstage_kind)k;
    s->line = c->line;
    s->axis = GP_AXIS_ALL;
    return 1;
}

/* ini_reader: one line at a time, counting lines and noticing section headers. */
static char *reader(char *str, int num, void *stream)
{
    pctx *c = stream;
    if (c->failed || c->pos >= c->len || num < 2) return NULL;
    c->line = c->nl_done + 1;
    const char *p = c->text + c->pos;
    size_t rest = c->len - c->pos;
    const char *nl = memchr(p, '\n', rest);
    size_t linelen = nl ? (size_t)(nl - p) + 1 : rest;
    if (memchr(p, '\0', linelen)) {
        perr(c, c->line, "NUL byte in the job file");
        return NULL;
    }
    /* a fresh line (not the continuation of a long one that inih is growing its buffer for) */
    if (c->pos == 0 || c->text[c->pos - 1] == '\n') {
        if (linelen > MAX_LINE) {
            perr(c, c->line, "line longer than %d bytes", MAX_LINE);
            return NULL;
        }
        const char *q = p, *e = p + linelen;
        if (c->pos == 0 && linelen >= 3 && !memcmp(q, "\xEF\xBB\xBF", 3)) q += 3;
        while (q < e && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
        if (q < e && *q == '[' && !on_section(c, q + 1, (size_t)(e - q - 1))) return NULL;
    }
    size_t n = linelen < (size_t)num - 1 ? linelen : (size_t)num - 1;
    memcpy(str, p, n);
    str[n] = 0;
    c->pos += n;
    if (n && str[n - 1] == '\n') c->nl_done++;
    return str;
}

/* ---- values --------------------------------------------------------------------------------- */
static int parse_bool(const char *v, int *out)
{
    static const char *t[] = {"yes", "true", "on", "1"}, *f[] = {"no", "false", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, t[i])) { *out = 1; return 0; }
        if (!strcasecmp(v, f[i])) { *out = 0; return 0; }
    }
    return -1;
}

static int parse_double(const char *s, double *d)
{
    char *end;
    errno = 0;
    *d = strtod(s, &end);
    if (end == s || errno == ERANGE) return -1;
    while (isspace((unsigned char)*end)) end++;
    return *end || !isfinite(*d) ? -1 : 0;
}

/* scalar | [v, v, ...] | FILE:/DATASET */
static int parse_coef(pctx *c, const char *key, const char *v, gp_coef *co)
{
    co->line = c->line;
    if (co->kind != GP_COEF_NONE) return perr(c, c->line, "duplicate key '%s'", key);
    if (!*v) return perr(c, c->line, "%s: empty value (a number, [v1, v2, ...] or FILE:/DATASET)", key);
    if (v[0] == '[') {
        const char *end = strrchr(v, ']');
        if (!end) return perr(c, c->line, "%s: inline vector without a closing ']'", key);
        for (const char *t = end + 1; *t; t++)
            if (!isspace((unsigned char)*t)) return perr(c, c->line, "%s: text after the closing ']'", key);
        size_t cap = 16, n = 0;
        double *vec = malloc(cap * sizeof *vec);
        const char *p = v + 1;
        while (vec) {
            while (p < end && (isspace((unsigned char)*p) || *p == ',')) p++;
            if (p >= end) break;
            char tok[128];
            size_t tl = 0;
            while (p < end && !isspace((unsigned char)*p) && *p != ',' && tl < sizeof tok - 1) tok[tl++] = *p++;
            tok[tl] = 0;
            double d;
            if (parse_double(tok, &d)) {
                free(vec);
                return perr(c, c->line, "%s: '%s' is not a finite number (element %zu of the vector)", key, tok, n);
            }
            if (n == cap) {
                double *nv = realloc(vec, 2 * cap * sizeof *vec);
                if (!nv) { free(vec); vec = NULL; break; }
                vec = nv;
                cap *= 2;
            }
            vec[n++] = d;
        }
        if (!vec) return perr(c, c->line, "%s: out of memory", key);
        if (!n) { free(vec); return perr(c, c->line, "%s: empty vector", key); }
        co->kind = GP_COEF_INLINE;
        co->vec = vec;
        co->n = n;
        return 1;
    }
    double d;
    if (!parse_double(v, &d)) {
        co->kind = GP_COEF_SCALAR;
        co->scalar = d;
        return 1;
    }
    const char *colon = strstr(v, ":/");
    if (!colon || colon == v || !colon[2])
        return perr(c, c->line, "%s: '%s' is not a finite number, [v1, v2, ...] or FILE:/DATASET", key, v);
    const char *last;
    while ((last = strstr(colon + 1, ":/"))) colon = last;   /* the last ":/" splits */
    char *file = malloc((size_t)(colon - v) + 1);
    if (!file) return perr(c, c->line, "out of memory");
    memcpy(file, v, (size_t)(colon - v));
    file[colon - v] = 0;
    co->kind = GP_COEF_DATASET;
    co->file = resolve(c->job, file);
    co->dataset = xstrdup(colon + 1);
    free(file);
    return 1;
}

/* ---- templates ----------------------------------------------------------------------------- */
static const char *tnames[] = {"stem", "name", "dir", "dataset", "dsname", "dsbase", "job", "index"};

int gp_job_template_check(const char *t, char *why, size_t n)
{
    for (const char *p = t; *p; p++) {
        if (p[0] == '{' && p[1] == '{') { p++; continue; }
        if (p[0] == '}' && p[1] == '}') { p++; continue; }
        if (*p == '}') { snprintf(why, n, "unmatched '}' (write }} for a brace)"); return -1; }
        if (*p != '{') continue;
        const char *e = strchr(p, '}');
        if (!e) { snprintf(why, n, "unclosed '{' (write {{ for a brace)"); return -1; }
        size_t len = (size_t)(e - p - 1);
        int ok = 0;
        for (size_t i = 0; i < sizeof tnames / sizeof tnames[0]; i++)
            if (strlen(tnames[i]) == len && !strncmp(p + 1, tnames[i], len)) ok = 1;
        if (!ok) {
            snprintf(why, n, "unknown placeholder {%.*s} (known: {stem} {name} {dir} {dataset} {dsname} {dsbase} "
                     "{job} {index})", (int)(len > 40 ? 40 : len), p + 1);
            return -1;
        }
        p = e;
    }
    return 0;
}

int gp_job_template_expand(const char *t, const char *file, const char *dataset, const char *job, size_t index,
                           char *out, size_t n)
{
    size_t o = 0;
    char val[PATH_MAX + 64];
    for (const char *p = t; *p; p++) {
        const char *add = NULL;
        char ch[2] = {*p, 0};
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) { add = ch; p++; }
        else if (*p == '{') {
            const char *e = strchr(p, '}');
            if (!e) return -1;
            size_t len = (size_t)(e - p - 1);
            const char *ds = dataset && dataset[0] ? dataset : "/data";
#define IS(s) (len == strlen(s) && !strncmp(p + 1, s, len))
            if (IS("stem")) gp__path_stem(file, val, sizeof val);
            else if (IS("name")) gp__path_base(file, val, sizeof val);
            else if (IS("dir")) gp__path_dir(file, val, sizeof val);
            else if (IS("dataset")) snprintf(val, sizeof val, "%s", ds);
            else if (IS("dsname")) {
                const char *q = ds;
                while (*q == '/') q++;
                snprintf(val, sizeof val, "%s", q);
                for (char *r = val; *r; r++) if (*r == '/') *r = '_';
            } else if (IS("dsbase")) {
                const char *q = strrchr(ds, '/');
                snprintf(val, sizeof val, "%s", q ? q + 1 : ds);
            } else if (IS("job")) snprintf(val, sizeof val, "%s", job);
            else if (IS("index")) snprintf(val, sizeof val, "%zu", index);
            else return -1;
#undef IS
            add = val;
            p = e;
        } else add = ch;
        size_t l = strlen(add);
        if (o + l >= n) return -1;
        memcpy(out + o, add, l);
        o += l;
    }
    out[o] = 0;
    return 0;
}

/* ---- the handler ------------------------------------------------------------------------------ */
static int push(char ***v, int **lines, int *n, char *s, int line)
{
    char **nv = realloc(*v, (size_t)(*n + 1) * sizeof **v);
    if (!nv) { free(s); return -1; }
    *v = nv;
    int *nl = realloc(*lines, (size_t)(*n + 1) * sizeof **lines);
    if (!nl) { free(s); return -1; }
    *lines = nl;
    (*v)[*n] = s;
    (*lines)[*n] = line;
    (*n)++;
    return 0;
}

static int handler(void *user, const char *section, const char *key, const char *v)
{
    pctx *c = user;
    gp_job *j = c->job;
    (void)section;
    if (c->failed) return 0;
    int L = c->line;
    if (c->sec == SEC_NONE) return perr(c, L, "'%s' outside a section: start with [job] or [read]", key);
    const char *sname = c->sec == SEC_JOB ? "job" : stage_names[c->sec];
    int repeatable = c->sec == GP_JS_READ && (!strcmp(key, "file") || !strcmp(key, "dataset"));
    if (!repeatable) {
        for (int i = 0; i < c->nseen; i++)
            if (!strcmp(c->seen[i], key)) return perr(c, L, "duplicate key '%s' in [%s]", key, sname);
        if (c->nseen < 32) snprintf(c->seen[c->nseen++], sizeof c->seen[0], "%s", key);
    }
    gp_jstage *s = c->sec == SEC_JOB ? NULL : &j->stages[j->nstages - 1];
    char why[256];
    switch (c->sec) {
    case SEC_JOB:
        if (!strcmp(key, "name")) {
            if (!*v || strlen(v) >= sizeof j->name) return perr(c, L, "name: 1 to %zu characters", sizeof j->name - 1);
            for (const char *p = v; *p; p++)
                if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
                    return perr(c, L, "name '%s': use letters, digits, '.', '_' and '-'", v);
            snprintf(j->name, sizeof j->name, "%s", v);
        } else if (!strcmp(key, "device") || !strcmp(key, "map_device")) {
            if (strcmp(v, "auto") && strcmp(v, "cpu") && strcmp(v, "cuda"))
                return perr(c, L, "%s '%s': expected auto, cpu or cuda", key, v);
            snprintf(key[0] == 'd' ? j->device : j->map_device, sizeof j->device, "%s", v);
        } else if (!strcmp(key, "mem")) {
            if (gp_parse_size(v, &j->mem) || !j->mem) return perr(c, L, "mem '%s': expected a size such as 512M or 2G", v);
        } else if (!strcmp(key, "panel_rows")) {
            if (gp_parse_size(v, &j->panel_rows) || !j->panel_rows) return perr(c, L, "panel_rows '%s': expected a positive number", v);
        } else if (!strcmp(key, "threads")) {
            if (gp_parse_threads(v, &j->threads)) return perr(c, L, "threads '%s': expected a number from 1 to 64", v);
        } else if (!strcmp(key, "continue_on_error") || !strcmp(key, "fuse") || !strcmp(key, "force")) {
            int b;
            if (parse_bool(v, &b)) return perr(c, L, "%s '%s': expected yes or no", key, v);
            if (key[0] == 'c') j->continue_on_error = b;
            else if (key[0] == 'f' && key[1] == 'u') j->fuse = b;
            else j->force = b;
        } else {
            return perr(c, L, "unknown key '%s' in [job] (expected name, device, map_device, mem, panel_rows, "
                        "threads, continue_on_error, fuse, force)", key);
        }
        return 1;
    case GP_JS_READ:
        if (!strcmp(key, "file") || !strcmp(key, "dataset")) {
            if (!*v) return perr(c, L, "%s: empty value", key);
            if (strlen(v) >= 1000) return perr(c, L, "%s: value too long", key);
            int isfile = key[0] == 'f';
            if (!isfile && v[0] != '/') return perr(c, L, "dataset '%s': an absolute path in the file, e.g. /data or /grp/*", v);
            char *r = isfile ? resolve(j, v) : xstrdup(v);
            if (!r || (isfile ? push(&j->files, &j->file_lines, &j->nfiles, r, L)
                              : push(&j->datasets, &j->dataset_lines, &j->ndatasets, r, L)))
                return perr(c, L, "out of memory");
            return 1;
        }
        return perr(c, L, "unknown key '%s' in [read] (expected file, dataset)", key);
    case GP_JS_CAST:
        if (!strcmp(key, "to")) {
            if (gp_map_parse_type(v, &s->to)) return perr(c, L, "to '%s': expected i8, i16, i32, i64, u8, u16, u32, u64, f32 or f64", v);
            s->has_op = 1;
            return 1;
        }
        return perr(c, L, "unknown key '%s' in [cast] (expected to)", key);
    case GP_JS_SCALE:
        if (!strcmp(key, "by")) return parse_coef(c, key, v, &s->a);
        return perr(c, L, "unknown key '%s' in [scale] (expected by)", key);
    case GP_JS_AFFINE:
        if (!strcmp(key, "a")) return parse_coef(c, key, v, &s->a);
        if (!strcmp(key, "b")) return parse_coef(c, key, v, &s->b);
        return perr(c, L, "unknown key '%s' in [affine] (expected a, b)", key);
    case GP_JS_STANDARDIZE:
        return perr(c, L, "unknown key '%s' in [standardize] (it takes no keys)", key);
    case GP_JS_TRANSPOSE:
        if (!strcmp(key, "strategy")) {
            if (gp_parse_strategy(v, &j->strategy)) return perr(c, L, "strategy '%s': expected auto, alltoall or direct", v);
            return 1;
        }
        return perr(c, L, "unknown key '%s' in [transpose] (expected strategy)", key);
    case GP_JS_REDUCE:
        if (!strcmp(key, "op")) {
            for (int k = 0; k < GP_OP_N; k++)
                if (!strcmp(v, gp_rop_name((gp_rop)k))) { s->op = (gp_rop)k; s->has_op = 1; return 1; }
            return perr(c, L, "op '%s': expected sum, mean, min, max, absmax, sumsq, norm2, argmin or argmax", v);
        }
        if (!strcmp(key, "axis")) {
            if (!strcmp(v, "all")) s->axis = GP_AXIS_ALL;
            else if (!strcmp(v, "rows")) s->axis = GP_AXIS_ROWS;
            else if (!strcmp(v, "cols")) s->axis = GP_AXIS_COLS;
            else return perr(c, L, "axis '%s': expected all, rows or cols", v);
            return 1;
        }
        if (!strcmp(key, "output") || !strcmp(key, "dataset")) {
            if (!*v) return perr(c, L, "%s: empty value", key);
            if (gp_job_template_check(v, why, sizeof why)) return perr(c, L, "%s '%s': %s", key, v, why);
            char **dst = key[0] == 'o' ? &s->output : &s->output_dataset;
            free(*dst);
            *dst = key[0] == 'o' ? resolve(j, v) : xstrdup(v);
            return *dst ? 1 : perr(c, L, "out of memory");
        }
        if (!strcmp(key, "result_type")) {
            if (gp_parse_result_type(v, &s->result_input))
                return perr(c, L, "result_type '%s': expected wide or input", v);
            return 1;
        }
        return perr(c, L, "unknown key '%s' in [reduce] (expected op, axis, output, dataset, result_type)", key);
    case GP_JS_STATS:
        return perr(c, L, "unknown key '%s' in [stats] (it takes no keys)", key);
    case GP_JS_WRITE:
        if (!strcmp(key, "file") || !strcmp(key, "dataset")) {
            if (!*v) return perr(c, L, "%s: empty value", key);
            if (gp_job_template_check(v, why, sizeof why)) return perr(c, L, "%s '%s': %s", key, v, why);
            char **dst = key[0] == 'f' ? &j->out_file : &j->out_dataset;
            free(*dst);   /* a second [write] (an error found by validate) */
            *dst = key[0] == 'f' ? resolve(j, v) : xstrdup(v);
            return *dst ? 1 : perr(c, L, "out of memory");
        }
        if (!strcmp(key, "chunk")) {
            if (gp_parse_shape(v, &j->chunk_r, &j->chunk_c)) return perr(c, L, "chunk '%s': expected RxC, e.g. 256x256", v);
            return 1;
        }
        return perr(c, L, "unknown key '%s' in [write] (expected file, dataset, chunk)", key);
    default:
        return perr(c, L, "internal: key '%s' in an unknown section", key);
    }
}

/* ---- chain validation ---------------------------------------------------------------------- */
static int validate(pctx *c)
{
    gp_job *j = c->job;
    if (!j->nstages) return perr(c, 1, "no [read] section: a job needs [read] with at least one file");
    if (!j->nfiles) return perr(c, j->stages[0].line, "[read] names no file (add file = PATH or PATTERN)");
    int nmap = 0, seen_write = -1, seen_transpose = -1, nwrite = 0;
    for (int i = 1; i < j->nstages; i++) {
        gp_jstage *s = &j->stages[i];
        const char *nm = stage_names[s->kind];
        if (s->kind == GP_JS_CAST && !s->has_op) return perr(c, s->line, "[cast] needs 'to' (the target type)");
        if (s->kind == GP_JS_SCALE && s->a.kind == GP_COEF_NONE) return perr(c, s->line, "[scale] needs 'by'");
        if (s->kind == GP_JS_AFFINE && s->a.kind == GP_COEF_NONE && s->b.kind == GP_COEF_NONE)
            return perr(c, s->line, "[affine] needs 'a', 'b' or both");
        if (s->kind == GP_JS_REDUCE && !s->has_op) return perr(c, s->line, "[reduce] needs 'op'");
        if (gp_jstage_is_map(s->kind)) {
            if (seen_transpose >= 0 || seen_write >= 0)
                return perr(c, s->line, "[%s] after [%s]: element-wise stages go before the transpose and the write",
                            nm, seen_write >= 0 ? "write" : "transpose");
            if (++nmap > GP_MAP_MAXOPS) return perr(c, s->line, "more than %d element-wise stages", GP_MAP_MAXOPS);
        } else if (s->kind == GP_JS_TRANSPOSE) {
            if (seen_transpose >= 0) return perr(c, s->line, "a second [transpose] (one per job)");
            if (seen_write >= 0) return perr(c, s->line, "[transpose] after [write]: the transpose writes its result, put it before [write]");
            seen_transpose = i;
            if (i + 1 >= j->nstages || j->stages[i + 1].kind != GP_JS_WRITE)
                return perr(c, s->line, "[transpose] must be followed by [write] (which names its output)");
        } else if (s->kind == GP_JS_WRITE) {
            if (nwrite++) return perr(c, s->line, "a second [write] (one per job)");
            if (!j->out_file) return perr(c, s->line, "[write] needs 'file' (an output name template such as out/{stem}.h5)");
            seen_write = i;
        } else if (s->kind == GP_JS_REDUCE || s->kind == GP_JS_STATS) {
            if (nmap && seen_write < 0)
                return perr(c, s->line, "[%s] after element-wise stages needs a [write] before it: the data at "
                            "this point exists only in memory (put [%s] after [write], or before the element-wise stages)",
                            nm, nm);
        }
    }
    if (nmap && seen_write < 0)
        return perr(c, j->stages[j->nstages - 1].line, "element-wise stages without [write]: their result would be lost");
    if (j->chunk_r && seen_transpose < 0 && seen_write < 0) return 1;
    return 1;
}

int gp_job_parse_buffer(const char *name, const char *text, size_t len, gp_job *job, char *err, size_t errlen)
{
    memset(job, 0, sizeof *job);
    snprintf(job->path, sizeof job->path, "%s", name);
    gp__path_dir(name, job->dir, sizeof job->dir);
    char base[PATH_MAX];
    gp__path_base(name, base, sizeof base);
    char *dot = strrchr(base, '.');
    if (dot && dot != base) *dot = 0;
    snprintf(job->name, sizeof job->name, "%s", base);
    snprintf(job->device, sizeof job->device, "auto");
    snprintf(job->map_device, sizeof job->map_device, "cpu");
    job->fuse = 1;
    job->stages = calloc(MAX_STAGES, sizeof *job->stages);
    if (!job->stages) { snprintf(err, errlen, "%s: out of memory", name); return GP_ENOMEM; }
    pctx c = {0};
    c.name = name;
    c.text = text;
    c.len = len;
    c.sec = SEC_NONE;
    c.job = job;
    c.err = err;
    c.errlen = errlen;
    err[0] = 0;
    /* Debian's libinih takes its settings at run time: no multi-line values (an indented line is
     * a line of its own), heap line buffer that grows to MAX_LINE, stop at the first error. */
    ini_allow_multiline = false;
    ini_use_stack = false;
    ini_allow_realloc = true;
    ini_max_line = MAX_LINE + 3;
    ini_initial_alloc = 256;
    ini_stop_on_first_error = true;
    ini_allow_no_value = false;
    int rc = ini_parse_stream(reader, &c, handler, &c);
    if (!c.failed && rc > 0)
        perr(&c, rc, "syntax error: expected '[section]', 'key = value' or a comment (; or #)");
    else if (!c.failed && rc < 0)
        perr(&c, c.line, "cannot parse: %s", rc == -2 ? "out of memory" : "read error");
    if (!c.failed) validate(&c);
    if (c.failed) {
        gp_job_free(job);
        return GP_EINVAL;
    }
    return 0;
}

int gp_job_parse(const char *path, gp_job *job, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        memset(job, 0, sizeof *job);
        snprintf(err, errlen, "%s: cannot open the job file: %s", path, strerror(errno));
        return GP_EIO;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        if (cap >= ((size_t)64 << 20)) { free(buf); buf = NULL; errno = EFBIG; break; }
        char *nb = realloc(buf, cap * 2);
        if (!nb) { free(buf); buf = NULL; break; }
        buf = nb;
        cap *= 2;
    }
    int rd_err = ferror(f);
    fclose(f);
    if (!buf || rd_err) {
        free(buf);
        memset(job, 0, sizeof *job);
        snprintf(err, errlen, "%s: cannot read the job file%s", path, buf ? "" : " (larger than 64 MiB?)");
        return GP_EIO;
    }
    int rc = gp_job_parse_buffer(path, buf, n, job, err, errlen);
    free(buf);
    return rc;
}

static void coef_free(gp_coef *c)
{
    free(c->vec);
    free(c->file);
    free(c->dataset);
    memset(c, 0, sizeof *c);
}

void gp_job_free(gp_job *j)
{
    for (int i = 0; i < j->nfiles; i++) free(j->files[i]);
    for (int i = 0; i < j->ndatasets; i++) free(j->datasets[i]);
    free(j->files);
    free(j->file_lines);
    free(j->datasets);
    free(j->dataset_lines);
    if (j->stages)
        for (int i = 0; i < j->nstages; i++) {
            coef_free(&j->stages[i].a);
            coef_free(&j->stages[i].b);
            free(j->stages[i].output);
            free(j->stages[i].output_dataset);
        }
    free(j->stages);
    free(j->out_file);
    free(j->out_dataset);
    memset(j, 0, sizeof *j);
}

/* ---- plan ------------------------------------------------------------------------------------ */
void gp_job_plan_string(const gp_job *j, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    int i = 0;
    while (i < j->nstages && o < n) {
        const gp_jstage *s = &j->stages[i];
        if (gp_jstage_is_map(s->kind) && j->fuse) {
            int k = i;
            o += (size_t)snprintf(buf + o, n - o, "%s[", i ? " > " : "");
            for (; k < j->nstages && gp_jstage_is_map(j->stages[k].kind) && o < n; k++)
                o += (size_t)snprintf(buf + o, n - o, "%s%s", k > i ? "+" : "", stage_names[j->stages[k].kind]);
            if (o < n) o += (size_t)snprintf(buf + o, n - o, "]");
            if (k < j->nstages && j->stages[k].kind == GP_JS_TRANSPOSE && o < n) {
                o += (size_t)snprintf(buf + o, n - o, "+transpose");   /* fused into the transpose */
                k++;
            }
            i = k;
            continue;
        }
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? " > " : "", stage_names[s->kind]);
        i++;
    }
}

static void coef_desc(const gp_coef *c, char *buf, size_t n)
{
    switch (c->kind) {
    case GP_COEF_SCALAR: snprintf(buf, n, "%.17g", c->scalar); break;
    case GP_COEF_INLINE: snprintf(buf, n, "[%zu values]", c->n); break;
    case GP_COEF_DATASET: snprintf(buf, n, "%s:%s", c->file, c->dataset); break;
    default: snprintf(buf, n, "-"); break;
    }
}

void gp_job_print_plan(FILE *f, const gp_job *j, const gp_job_entry *e, size_t n)
{
    char plan[1024], a[PATH_MAX + 1100], b[PATH_MAX + 1100];
    gp_job_plan_string(j, plan, sizeof plan);
    fprintf(f, "job %s (%s)\n", j->name, j->path);
    fprintf(f, "  device %s, map stages on %s, mem %s, %s, %s\n", j->device, j->map_device,
            j->mem ? "set" : "automatic", j->fuse ? "fused" : "unfused (one pass per stage)",
            j->continue_on_error ? "continue on error" : "stop at the first failure");
    fprintf(f, "  plan: %s\n", plan);
    for (int i = 0; i < j->nstages; i++) {
        const gp_jstage *s = &j->stages[i];
        fprintf(f, "  stage %d  %-11s (line %d)", i + 1, stage_names[s->kind], s->line);
        switch (s->kind) {
        case GP_JS_CAST: fprintf(f, "  to %s", gp_rtype_name(s->to)); break;
        case GP_JS_SCALE: coef_desc(&s->a, a, sizeof a); fprintf(f, "  x * %s", a); break;
        case GP_JS_AFFINE:
            coef_desc(&s->a, a, sizeof a);
            coef_desc(&s->b, b, sizeof b);
            fprintf(f, "  x * %s + %s", s->a.kind ? a : "1", s->b.kind ? b : "0");
            break;
        case GP_JS_STANDARDIZE: fprintf(f, "  (x - column mean) / column std, from a reduction pass"); break;
        case GP_JS_TRANSPOSE: fprintf(f, "  strategy %s", gp_strategy_name(j->strategy)); break;
        case GP_JS_REDUCE: fprintf(f, "  op %s axis %s%s%s", gp_rop_name(s->op),
                                   s->axis == GP_AXIS_ALL ? "all" : s->axis == GP_AXIS_ROWS ? "rows" : "cols",
                                   s->output ? " -> " : "", s->output ? s->output : ""); break;
        case GP_JS_WRITE:
            fprintf(f, "  %s:%s", j->out_file, j->out_dataset ? j->out_dataset : "{dataset}");
            if (j->chunk_r) fprintf(f, " chunk %zux%zu", j->chunk_r, j->chunk_c);
            break;
        case GP_JS_READ:
            for (int k = 0; k < j->nfiles; k++) fprintf(f, "  %s", j->files[k]);
            for (int k = 0; k < j->ndatasets; k++) fprintf(f, "  %s", j->datasets[k]);
            break;
        default: break;
        }
        fputc('\n', f);
    }
    fprintf(f, "  %zu entr%s:\n", n, n == 1 ? "y" : "ies");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "  [%zu] %s:%s", i + 1, e[i].file, e[i].dataset[0] ? e[i].dataset : "(the only 2-D dataset)");
        if (e[i].output[0]) fprintf(f, " -> %s:%s", e[i].output, e[i].output_dataset);
        if (e[i].error[0]) fprintf(f, "  ERROR: %s", e[i].error);
        fputc('\n', f);
    }
}

/* Datasets of a file matching a pattern (FNM_PATHNAME: '*' does not cross '/'), 2-D only. */
typedef struct { const char *pat; char **names; size_t n, cap; int fail; } visit_ctx;
static herr_t visit_cb(hid_t obj, const char *name, const H5L_info_t *info, void *data)
{
    visit_ctx *v = data;
    if (info->type != H5L_TYPE_HARD) return 0;
    char path[1100];
    snprintf(path, sizeof path, "/%s", name);
    if (fnmatch(v->pat, path, FNM_PATHNAME) != 0) return 0;
    hid_t o = H5Oopen(obj, name, H5P_DEFAULT);
    if (o < 0) { H5Eclear2(H5E_DEFAULT); return 0; }
    int nd = -1;
    if (H5Iget_type(o) == H5I_DATASET) {
        hid_t sp = H5Dget_space(o);
        nd = H5Sget_simple_extent_ndims(sp);
        H5Sclose(sp);
    }
    H5Oclose(o);
    if (nd != 2) return 0;
    if (v->n == v->cap) {
        size_t nc = v->cap ? 2 * v->cap : 16;
        char **nn = realloc(v->names, nc * sizeof *nn);
        if (!nn) { v->fail = 1; return -1; }
        v->names = nn;
        v->cap = nc;
    }
    v->names[v->n++] = xstrdup(path);
    return 0;
}

static int has_magic(const char *s) { return strpbrk(s, "*?[") != NULL; }

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Rank 0: the entries, or an error message (plan error) in err. */
static int expand_local(const gp_job *j, gp_job_entry **out, size_t *nout, char *err, size_t errlen)
{
    char **files = NULL;
    size_t nf = 0, capf = 0;
    gp_job_entry *es = NULL;
    size_t ne = 0, cape = 0;
    int rc = 0;
    for (int i = 0; i < j->nfiles && !rc; i++) {
        glob_t g;
        memset(&g, 0, sizeof g);
        int grc = has_magic(j->files[i]) ? glob(j->files[i], 0, NULL, &g) : -1;
        size_t cnt = grc == 0 ? g.gl_pathc : grc == -1 ? 1 : 0;
        if (grc != 0 && grc != -1) {
            snprintf(err, errlen, "%s:%d: file pattern '%s' matches no file", j->path, j->file_lines[i], j->files[i]);
            rc = GP_EINVAL;
        }
        for (size_t k = 0; k < cnt && !rc; k++) {
            const char *p = grc == 0 ? g.gl_pathv[k] : j->files[i];
            int dup = 0;
            for (size_t q = 0; q < nf; q++) if (!strcmp(files[q], p)) dup = 1;
            if (dup) continue;
            if (nf == capf) {
                capf = capf ? 2 * capf : 16;
                char **nfp = realloc(files, capf * sizeof *nfp);
                if (!nfp) { rc = GP_ENOMEM; break; }
                files = nfp;
            }
            files[nf++] = xstrdup(p);
        }
        if (grc == 0) globfree(&g);
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    for (size_t f = 0; f < nf && !rc; f++) {
        char **names = NULL;
        size_t nn = 0;
        char ferr[512] = "";
        if (j->ndatasets == 0) {
            names = malloc(sizeof *names);
            if (names) names[nn++] = xstrdup("");
        } else {
            int needs_list = 0;
            for (int d = 0; d < j->ndatasets; d++) needs_list |= has_magic(j->datasets[d]);
            hid_t fid = H5I_INVALID_HID;
            if (needs_list) {
                fid = H5Fopen(files[f], H5F_ACC_RDONLY, H5P_DEFAULT);
                if (fid < 0) {
                    char why[256];
                    gp_h5_last_error(why, sizeof why);
                    snprintf(ferr, sizeof ferr, "%s: cannot open to list its datasets%s%s", files[f], why[0] ? ": " : "", why);
                }
            }
            for (int d = 0; d < j->ndatasets && !ferr[0]; d++) {
                if (!has_magic(j->datasets[d])) {
                    char **nb = realloc(names, (nn + 1) * sizeof *nb);
                    if (!nb) { rc = GP_ENOMEM; break; }
                    names = nb;
                    names[nn++] = xstrdup(j->datasets[d]);
                    continue;
                }
                visit_ctx v = {j->datasets[d], NULL, 0, 0, 0};
                H5Lvisit(fid, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &v);
                if (v.n == 0)
                    snprintf(ferr, sizeof ferr, "%s: no 2-D dataset matches '%s' (%s:%d)", files[f], j->datasets[d],
                             j->path, j->dataset_lines[d]);
                qsort(v.names, v.n, sizeof *v.names, cmpstr);
                for (size_t q = 0; q < v.n; q++) {
                    int dup = 0;
                    for (size_t r = 0; r < nn; r++) if (!strcmp(names[r], v.names[q])) dup = 1;
                    char **nb = dup ? names : realloc(names, (nn + 1) * sizeof *nb);
                    if (!nb) { rc = GP_ENOMEM; free(v.names[q]); continue; }
                    names = nb;
                    if (dup) free(v.names[q]);
                    else names[nn++] = v.names[q];
                }
                free(v.names);
            }
            if (fid >= 0) H5Fclose(fid);
        }
        size_t nadd = ferr[0] ? 1 : nn;
        for (size_t q = 0; q < nadd && !rc; q++) {
            if (ne == cape) {
                cape = cape ? 2 * cape : 16;
                gp_job_entry *nes = realloc(es, cape * sizeof *nes);
                if (!nes) { rc = GP_ENOMEM; break; }
                es = nes;
            }
            gp_job_entry *e = &es[ne++];
            memset(e, 0, sizeof *e);
            snprintf(e->file, sizeof e->file, "%s", files[f]);
            if (ferr[0]) { snprintf(e->error, sizeof e->error, "%s", ferr); continue; }
            snprintf(e->dataset, sizeof e->dataset, "%s", names[q]);
        }
        for (size_t q = 0; q < nn; q++) free(names[q]);
        free(names);
    }
    for (size_t f = 0; f < nf; f++) free(files[f]);
    free(files);
    if (rc == GP_ENOMEM) snprintf(err, errlen, "%s: out of memory while expanding the inputs", j->path);
    /* outputs */
    int wline = 0;
    for (int i = 0; i < j->nstages; i++) if (j->stages[i].kind == GP_JS_WRITE) wline = j->stages[i].line;
    for (size_t i = 0; i < ne && !rc; i++) {
        gp_job_entry *e = &es[i];
        if (!j->out_file) continue;
        if (gp_job_template_expand(j->out_file, e->file, e->dataset, j->name, i + 1, e->output, sizeof e->output) ||
            gp_job_template_expand(j->out_dataset ? j->out_dataset : "{dataset}", e->file, e->dataset, j->name, i + 1,
                                   e->output_dataset, sizeof e->output_dataset)) {
            snprintf(err, errlen, "%s:%d: output name of entry %zu is too long", j->path, wline, i + 1);
            rc = GP_EINVAL;
        }
        for (size_t q = 0; q < i && !rc; q++)
            if (es[q].output[0] && !strcmp(es[q].output, e->output)) {
                snprintf(err, errlen, "%s:%d: entries %zu (%s:%s) and %zu (%s:%s) would both write %s; "
                         "use {stem}, {dsname} or {index} in the file template", j->path, wline, q + 1, es[q].file,
                         es[q].dataset[0] ? es[q].dataset : "-", i + 1, e->file, e->dataset[0] ? e->dataset : "-", e->output);
                rc = GP_EINVAL;
            }
    }
    if (rc) { free(es); es = NULL; ne = 0; }
    *out = es;
    *nout = ne;
    return rc;
}

gp_status gp_job_expand(MPI_Comm comm, const gp_job *job, gp_job_entry **entries, size_t *n, gp_error *e)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    gp_job_entry *es = NULL;
    size_t ne = 0;
    int rc = 0;
    if (rank == 0) {
        rc = expand_local(job, &es, &ne, e->msg, sizeof e->msg);
        if (rc) e->code = rc, e->rank = 0;
    }
    gp_status st = gp__agree(comm, e);
    if (st) { free(es); *entries = NULL; *n = 0; return st; }
    unsigned long long cnt = ne;
    MPI_Bcast(&cnt, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    if (rank != 0) {
        es = calloc(cnt ? cnt : 1, sizeof *es);
        if (!es) gp__fail(e, GP_ENOMEM, "out of memory for %llu entries", cnt);
    }
    if ((st = gp__agree(comm, e))) { free(es); return st; }
    size_t bytes = (size_t)cnt * sizeof *es;
    for (size_t off = 0; off < bytes; off += 1 << 30) {
        size_t chunk = bytes - off < (1u << 30) ? bytes - off : (1u << 30);
        MPI_Bcast((char *)es + off, (int)chunk, MPI_BYTE, 0, comm);
    }
    *entries = es;
    *n = (size_t)cnt;
    return GP_OK;
}
