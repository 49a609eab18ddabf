// The ranked dictionaries PassboxCore's strength estimate adds to libzxcvbn's own (RankedDictionary.swift says
// what they are and how they are ranked): the lists as generated (RankedDictionaryData.c), and their lookup
// tables, made in C on first use (RankedDictionary.c). Made in Swift they cost 70 ms of every debug `passbox`
// that rated a password, 39 ms of a release one; here 17 ms at -O0 and 10 ms at -O2 (December 2026). Safe to
// call from several threads.
#ifndef RANKEDDICTIONARY_H
#define RANKEDDICTIONARY_H

#include <stddef.h>
#include <stdint.h>

/// The lists as generated: words separated by single spaces, in rank order (the first word has rank 1).
const char *RankedDictionary_passwordsList(void);
const char *RankedDictionary_germanWordsList(void);

/// German words of fewer characters than this are not entries (RankedDictionary.swift says why).
#define RANKED_DICTIONARY_GERMAN_MINIMUM_LENGTH 5
/// Entry starts of up to this many characters are kept: `RankedDictionary_mayStartEntry`.
#define RANKED_DICTIONARY_PREFIX_LENGTH 4

/// The rank of the entry whose lower-case UTF-8 is KEY (LENGTH bytes), or 0 when it is no entry. A word of both
/// lists has the passwords list's rank. *FROM_PASSWORDS (when not NULL) is set to 1 when the entry is a word of
/// the passwords list, else 0.
uint32_t RankedDictionary_rank(const uint8_t *key, size_t length, int *fromPasswords);
/// 1 when some entry starts with KEY, which is whole characters, at most RANKED_DICTIONARY_PREFIX_LENGTH of them;
/// 0 when none does (and so no longer key from the same start is an entry). A longer KEY: always 1.
int RankedDictionary_mayStartEntry(const uint8_t *key, size_t length);
/// The longest entry, in characters (Unicode scalars; every entry is letters without combining marks, so
/// scalars are characters).
size_t RankedDictionary_longestEntry(void);
/// How many entries there are.
size_t RankedDictionary_count(void);

#endif
