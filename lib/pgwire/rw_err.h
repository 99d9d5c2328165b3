/*
 * rw_err.h -- error messages in the form the driver ABI asks for: one line,
 * NUL-terminated, no trailing newline, never a password.
 *
 * Every function writes into the caller's buffer `err` of `errlen` >= 1
 * bytes, truncating if needed. None allocates or keeps state.
 */
#ifndef RW_ERR_H
#define RW_ERR_H

#include <stddef.h>

/* printf into err, then make it one line (every CR/LF becomes a space). */
void rw_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Replace every CR and LF in the NUL-terminated string s by a space and drop
 * trailing white space. */
void rw_oneline(char *s);

#endif /* RW_ERR_H */
