/*
 * br_release.h -- `client = NAME@RELEASE`: a client at a release of its
 * registry, installed by the adapter's release script into a directory of
 * its own (br_release.c states the script's contract). Private to
 * drivers/bridge/.
 */
#ifndef BR_RELEASE_H
#define BR_RELEASE_H

#include <stddef.h>

/* Split CLIENT at its last '@' (not a leading one, an npm scope):
 * 1 with *name and *release (owned by the caller), 0 when CLIENT names no
 * release (both NULL), -1 with err when the release is not one a registry
 * spells (or out of memory). */
int br_release_split(const char *client, char **name, char **release, char *err, size_t errlen);

/* Make sure NAME at RELEASE is installed for adapter LANG: runs
 * ADAPTERS_DIR/LANG/release.sh NAME RELEASE DEST unless DEST/.pgcb-release
 * exists (DEST: ADAPTERS_DIR/../releases/LANG/NAME@RELEASE). 0 with *dest
 * (an absolute path, owned by the caller); else err, one line naming the
 * client, the release and what the script last said (the registry's
 * answer), and -2 when the registry has no such release (the script's exit
 * status 2: bad input), -1 when it could not be installed or built here
 * (anything else). Prints nothing. */
int br_release_install(const char *adapters_dir, const char *lang, const char *name,
                       const char *release, char **dest, char *err, size_t errlen);

#endif
