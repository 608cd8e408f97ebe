/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * json.h - the one JSON string writer of klptop and klp-trace
 */
#ifndef _KLP_JSON_H
#define _KLP_JSON_H

#include <stddef.h>
#include <stdio.h>
#include "strbuf.h"

void json_buf_str(struct strbuf *b, const char *s, size_t len);
void json_put_str(FILE *out, const char *s, size_t len);
void json_put_text(FILE *out, const char *s, size_t len);
/* A record's string field: ",\"name\":\"s\"" (JSON) or " name=s" (text) */
void json_put_field(FILE *out, int json, const char *name, const char *s);

#endif /* _KLP_JSON_H */
