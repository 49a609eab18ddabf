// libzxcvbn: password strength matching. Loaded with dlopen on first use (CZxcvbnSupport.c), so only the
// commands that rate passwords load it, not every start of the CLI. Safe to call from several threads.
#ifndef CZXCVBNSUPPORT_H
#define CZXCVBNSUPPORT_H

#include <zxcvbn.h>

#include "RankedDictionary.h"

/// 1 when libzxcvbn could be loaded. The functions below load it on first use, from any thread.
int CZxcvbn_available(void);
/// ZxcvbnMatch: the entropy in bits and the matches in `info` (freed with CZxcvbn_freeInfo); when libzxcvbn
/// is unavailable, -1 and no matches.
double CZxcvbn_match(const char *password, const char *userDictionary[], ZxcMatch_t **info);
/// ZxcvbnFreeInfo.
void CZxcvbn_freeInfo(ZxcMatch_t *info);

#endif
