/* Least Score protocol v1 for bots in C: frames, getters, encoders, stdio. */
#include "leastscore.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* -- reading frames ---------------------------------------------------------- */

void ls_reader_init(ls_reader *r, size_t limit) {
    memset(r, 0, sizeof *r);
    r->limit = limit;
}

void ls_reader_free(ls_reader *r) {
    free(r->buf);
    memset(r, 0, sizeof *r);
}

int ls_reader_feed(ls_reader *r, const char *data, size_t n) {
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 65536;
        while (cap < r->len + n) cap *= 2;
        char *grown = realloc(r->buf, cap);
        if (grown == NULL) return -1;
        r->buf = grown;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, data, n);
    r->len += n;
    return 0;
}

static uint32_t be32(const char *p) {
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | (uint32_t)u[3];
}

/* Parse one body into *m; 0, or -1 with *why. */
static int parse_body(ls_message *m, char *why, size_t why_size) {
    size_t off = 0;
    msgpack_unpacked_init(&m->unpacked);
    msgpack_unpack_return ret = msgpack_unpack_next(&m->unpacked, m->body, m->size, &off);
    if (ret != MSGPACK_UNPACK_SUCCESS) {
        snprintf(why, why_size, "a frame of %zu bytes is not valid MessagePack", m->size);
        return -1;
    }
    if (off != m->size) {
        snprintf(why, why_size, "a frame holds %zu bytes after its map: one object per frame",
                 m->size - off);
        return -1;
    }
    if (m->unpacked.data.type != MSGPACK_OBJECT_MAP) {
        snprintf(why, why_size, "a frame holds a MessagePack type %d, not a map",
                 (int)m->unpacked.data.type);
        return -1;
    }
    m->map = m->unpacked.data;
    if (ls_get_strbuf(&m->map, "type", m->type, sizeof m->type) != LS_OK) {
        /* Not a message we could know: keep it with an empty type (it gets ignored). */
        m->type[0] = '\0';
    }
    return 0;
}

int ls_reader_next(ls_reader *r, ls_message *m, char *why, size_t why_size) {
    memset(m, 0, sizeof *m);
    if (r->len < 4) return 0;
    uint32_t size = be32(r->buf);
    if (size > r->limit) {
        snprintf(why, why_size, "a frame of %u bytes is over the limit of %zu", size, r->limit);
        return -1;
    }
    if (r->len - 4 < size) return 0;
    m->body = malloc(size ? size : 1);
    if (m->body == NULL) {
        snprintf(why, why_size, "out of memory for a frame of %u bytes", size);
        return -1;
    }
    memcpy(m->body, r->buf + 4, size);
    m->size = size;
    r->len -= 4 + (size_t)size;
    memmove(r->buf, r->buf + 4 + size, r->len);
    if (parse_body(m, why, why_size) != 0) {
        ls_message_free(m);
        return -1;
    }
    return 1;
}

void ls_message_free(ls_message *m) {
    if (m->body != NULL) msgpack_unpacked_destroy(&m->unpacked);
    free(m->body);
    memset(m, 0, sizeof *m);
}

/* -- typed getters ------------------------------------------------------------ */

const char *ls_got_name(ls_got got) {
    switch (got) {
    case LS_OK: return "ok";
    case LS_ABSENT: return "absent";
    case LS_NIL: return "nil";
    case LS_WRONG_TYPE: return "of the wrong type";
    case LS_RANGE: return "out of range";
    }
    return "?";
}

const msgpack_object *ls_field(const msgpack_object *map, const char *key) {
    if (map == NULL || map->type != MSGPACK_OBJECT_MAP) return NULL;
    size_t n = strlen(key);
    const msgpack_object *found = NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
            memcmp(k->via.str.ptr, key, n) == 0) {
            found = &map->via.map.ptr[i].val; /* keep looking: the last one counts */
        }
    }
    return found;
}

static ls_got lookup(const msgpack_object *map, const char *key, const msgpack_object **out) {
    *out = ls_field(map, key);
    if (*out == NULL) return LS_ABSENT;
    if ((*out)->type == MSGPACK_OBJECT_NIL) return LS_NIL;
    return LS_OK;
}

ls_got ls_get_str(const msgpack_object *map, const char *key, const char **s, size_t *len) {
    const msgpack_object *v;
    ls_got got = lookup(map, key, &v);
    if (got != LS_OK) return got;
    if (v->type != MSGPACK_OBJECT_STR) return LS_WRONG_TYPE; /* a bin is not a string */
    *s = v->via.str.ptr;
    *len = v->via.str.size;
    return LS_OK;
}

