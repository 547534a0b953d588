/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench: minimal JSON reader and string writer. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fgb_json.h"

struct parser {
    const char *s;
    const char *err;
};

static void ws(struct parser *p)
{
    while (*p->s && isspace((unsigned char)*p->s))
        p->s++;
}

static struct fgb_json *node(enum fgb_jtype t)
{
    struct fgb_json *j = calloc(1, sizeof *j);
    j->type = t;
    return j;
}

static char *parse_string(struct parser *p)
{
    if (*p->s != '"') {
        p->err = "expected a string";
        return NULL;
    }
    p->s++;
    size_t cap = 16, n = 0;
    char *out = malloc(cap);
    while (*p->s && *p->s != '"') {
        char c = *p->s++;
        if (c == '\\') {
            c = *p->s++;
            switch (c) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': { /* keep ASCII, replace the rest */
                unsigned v = 0;
                for (int i = 0; i < 4 && isxdigit((unsigned char)*p->s); i++, p->s++)
                    v = v * 16 + (unsigned)(isdigit((unsigned char)*p->s) ? *p->s - '0'
                                                                         : (tolower(*p->s) - 'a' + 10));
                c = v < 128 ? (char)v : '?';
                break;
            }
            case 0: p->err = "unterminated string"; free(out); return NULL;
            default: break; /* \" \\ \/ */
            }
        }
        if (n + 2 > cap)
            out = realloc(out, cap *= 2);
        out[n++] = c;
    }
    if (*p->s != '"') {
        p->err = "unterminated string";
        free(out);
        return NULL;
    }
    p->s++;
    out[n] = 0;
    return out;
}

static struct fgb_json *parse_value(struct parser *p, int depth)
{
    ws(p);
    if (depth > 64) {
        p->err = "nesting too deep";
        return NULL;
    }
    char c = *p->s;
    if (c == '{' || c == '[') {
        int obj = c == '{';
        struct fgb_json *j = node(obj ? FGB_JOBJ : FGB_JARR), **tail = &j->child;
        p->s++;
        ws(p);
        if (*p->s == (obj ? '}' : ']')) {
            p->s++;
            return j;
        }
        for (;;) {
            char *key = NULL;
            ws(p);
            if (obj) {
                key = parse_string(p);
                if (!key)
                    break;
                ws(p);
                if (*p->s != ':') {
                    p->err = "expected ':'";
                    free(key);
                    break;
                }
                p->s++;
            }
            struct fgb_json *v = parse_value(p, depth + 1);
            if (!v) {
                free(key);
                break;
            }
            v->key = key;
            *tail = v;
            tail = &v->next;
            ws(p);
            if (*p->s == ',') {
                p->s++;
                continue;
            }
            if (*p->s == (obj ? '}' : ']')) {
                p->s++;
                return j;
            }
            p->err = obj ? "expected ',' or '}'" : "expected ',' or ']'";
            break;
        }
        fgb_json_free(j);
        return NULL;
    }
    if (c == '"') {
        char *s = parse_string(p);
        if (!s)
            return NULL;
        struct fgb_json *j = node(FGB_JSTR);
        j->str = s;
        return j;
    }
    if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "false", 5)) {
        struct fgb_json *j = node(FGB_JBOOL);
        j->num = p->s[0] == 't';
        p->s += p->s[0] == 't' ? 4 : 5;
        return j;
    }
    if (!strncmp(p->s, "null", 4)) {
        p->s += 4;
        return node(FGB_JNULL);
    }
    char *end;
    double v = strtod(p->s, &end);
    if (end == p->s) {
        p->err = "unexpected character";
        return NULL;
    }
    p->s = end;
    struct fgb_json *j = node(FGB_JNUM);
    j->num = v;
    return j;
}

struct fgb_json *fgb_json_parse_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    size_t got = fread(buf, 1, (size_t)len, f);
    fclose(f);
    buf[got] = 0;
    struct parser p = {buf, NULL};
    struct fgb_json *j = parse_value(&p, 0);
    if (j) {
        ws(&p);
        if (*p.s) {
            p.err = "trailing characters";
            fgb_json_free(j);
            j = NULL;
        }
    }
    if (!j)
        snprintf(err, errlen, "%s: invalid JSON at byte %ld: %s", path, (long)(p.s - buf),
                 p.err ? p.err : "?");
    free(buf);
    return j;
}

void fgb_json_free(struct fgb_json *j)
{
    while (j) {
        struct fgb_json *n = j->next;
        fgb_json_free(j->child);
        free(j->str);
        free(j->key);
        free(j);
        j = n;
    }
}

const struct fgb_json *fgb_json_get(const struct fgb_json *o, const char *key)
{
    if (!o || o->type != FGB_JOBJ)
        return NULL;
    for (const struct fgb_json *c = o->child; c; c = c->next)
        if (c->key && !strcmp(c->key, key))
            return c;
    return NULL;
}

const char *fgb_json_str(const struct fgb_json *o, const char *key, const char *dflt)
{
    const struct fgb_json *v = fgb_json_get(o, key);
    return v && v->type == FGB_JSTR ? v->str : dflt;
}

double fgb_json_num(const struct fgb_json *o, const char *key, double dflt)
{
    const struct fgb_json *v = fgb_json_get(o, key);
    return v && (v->type == FGB_JNUM || v->type == FGB_JBOOL) ? v->num : dflt;
}

void fgb_json_write_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}
