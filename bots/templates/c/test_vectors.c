/* The protocol code against the test vectors that ship with leastscore:
 *
 *   ./test_vectors "$(leastscore frame vectors)/messages.txt"
 *
 * Every frame is read whole, byte by byte, in odd chunks and all in one read;
 * every client message our encoders make is byte for byte the vector's; the
 * typed getters tell str from bin, uint64 from int64 and nil from absent.
 */
#include "leastscore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char from[8], name[64];
    char *frame;
    size_t size;
} vector;

static vector vectors[256];
static int nvectors, failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

static int load(const char *path) {
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    static char line[1 << 17];
    while (fgets(line, sizeof line, f) != NULL && nvectors < 256) {
        if (line[0] == '#' || line[0] == '\n') continue;
        vector *v = &vectors[nvectors];
        char *hex = malloc(strlen(line));
        if (hex == NULL || sscanf(line, "%7s %63s %s", v->from, v->name, hex) != 3) {
            free(hex);
            continue;
        }
        v->size = strlen(hex) / 2;
        v->frame = malloc(v->size);
        for (size_t i = 0; v->frame != NULL && i < v->size; i++) {
            unsigned byte;
            sscanf(hex + 2 * i, "%2x", &byte);
            v->frame[i] = (char)byte;
        }
        free(hex);
        nvectors++;
    }
    fclose(f);
    return nvectors > 0 ? 0 : -1;
}

static const vector *find(const char *name) {
    for (int i = 0; i < nvectors; i++)
        if (strcmp(vectors[i].name, name) == 0) return &vectors[i];
    fprintf(stderr, "FAIL: no vector %s\n", name);
    failures++;
    return NULL;
}

/* A vector's name is its type, or its type and "_" and what it shows. */
static bool named_for(const char *name, const char *type) {
    size_t n = strlen(type);
    return n > 0 && strncmp(name, type, n) == 0 && (name[n] == '\0' || name[n] == '_');
}

/* Feed `size` bytes in chunks of `step` (0: all at once); count whole messages. */
static int read_in_chunks(const char *data, size_t size, size_t step, const char *expect_name) {
    ls_reader r;
    ls_reader_init(&r, LS_SERVER_FRAME_LIMIT);
    int count = 0;
    for (size_t at = 0; at < size;) {
        size_t n = step == 0 || size - at < step ? size - at : step;
        ls_reader_feed(&r, data + at, n);
        at += n;
        ls_message m;
        char why[160];
        int got;
        while ((got = ls_reader_next(&r, &m, why, sizeof why)) == 1) {
            if (expect_name != NULL)
                CHECK(named_for(expect_name, m.type), "%s read as type %s", expect_name, m.type);
            count++;
            ls_message_free(&m);
        }
        CHECK(got == 0, "%s: %s", expect_name ? expect_name : "all", why);
    }
    CHECK(r.len == 0, "%zu bytes left over", r.len);
    ls_reader_free(&r);
    return count;
}

static void test_reading(void) {
    size_t total = 0;
    for (int i = 0; i < nvectors; i++) {
        const vector *v = &vectors[i];
        CHECK(read_in_chunks(v->frame, v->size, 0, v->name) == 1, "%s whole", v->name);
        CHECK(read_in_chunks(v->frame, v->size, 1, v->name) == 1, "%s byte by byte", v->name);
        CHECK(read_in_chunks(v->frame, v->size, 7, v->name) == 1, "%s in 7s", v->name);
        total += v->size;
    }
    char *all = malloc(total);
    size_t at = 0;
    for (int i = 0; i < nvectors; i++) {
        memcpy(all + at, vectors[i].frame, vectors[i].size);
        at += vectors[i].size;
    }
    CHECK(read_in_chunks(all, total, 0, NULL) == nvectors, "every frame in one read");
    CHECK(read_in_chunks(all, total, 4093, NULL) == nvectors, "every frame in 4093s");
    free(all);
}

/* Bodies a reader must refuse: each is a broken stream. */
static void test_refusals(void) {
    static const struct {
        const char *what;
        const char bytes[16];
        size_t size;
    } broken[] = {
        {"two objects in one frame", "\x00\x00\x00\x02\x80\x80", 6},
        {"an array, not a map", "\x00\x00\x00\x02\x91\x01", 6},
        {"not MessagePack", "\x00\x00\x00\x01\xc1", 5},
        {"cut short inside", "\x00\x00\x00\x02\x82\xa4", 6},
        {"over the limit", "\x01\x00\x00\x01", 4},
    };
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        ls_reader r;
        ls_reader_init(&r, LS_SERVER_FRAME_LIMIT);
        ls_reader_feed(&r, broken[i].bytes, broken[i].size);
        ls_message m;
        char why[160] = "";
        CHECK(ls_reader_next(&r, &m, why, sizeof why) == -1, "%s was read", broken[i].what);
        ls_reader_free(&r);
    }
}

