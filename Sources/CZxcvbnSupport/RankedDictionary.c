// The ranked dictionaries' lookup tables (RankedDictionary.h), made once on first use: two open-addressing hash
// tables over the generated lists' bytes, one of the entries (with their ranks) and one of every entry's starts
// of up to RANKED_DICTIONARY_PREFIX_LENGTH characters. Written by hand: a sorted or hashed table of byte strings
// is what C's libraries do not offer (hsearch has one table per process and no lengths).
#include "RankedDictionary.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// A place in the lists: offsets below `passwordsLength` are in the passwords list, the rest in the German one
// (after the passwords list's length). Four bytes a slot instead of a pointer's eight.
typedef struct {
    uint32_t offset;
    uint32_t rank;  // 0: the slot is free
    uint16_t length;
    uint8_t fromPasswords;
} Entry;

typedef struct {
    uint32_t offset;
    uint8_t length;  // 0: the slot is free
} Start;

// The lists (RankedDictionaryData.c, generated).
extern const char RankedDictionary_passwords[];
extern const char RankedDictionary_germanWords[];

const char *RankedDictionary_passwordsList(void) { return RankedDictionary_passwords; }
const char *RankedDictionary_germanWordsList(void) { return RankedDictionary_germanWords; }

static struct {
    size_t passwordsLength;
    Entry *entries;
    size_t entryCapacity, entryCount;
    Start *starts;
    size_t startCapacity, startCount;
    size_t longest;
} table;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static const uint8_t *at(uint32_t offset) {
    return offset < table.passwordsLength ? (const uint8_t *)RankedDictionary_passwords + offset
                                          : (const uint8_t *)RankedDictionary_germanWords + (offset - table.passwordsLength);
}

// FNV-1a, 32 bits (1.4 probes a lookup on average here).
static uint32_t hash(const uint8_t *bytes, size_t length) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < length; i++) h = (h ^ bytes[i]) * 16777619u;
    return h;
}

// Unicode scalars in LENGTH bytes of UTF-8: the bytes that are not continuation bytes.
static size_t scalars(const uint8_t *bytes, size_t length) {
    size_t n = 0;
    for (size_t i = 0; i < length; i++) n += (bytes[i] & 0xC0) != 0x80;
    return n;
}

// The slot of KEY in SLOTS: where it is, or the free slot where it would go.
static size_t entrySlot(const Entry *slots, size_t capacity, const uint8_t *key, size_t length) {
    size_t i = hash(key, length) & (capacity - 1);
    while (slots[i].rank != 0 && !(slots[i].length == length && memcmp(at(slots[i].offset), key, length) == 0))
        i = (i + 1) & (capacity - 1);
    return i;
}

static size_t startSlot(const Start *slots, size_t capacity, const uint8_t *key, size_t length) {
    size_t i = hash(key, length) & (capacity - 1);
    while (slots[i].length != 0 && !(slots[i].length == length && memcmp(at(slots[i].offset), key, length) == 0))
        i = (i + 1) & (capacity - 1);
    return i;
}

// The starts' table is at most half full: it doubles before the next start would pass that. (The entries'
// table is made at its final size: `make`.)
static int growStarts(void) {
    size_t capacity = table.startCapacity ? table.startCapacity * 2 : 1 << 16;
    Start *slots = calloc(capacity, sizeof(Start));
    if (!slots) return 0;
    for (size_t i = 0; i < table.startCapacity; i++) {
        Start s = table.starts[i];
        if (s.length != 0) slots[startSlot(slots, capacity, at(s.offset), s.length)] = s;
    }
    free(table.starts);
    table.starts = slots;
    table.startCapacity = capacity;
    return 1;
}