ls_got ls_get_strbuf(const msgpack_object *map, const char *key, char *out, size_t cap) {
    const char *s;
    size_t len;
    ls_got got = ls_get_str(map, key, &s, &len);
    if (got != LS_OK) return got;
    if (len + 1 > cap) return LS_RANGE;
    memcpy(out, s, len);
    out[len] = '\0';
    return LS_OK;
}

ls_got ls_get_int(const msgpack_object *map, const char *key, int64_t *out) {
    const msgpack_object *v;
    ls_got got = lookup(map, key, &v);
    if (got != LS_OK) return got;
    if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *out = v->via.i64;
        return LS_OK;
    }
    if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER) return LS_WRONG_TYPE;
    if (v->via.u64 > (uint64_t)INT64_MAX) return LS_RANGE;
    *out = (int64_t)v->via.u64;
    return LS_OK;
}

ls_got ls_get_uint(const msgpack_object *map, const char *key, uint64_t *out) {
    const msgpack_object *v;
    ls_got got = lookup(map, key, &v);
    if (got != LS_OK) return got;
    if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) return LS_RANGE;
    if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER) return LS_WRONG_TYPE;
    *out = v->via.u64;
    return LS_OK;
}

ls_got ls_get_bool(const msgpack_object *map, const char *key, bool *out) {
    const msgpack_object *v;
    ls_got got = lookup(map, key, &v);
    if (got != LS_OK) return got;
    if (v->type != MSGPACK_OBJECT_BOOLEAN) return LS_WRONG_TYPE;
    *out = v->via.boolean;
    return LS_OK;
}

ls_got ls_get_array(const msgpack_object *map, const char *key, const msgpack_object_array **out) {
    const msgpack_object *v;
    ls_got got = lookup(map, key, &v);
    if (got != LS_OK) return got;
    if (v->type != MSGPACK_OBJECT_ARRAY) return LS_WRONG_TYPE;
    *out = &v->via.array;
    return LS_OK;
}

ls_got ls_get_map(const msgpack_object *map, const char *key, const msgpack_object **out) {
    const msgpack_object *v;
    ls_got got = lookup(map, key, &v);
    if (got != LS_OK) return got;
    if (v->type != MSGPACK_OBJECT_MAP) return LS_WRONG_TYPE;
    *out = v;
    return LS_OK;
}

/* -- cards and turns --------------------------------------------------------- */

int ls_card_rank(const char *card) {
    static const char ranks[] = "A23456789TJQK";
    if (card == NULL || card[0] == '\0' || card[1] == '\0' || strchr("CDHS", card[1]) == NULL)
        return -1;
    const char *r = strchr(ranks, card[0]);
    return r == NULL ? -1 : (int)(r - ranks) + 1;
}

int ls_card_value(const char *card) {
    int rank = ls_card_rank(card);
    return rank > 10 ? 10 : rank;
}

int ls_cards_total(const ls_cards *cards) {
    int total = 0;
    for (int i = 0; i < cards->n; i++) total += ls_card_value(cards->c[i]);
    return total;
}

static ls_got cards_of(const msgpack_object_array *a, ls_cards *out) {
    if (a->size > LS_MAX_CARDS) return LS_RANGE;
    out->n = 0;
    for (uint32_t i = 0; i < a->size; i++) {
        const msgpack_object *v = &a->ptr[i];
        if (v->type != MSGPACK_OBJECT_STR || v->via.str.size != 2) return LS_WRONG_TYPE;
        memcpy(out->c[out->n], v->via.str.ptr, 2);
        out->c[out->n][2] = '\0';
        if (ls_card_value(out->c[out->n]) < 0) return LS_WRONG_TYPE;
        out->n++;
    }
    return LS_OK;
}

ls_got ls_get_cards(const msgpack_object *map, const char *key, ls_cards *out) {
    const msgpack_object_array *a;
    ls_got got = ls_get_array(map, key, &a);
    return got != LS_OK ? got : cards_of(a, out);
}