static ls_message read_one(const vector *v) {
    ls_reader r;
    ls_message m;
    char why[160];
    ls_reader_init(&r, LS_SERVER_FRAME_LIMIT);
    ls_reader_feed(&r, v->frame, v->size);
    if (ls_reader_next(&r, &m, why, sizeof why) != 1) {
        fprintf(stderr, "FAIL: %s: %s\n", v->name, why);
        exit(1);
    }
    ls_reader_free(&r);
    return m;
}

static void test_getters(void) {
    const vector *v;
    ls_message m;
    uint64_t u;
    int64_t i;
    bool b;
    if ((v = find("ok_id_uint64_max")) != NULL) {
        m = read_one(v);
        CHECK(ls_get_uint(&m.map, "id", &u) == LS_OK && u == UINT64_MAX, "uint64 id");
        CHECK(ls_get_int(&m.map, "id", &i) == LS_RANGE, "uint64 id as int64");
        ls_message_free(&m);
    }
    if ((v = find("ok_id_int64_min")) != NULL) {
        m = read_one(v);
        CHECK(ls_get_int(&m.map, "id", &i) == LS_OK && i == INT64_MIN, "int64 id");
        CHECK(ls_get_uint(&m.map, "id", &u) == LS_RANGE, "negative id as uint64");
        ls_message_free(&m);
    }
    if ((v = find("played")) != NULL) {
        m = read_one(v);
        const char *s;
        size_t n;
        CHECK(ls_get_str(&m.map, "took", &s, &n) == LS_NIL, "took: nil");
        CHECK(ls_get_str(&m.map, "drawn", &s, &n) == LS_ABSENT, "drawn: absent");
        CHECK(ls_get_bool(&m.map, "auto", &b) == LS_ABSENT, "auto: absent (false)");
        ls_cards discard;
        CHECK(ls_get_cards(&m.map, "discard", &discard) == LS_OK && discard.n == 1, "discard");
        ls_message_free(&m);
    }
    if ((v = find("match_start")) != NULL) {
        m = read_one(v);
        const msgpack_object *rules;
        CHECK(ls_get_map(&m.map, "rules", &rules) == LS_OK, "rules");
        CHECK(ls_get_int(rules, "declare_limit", &i) == LS_NIL, "declare_limit: nil, no limit");
        CHECK(ls_get_int(rules, "threshold", &i) == LS_OK && i == 100, "threshold");
        ls_message_free(&m);
    }
    if ((v = find("turn_mover")) != NULL) {
        m = read_one(v);
        ls_turn turn;
        char why[160];
        CHECK(ls_read_turn(&m.map, &turn, why, sizeof why) == 0, "turn_mover: %s", why);
        CHECK(turn.nlegal >= turn.hand.n && turn.hand.n > 0, "every single card is legal");
        ls_message_free(&m);
    }
    if ((v = find("state_full")) != NULL) {
        m = read_one(v);
        const msgpack_object *match, *table, *rules;
        ls_turn turn;
        char why[160];
        CHECK(ls_get_map(&m.map, "match", &match) == LS_OK, "state.match");
        CHECK(ls_read_turn(match, &turn, why, sizeof why) == 0, "state.match: %s", why);
        CHECK(ls_get_map(&m.map, "table", &table) == LS_OK &&
                  ls_get_map(table, "rules", &rules) == LS_OK,
              "state.table.rules");
        CHECK(ls_get_bool(rules, "runs_same_suit", &b) == LS_OK && b, "runs_same_suit");
        ls_message_free(&m);
    }
    /* A bin where a string belongs is not a string (the server says bad_message). */
    static const char bin_name[] = "\x00\x00\x00\x0e\x82\xa4type\xa2ok\xa1x\xc4\x01z";
    vector binv = {"server", "ok", (char *)bin_name, sizeof bin_name - 1};
    m = read_one(&binv);
    const char *s;
    size_t n;
    CHECK(ls_get_str(&m.map, "x", &s, &n) == LS_WRONG_TYPE, "a bin read as a str");
    ls_message_free(&m);
    /* A key twice: the last one counts. */
    static const char twice[] = "\x00\x00\x00\x11\x83\xa4type\xa2ok\xa2id\x01\xa2id\x02";
    vector twicev = {"server", "ok", (char *)twice, sizeof twice - 1};
    m = read_one(&twicev);
    CHECK(ls_get_int(&m.map, "id", &i) == LS_OK && i == 2, "the last id counts");
    ls_message_free(&m);
}

/* -- every client message, byte for byte ----------------------------------------- */

static void same_bytes(const char *name, ls_out *o) {
    const vector *v = find(name);
    if (v == NULL) return;
    bool same = v->size == ls_out_size(o) && memcmp(v->frame, ls_out_data(o), v->size) == 0;
    CHECK(same, "%s: our %zu bytes differ from the vector's %zu", name, ls_out_size(o), v->size);
}

