/* Least Score protocol v1 for bots in C, on msgpack-c (see PROTOCOL.md).
 *
 * Frames: a 4-byte big-endian length, then exactly one MessagePack map.
 * This file gives: a frame reader (partial reads, several frames in one read,
 * one map per body checked), typed getters that tell str from bin, uint64
 * from int64 and nil from absent, an encoder for every client message, and
 * the stdio set-up a tournament expects (frames on a copy of stdout, fd 1
 * pointed at stderr, SIGPIPE ignored, raw writes).
 */
#ifndef LEASTSCORE_H
#define LEASTSCORE_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LS_PROTOCOL 1
#define LS_SERVER_FRAME_LIMIT (16u * 1024u * 1024u) /* frames from a host: up to 16 MiB */
#define LS_CLIENT_FRAME_LIMIT (64u * 1024u)         /* frames we send: up to 65,536 bytes */
#define LS_MAX_CARDS 5   /* a hand, the open cards, a discard: at most 5 cards */
#define LS_MAX_GROUPS 31 /* legal groups of one hand: at most 31 (12 today) */

/* -- reading frames ---------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t len, cap, limit;
} ls_reader;

/* One message: the body's bytes (strings point into them) and its root map.
 * It may be copied; ls_message_free one of the copies, once. */
typedef struct {
    char *body;
    size_t size;
    msgpack_unpacked unpacked;
    msgpack_object map; /* the root (a copy of unpacked.data): always a map */
    char type[32];      /* its "type" field; "" if it has none that is a str */
} ls_message;

void ls_reader_init(ls_reader *r, size_t limit);
void ls_reader_free(ls_reader *r);
/* Append bytes as they arrived (any split). 0, or -1 when out of memory. */
int ls_reader_feed(ls_reader *r, const char *data, size_t n);
/* The next whole message: 1 (fill *m; ls_message_free it), 0 (need more bytes),
 * -1 (the stream is broken: *why says how; there is no way to resynchronise). */
int ls_reader_next(ls_reader *r, ls_message *m, char *why, size_t why_size);
void ls_message_free(ls_message *m);

/* -- typed getters ------------------------------------------------------------ */

typedef enum {
    LS_OK = 0,
    LS_ABSENT,     /* no such key: read it as the field's default */
    LS_NIL,        /* the key is there with nil: also the default for optional fields */
    LS_WRONG_TYPE, /* e.g. a bin where a str belongs, or a str where an int belongs */
    LS_RANGE       /* an int that does not fit (uint64 above INT64_MAX as int64, ...) */
} ls_got;

const char *ls_got_name(ls_got got);
/* The value of key (the last one if a broken peer sent it twice), or NULL. */
const msgpack_object *ls_field(const msgpack_object *map, const char *key);
ls_got ls_get_str(const msgpack_object *map, const char *key, const char **s, size_t *len);
/* A str copied with a final NUL; LS_RANGE if it does not fit in cap bytes. */
ls_got ls_get_strbuf(const msgpack_object *map, const char *key, char *out, size_t cap);
ls_got ls_get_int(const msgpack_object *map, const char *key, int64_t *out);
ls_got ls_get_uint(const msgpack_object *map, const char *key, uint64_t *out);
ls_got ls_get_bool(const msgpack_object *map, const char *key, bool *out);
ls_got ls_get_array(const msgpack_object *map, const char *key, const msgpack_object_array **out);
ls_got ls_get_map(const msgpack_object *map, const char *key, const msgpack_object **out);

/* -- cards and turns --------------------------------------------------------- */

typedef char ls_card[3]; /* "AS", "TD", "QH": rank then suit, NUL-terminated */

typedef struct {
    int n;
    ls_card c[LS_MAX_CARDS];
} ls_cards;

int ls_card_value(const char *card); /* Ace 1, 2-9, T J Q K 10; -1 if not a card */
int ls_card_rank(const char *card);  /* Ace 1, 2-9, T 10, J 11, Q 12, K 13; -1 if not a card */
int ls_cards_total(const ls_cards *cards);
/* An array of card strings into *out: LS_OK, or why not. */
ls_got ls_get_cards(const msgpack_object *map, const char *key, ls_cards *out);

