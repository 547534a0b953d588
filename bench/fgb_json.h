/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench: minimal JSON support (writing our report, reading it back for
 * --compare and --from-json). The reader accepts standard JSON; numbers are doubles. */
#ifndef FGB_JSON_H
#define FGB_JSON_H
#include <stdio.h>

enum fgb_jtype { FGB_JNULL, FGB_JBOOL, FGB_JNUM, FGB_JSTR, FGB_JARR, FGB_JOBJ };

struct fgb_json {
    enum fgb_jtype type;
    double num;               /* JNUM, JBOOL */
    char *str;                /* JSTR; key of a member */
    char *key;                /* set when this value is an object member */
    struct fgb_json *child;   /* first element / member */
    struct fgb_json *next;    /* next sibling */
};

struct fgb_json *fgb_json_parse_file(const char *path, char *err, size_t errlen);
void fgb_json_free(struct fgb_json *j);
const struct fgb_json *fgb_json_get(const struct fgb_json *obj, const char *key);
const char *fgb_json_str(const struct fgb_json *obj, const char *key, const char *dflt);
double fgb_json_num(const struct fgb_json *obj, const char *key, double dflt);

void fgb_json_write_str(FILE *f, const char *s); /* quoted and escaped */
#endif