static void test_encoders(void) {
    ls_out o;
    ls_out_init(&o);
    static const int one[] = {1};
    ls_hello hello = {.protocol = one, .nprotocol = 1};
    ls_encode_hello(&o, &hello);
    same_bytes("hello", &o);
    ls_hello full = {one, 1, "alice", "mybot/0.3", "k3Jq9xw2", true, LS_ID(1)};
    ls_encode_hello(&o, &full);
    same_bytes("hello_full", &o);
    ls_encode_ping(&o, LS_NO_ID);
    same_bytes("ping", &o);
    ls_encode_ping(&o, LS_ID(7));
    same_bytes("ping_id", &o);
    ls_encode_ping(&o, LS_UID(UINT64_MAX));
    same_bytes("ping_id_uint64_max", &o);
    ls_encode_ping(&o, LS_ID(INT64_MIN));
    same_bytes("ping_id_int64_min", &o);
    ls_encode_tables(&o, LS_NO_ID);
    same_bytes("tables", &o);
    ls_encode_tables(&o, LS_ID(2));
    same_bytes("tables_id", &o);
    ls_create create = {0};
    ls_encode_create(&o, &create);
    same_bytes("create", &o);
    static const ls_rule rules[] = {
        {"threshold", LS_RULE_INT, 50},
        {"runs_same_suit", LS_RULE_BOOL, 1},
        {"declare_limit", LS_RULE_INT, 7},
    };
    ls_create create_full = {"eve's", "s3cret", 3, rules, 3, LS_ID(3), false};
    ls_encode_create(&o, &create_full);
    same_bytes("create_full", &o);
    ls_create create_rematch = {.seats = 2, .id = LS_ID(4), .rematch = true};
    ls_encode_create(&o, &create_rematch);
    same_bytes("create_rematch", &o);
    ls_join join = {.table = "t1a2b3"};
    ls_encode_join(&o, &join);
    same_bytes("join", &o);
    ls_join join_full = {"t1a2b3", "s3cret", true, LS_ID(4)};
    ls_encode_join(&o, &join_full);
    same_bytes("join_full", &o);
    ls_encode_leave(&o, LS_NO_ID);
    same_bytes("leave", &o);
    ls_encode_leave(&o, LS_ID(5));
    same_bytes("leave_id", &o);
    ls_encode_add_bot(&o, NULL, LS_NO_ID);
    same_bytes("add_bot", &o);
    ls_encode_add_bot(&o, "expert:samples=24", LS_ID(6));
    same_bytes("add_bot_full", &o);
    ls_encode_start(&o, LS_NO_ID);
    same_bytes("start", &o);
    ls_encode_start(&o, LS_ID(7));
    same_bytes("start_id", &o);
    ls_encode_chat(&o, "gg", LS_NO_ID);
    same_bytes("chat", &o);
    ls_encode_chat(&o, "h\xc3\xa9llo \xe2\x99\xa0", LS_ID(8));
    same_bytes("chat_id", &o);
    ls_encode_state(&o, LS_NO_ID);
    same_bytes("state", &o);
    ls_encode_state(&o, LS_ID(9));
    same_bytes("state_id", &o);
    ls_cards seven = {1, {"7H"}};
    ls_play play = {&seven, "deck", LS_NO_ID, false, 0, 0};
    ls_encode_play(&o, &play);
    same_bytes("play", &o);
    ls_cards sevens = {2, {"7D", "7H"}};
    ls_play play_full = {&sevens, "JC", LS_ID(10), true, 2, 5};
    ls_encode_play(&o, &play_full);
    same_bytes("play_full", &o);
    ls_declare declare = {LS_NO_ID, false, 0, 0};
    ls_encode_declare(&o, &declare);
    same_bytes("declare", &o);
    ls_declare declare_full = {LS_ID(11), true, 2, 6};
    ls_encode_declare(&o, &declare_full);
    same_bytes("declare_full", &o);
    ls_out_free(&o);
    /* Each client vector but the nil ones (nobody needs to send nil) is made above:
     * a new client message in the vectors fails here until it has an encoder. */
    static const char *const made[] = {
        "hello", "hello_full", "ping", "ping_id", "ping_id_uint64_max", "ping_id_int64_min",
        "tables", "tables_id", "create", "create_full", "create_rematch", "join", "join_full", "leave",
        "leave_id", "add_bot", "add_bot_full", "start", "start_id", "chat", "chat_id",
        "state", "state_id", "play", "play_full", "declare", "declare_full",
    };
    for (int i = 0; i < nvectors; i++) {
        const vector *v = &vectors[i];
        if (strcmp(v->from, "client") != 0 || strstr(v->name, "_nil") != NULL) continue;
        bool covered = false;
        for (size_t k = 0; k < sizeof made / sizeof made[0]; k++)
            covered = covered || strcmp(made[k], v->name) == 0;
        CHECK(covered, "no encoder is checked against the client vector %s", v->name);
    }
}

int main(int argc, char **argv) {
    if (argc != 2 || load(argv[1]) != 0) {
        fprintf(stderr, "usage: %s PATH/messages.txt   (leastscore frame vectors: the directory)\n",
                argv[0]);
        return 2;
    }
    test_reading();
    test_refusals();
    test_getters();
    test_encoders();
    for (int i = 0; i < nvectors; i++) free(vectors[i].frame);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("all checks passed on %d vectors\n", nvectors);
    return 0;
}
