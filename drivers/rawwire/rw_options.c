/*
 * rw_options.c -- see rw_options.h.
 */
#include "rw_options.h"

#include <string.h>

#include "rw_err.h"

const struct pgcb_option_spec rw_option_specs[] = {
    {"result_format", RW_DEFAULT_FORMAT,
     "result format asked of the server: text | binary (numeric and unconverted types always text)"},
    {NULL, NULL, NULL},
};

int rw_parse_options(const char *driver, const struct pgcb_option *opts, size_t nopts, int *binary,
                     char *err, size_t errlen)
{
    *binary = strcmp(RW_DEFAULT_FORMAT, "binary") == 0;
    for (size_t i = 0; i < nopts; i++) {
        const char *k = opts[i].key, *v = opts[i].value ? opts[i].value : "";
        if (strcmp(k, "result_format") != 0) {
            rw_errf(err, errlen, "unknown option \"%s\" (= \"%s\"); %s knows result_format", k, v, driver);
            return PGCB_ERR_CONFIG;
        }
        if (strcmp(v, "text") == 0)
            *binary = 0;
        else if (strcmp(v, "binary") == 0)
            *binary = 1;
        else {
            rw_errf(err, errlen, "result_format = \"%s\": expected text or binary", v);
            return PGCB_ERR_CONFIG;
        }
    }
    return PGCB_OK;
}