/* What a mover needs: from a "turn" (the mover's copy) or a "state"'s "match" map. */
typedef struct {
    int64_t round, turn, time_ms;
    ls_cards hand, open;
    int nlegal;
    ls_cards legal[LS_MAX_GROUPS];
    bool can_declare, can_draw;
} ls_turn;

/* 0, or -1 with *why (a field missing or of the wrong type). */
int ls_read_turn(const msgpack_object *map, ls_turn *out, char *why, size_t why_size);

/* -- writing frames: one encoder per client message ---------------------------- */

/* An "id": absent, or any 64-bit integer, signed or unsigned (echoed as sent). */
typedef struct {
    enum { LS_ID_NONE, LS_ID_INT, LS_ID_UINT } kind;
    int64_t i;
    uint64_t u;
} ls_id;
#define LS_NO_ID ((ls_id){LS_ID_NONE, 0, 0})
#define LS_ID(n) ((ls_id){LS_ID_INT, (int64_t)(n), 0})
#define LS_UID(n) ((ls_id){LS_ID_UINT, 0, (uint64_t)(n)})

/* Optional fields: NULL (or false, or has_... false) leaves them out. */
typedef struct {
    const int *protocol;
    size_t nprotocol;
    const char *name, *client, *token;
    bool bot;
    ls_id id;
} ls_hello;

typedef struct {
    const char *name;
    enum { LS_RULE_INT, LS_RULE_BOOL, LS_RULE_NIL } kind;
    int64_t value; /* the int, or 0/1 for a bool */
} ls_rule;

typedef struct {
    const char *name, *password;
    int seats; /* 0: the default, 4 */
    const ls_rule *rules;
    size_t nrules;
    ls_id id;
    bool rematch; /* true: the table plays again by itself when only bots sit at it */
} ls_create;

typedef struct {
    const char *table, *password;
    bool watch;
    ls_id id;
} ls_join;

/* A move: round and turn copied from the turn it answers (has_stamp false: none). */
typedef struct {
    const ls_cards *discard;
    const char *take; /* an open card, or "deck" */
    ls_id id;
    bool has_stamp;
    int64_t round, turn;
} ls_play;

typedef struct {
    ls_id id;
    bool has_stamp;
    int64_t round, turn;
} ls_declare;

/* A frame being built; after an encoder, data/size is the whole frame. */
typedef struct {
    msgpack_sbuffer buf;
    msgpack_packer pk;
} ls_out;

void ls_out_init(ls_out *o);
void ls_out_free(ls_out *o);
const char *ls_out_data(const ls_out *o);
size_t ls_out_size(const ls_out *o);

void ls_encode_hello(ls_out *o, const ls_hello *m);
void ls_encode_ping(ls_out *o, ls_id id);
void ls_encode_tables(ls_out *o, ls_id id);
void ls_encode_create(ls_out *o, const ls_create *m);
void ls_encode_join(ls_out *o, const ls_join *m);
void ls_encode_leave(ls_out *o, ls_id id);
void ls_encode_add_bot(ls_out *o, const char *level, ls_id id); /* level NULL: "greedy" */
void ls_encode_start(ls_out *o, ls_id id);
void ls_encode_chat(ls_out *o, const char *text, ls_id id);
void ls_encode_state(ls_out *o, ls_id id);
void ls_encode_play(ls_out *o, const ls_play *m);
void ls_encode_declare(ls_out *o, const ls_declare *m);

/* -- stdio -------------------------------------------------------------------- */

/* Keep a private copy of fd 1 for frames and point fd 1 at stderr, so a stray
 * printf cannot break the stream; ignore SIGPIPE (a closed pipe is an error
 * from write, not a death). Returns the frames' fd, or -1. */
int ls_stdio_claim(void);
/* Write all n bytes (retrying short writes and EINTR). 0, or -1 (errno). */
int ls_write_all(int fd, const char *data, size_t n);

#endif