int ls_read_turn(const msgpack_object *map, ls_turn *out, char *why, size_t why_size) {
    static const char *const ints[] = {"round", "turn", "time_ms"};
    int64_t *int_fields[] = {&out->round, &out->turn, &out->time_ms};
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 3; i++) {
        ls_got got = ls_get_int(map, ints[i], int_fields[i]);
        if (got != LS_OK) {
            snprintf(why, why_size, "its %s is %s", ints[i], ls_got_name(got));
            return -1;
        }
    }
    static const char *const bools[] = {"can_declare", "can_draw"};
    bool *bool_fields[] = {&out->can_declare, &out->can_draw};
    for (int i = 0; i < 2; i++) {
        ls_got got = ls_get_bool(map, bools[i], bool_fields[i]);
        if (got != LS_OK) {
            snprintf(why, why_size, "its %s is %s", bools[i], ls_got_name(got));
            return -1;
        }
    }
    static const char *const hands[] = {"hand", "open"};
    ls_cards *card_fields[] = {&out->hand, &out->open};
    for (int i = 0; i < 2; i++) {
        ls_got got = ls_get_cards(map, hands[i], card_fields[i]);
        if (got != LS_OK) {
            snprintf(why, why_size, "its %s is %s", hands[i], ls_got_name(got));
            return -1;
        }
    }
    const msgpack_object_array *legal;
    ls_got got = ls_get_array(map, "legal", &legal);
    if (got == LS_OK && legal->size > LS_MAX_GROUPS) got = LS_RANGE;
    for (uint32_t i = 0; got == LS_OK && i < legal->size; i++) {
        if (legal->ptr[i].type != MSGPACK_OBJECT_ARRAY) got = LS_WRONG_TYPE;
        else got = cards_of(&legal->ptr[i].via.array, &out->legal[i]);
        out->nlegal = (int)i + 1;
    }
    if (got != LS_OK) {
        snprintf(why, why_size, "its legal is %s", ls_got_name(got));
        return -1;
    }
    return 0;
}

/* -- writing frames ----------------------------------------------------------- */

void ls_out_init(ls_out *o) {
    msgpack_sbuffer_init(&o->buf);
    msgpack_packer_init(&o->pk, &o->buf, msgpack_sbuffer_write);
}

void ls_out_free(ls_out *o) { msgpack_sbuffer_destroy(&o->buf); }

const char *ls_out_data(const ls_out *o) { return o->buf.data; }

size_t ls_out_size(const ls_out *o) { return o->buf.size; }

/* Start a frame: room for the length, then a map of n pairs whose first is "type". */
static void begin(ls_out *o, const char *type, size_t pairs) {
    static const char room[4] = {0, 0, 0, 0};
    msgpack_sbuffer_clear(&o->buf);
    msgpack_sbuffer_write(&o->buf, room, 4);
    msgpack_pack_map(&o->pk, pairs + 1);
    msgpack_pack_str_with_body(&o->pk, "type", 4);
    msgpack_pack_str_with_body(&o->pk, type, strlen(type));
}

/* Write the body's length into the room left for it. */
static void end(ls_out *o) {
    size_t n = o->buf.size - 4;
    unsigned char *p = (unsigned char *)o->buf.data;
    p[0] = (unsigned char)(n >> 24);
    p[1] = (unsigned char)(n >> 16);
    p[2] = (unsigned char)(n >> 8);
    p[3] = (unsigned char)n;
}

static void key(ls_out *o, const char *k) { msgpack_pack_str_with_body(&o->pk, k, strlen(k)); }

static void str_field(ls_out *o, const char *k, const char *v) {
    key(o, k);
    msgpack_pack_str_with_body(&o->pk, v, strlen(v));
}

static void int_field(ls_out *o, const char *k, int64_t v) {
    key(o, k);
    msgpack_pack_int64(&o->pk, v);
}

static void bool_field(ls_out *o, const char *k, bool v) {
    key(o, k);
    if (v) msgpack_pack_true(&o->pk);
    else msgpack_pack_false(&o->pk);
}

static size_t has_id(ls_id id) { return id.kind != LS_ID_NONE; }

static void id_field(ls_out *o, ls_id id) {
    if (id.kind == LS_ID_NONE) return;
    key(o, "id");
    if (id.kind == LS_ID_UINT) msgpack_pack_uint64(&o->pk, id.u);
    else msgpack_pack_int64(&o->pk, id.i);
}

static bool given(const char *s) { return s != NULL && s[0] != '\0'; }

static void cards_value(ls_out *o, const ls_cards *cards) {
    msgpack_pack_array(&o->pk, (size_t)cards->n);
    for (int i = 0; i < cards->n; i++) msgpack_pack_str_with_body(&o->pk, cards->c[i], 2);
}

/* The messages without fields of their own but an id. */
static void bare(ls_out *o, const char *type, ls_id id) {
    begin(o, type, has_id(id));
    id_field(o, id);
    end(o);
}