// Adds a word (a later word of the same bytes takes its rank and list, as a later assignment to a dictionary
// key would) and its starts.
static int add(uint32_t offset, size_t length, uint32_t rank, int fromPasswords) {
    const uint8_t *word = at(offset);
    if ((table.entryCount + 1) * 2 > table.entryCapacity) return 0;  // not with the lists `make` counted
    size_t i = entrySlot(table.entries, table.entryCapacity, word, length);
    if (table.entries[i].rank == 0) table.entryCount++;
    table.entries[i] = (Entry){.offset = offset, .rank = rank, .length = (uint16_t)length, .fromPasswords = (uint8_t)fromPasswords};
    size_t characters = 0;
    for (size_t end = 1; end <= length; end++) {
        if (end < length && (word[end] & 0xC0) == 0x80) continue;  // inside a character
        if (++characters > RANKED_DICTIONARY_PREFIX_LENGTH) break;
        if ((table.startCount + 1) * 2 > table.startCapacity && !growStarts()) return 0;
        size_t j = startSlot(table.starts, table.startCapacity, word, end);
        if (table.starts[j].length == 0) {
            table.starts[j] = (Start){.offset = offset, .length = (uint8_t)end};
            table.startCount++;
        }
    }
    return 1;
}

// Each space-separated word of LIST, ranked by its place (from 1).
static int addList(const char *list, uint32_t base, int fromPasswords) {
    const uint8_t *bytes = (const uint8_t *)list;
    uint32_t rank = 0;
    size_t start = 0;
    for (size_t i = 0;; i++) {
        if (bytes[i] != ' ' && bytes[i] != 0) continue;
        if (i > start) {
            rank++;
            size_t length = i - start;
            size_t characters = scalars(bytes + start, length);
            int keep = fromPasswords || characters >= RANKED_DICTIONARY_GERMAN_MINIMUM_LENGTH;
            if (keep && length <= UINT16_MAX) {
                if (!add(base + (uint32_t)start, length, rank, fromPasswords)) return 0;
                if (characters > table.longest) table.longest = characters;
            }
        }
        if (bytes[i] == 0) return 1;
        start = i + 1;
    }
}

// Words in a list: its spaces, plus one.
static size_t words(const char *list) {
    size_t n = 1;
    for (; *list; list++) n += *list == ' ';
    return n;
}

static void make(void) {
    table.passwordsLength = strlen(RankedDictionary_passwords) + 1;
    // The entries' table made at its final size at once (at most half full); the starts' grows as they come.
    size_t capacity = 1 << 16;
    while (capacity < 2 * (words(RankedDictionary_passwords) + words(RankedDictionary_germanWords))) capacity *= 2;
    table.entries = calloc(capacity, sizeof(Entry));
    table.entryCapacity = table.entries ? capacity : 0;
    // German first, so a word of both lists keeps the passwords list's rank.
    if (addList(RankedDictionary_germanWords, (uint32_t)table.passwordsLength, 0) && addList(RankedDictionary_passwords, 0, 1)) return;
    // Out of memory: no entries (every lookup answers none) rather than half of them.
    free(table.entries);
    free(table.starts);
    memset(&table, 0, sizeof table);
}

uint32_t RankedDictionary_rank(const uint8_t *key, size_t length, int *fromPasswords) {
    pthread_once(&once, make);
    if (fromPasswords) *fromPasswords = 0;
    if (table.entryCapacity == 0 || length == 0 || length > UINT16_MAX) return 0;
    const Entry *e = &table.entries[entrySlot(table.entries, table.entryCapacity, key, length)];
    if (e->rank != 0 && fromPasswords) *fromPasswords = e->fromPasswords;
    return e->rank;
}

int RankedDictionary_mayStartEntry(const uint8_t *key, size_t length) {
    pthread_once(&once, make);
    if (scalars(key, length) > RANKED_DICTIONARY_PREFIX_LENGTH) return 1;
    if (table.startCapacity == 0 || length == 0) return 0;
    return table.starts[startSlot(table.starts, table.startCapacity, key, length)].length != 0;
}

size_t RankedDictionary_longestEntry(void) {
    pthread_once(&once, make);
    return table.longest;
}

size_t RankedDictionary_count(void) {
    pthread_once(&once, make);
    return table.entryCount;
}