void ls_encode_ping(ls_out *o, ls_id id) { bare(o, "ping", id); }
void ls_encode_tables(ls_out *o, ls_id id) { bare(o, "tables", id); }
void ls_encode_leave(ls_out *o, ls_id id) { bare(o, "leave", id); }
void ls_encode_start(ls_out *o, ls_id id) { bare(o, "start", id); }
void ls_encode_state(ls_out *o, ls_id id) { bare(o, "state", id); }

/* Fields go in the order of the protocol's definitions, defaults left out, as the
 * test vectors have them (any order is fine on the wire). */
void ls_encode_hello(ls_out *o, const ls_hello *m) {
    begin(o, "hello", 1 + given(m->name) + m->bot + given(m->client) + (m->token != NULL) +
                          has_id(m->id));
    key(o, "protocol");
    msgpack_pack_array(&o->pk, m->nprotocol);
    for (size_t i = 0; i < m->nprotocol; i++) msgpack_pack_int(&o->pk, m->protocol[i]);
    if (given(m->name)) str_field(o, "name", m->name);
    if (m->bot) bool_field(o, "bot", true);
    if (given(m->client)) str_field(o, "client", m->client);
    if (m->token != NULL) str_field(o, "token", m->token);
    id_field(o, m->id);
    end(o);
}

void ls_encode_create(ls_out *o, const ls_create *m) {
    bool seats = m->seats != 0 && m->seats != 4;
    begin(o, "create", given(m->name) + seats + (m->nrules > 0) + (m->password != NULL) +
                           has_id(m->id) + m->rematch);
    if (given(m->name)) str_field(o, "name", m->name);
    if (seats) int_field(o, "seats", m->seats);
    if (m->nrules > 0) {
        key(o, "rules");
        msgpack_pack_map(&o->pk, m->nrules);
        for (size_t i = 0; i < m->nrules; i++) {
            key(o, m->rules[i].name);
            if (m->rules[i].kind == LS_RULE_NIL) msgpack_pack_nil(&o->pk);
            else if (m->rules[i].kind == LS_RULE_BOOL && m->rules[i].value) msgpack_pack_true(&o->pk);
            else if (m->rules[i].kind == LS_RULE_BOOL) msgpack_pack_false(&o->pk);
            else msgpack_pack_int64(&o->pk, m->rules[i].value);
        }
    }
    if (m->password != NULL) str_field(o, "password", m->password);
    id_field(o, m->id);
    if (m->rematch) bool_field(o, "rematch", true);
    end(o);
}

void ls_encode_join(ls_out *o, const ls_join *m) {
    begin(o, "join", 1 + m->watch + (m->password != NULL) + has_id(m->id));
    str_field(o, "table", m->table);
    if (m->watch) bool_field(o, "watch", true);
    if (m->password != NULL) str_field(o, "password", m->password);
    id_field(o, m->id);
    end(o);
}

void ls_encode_add_bot(ls_out *o, const char *level, ls_id id) {
    bool named = given(level) && strcmp(level, "greedy") != 0;
    begin(o, "add_bot", named + has_id(id));
    if (named) str_field(o, "level", level);
    id_field(o, id);
    end(o);
}

void ls_encode_chat(ls_out *o, const char *text, ls_id id) {
    begin(o, "chat", 1 + has_id(id));
    str_field(o, "text", text);
    id_field(o, id);
    end(o);
}

void ls_encode_play(ls_out *o, const ls_play *m) {
    begin(o, "play", 2 + has_id(m->id) + 2 * m->has_stamp);
    key(o, "discard");
    cards_value(o, m->discard);
    str_field(o, "take", m->take);
    id_field(o, m->id);
    if (m->has_stamp) {
        int_field(o, "round", m->round);
        int_field(o, "turn", m->turn);
    }
    end(o);
}

void ls_encode_declare(ls_out *o, const ls_declare *m) {
    begin(o, "declare", has_id(m->id) + 2 * m->has_stamp);
    id_field(o, m->id);
    if (m->has_stamp) {
        int_field(o, "round", m->round);
        int_field(o, "turn", m->turn);
    }
    end(o);
}

/* -- stdio -------------------------------------------------------------------- */

int ls_stdio_claim(void) {
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    if (sigaction(SIGPIPE, &ignore, NULL) != 0) return -1;
    fflush(stdout);
    int frames = dup(STDOUT_FILENO);
    if (frames < 0) return -1;
    if (fcntl(frames, F_SETFD, FD_CLOEXEC) != 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        close(frames);
        return -1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* now stderr's: a printf shows up there, in time */
    return frames;
}

int ls_write_all(int fd, const char *data, size_t n) {
    while (n > 0) {
        ssize_t done = write(fd, data, n);
        if (done < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        data += done;
        n -= (size_t)done;
    }
    return 0;
}
