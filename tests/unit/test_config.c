/* Unit tests for preload/hp_config: the HEAPPROF=[mode][,key=value...]
 * parser. Checks the defaults, every key at good and boundary values, and
 * that each bad form is refused with a message that names the offending
 * token and the valid choices. */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/hp_config.h"

#define VALID_KEYS_TEXT "interval=SECONDS, depth=N, length=N, unwind=libunwind|fp|libunwind-raw, frames=function|call, out=PATH"

static void assert_defaults(const hp_config *c)
{
    cr_assert_eq(c->mode, HP_MODE_CC);
    cr_assert_eq(c->interval, 0.1);
    cr_assert_eq(c->depth, 8);
    cr_assert_eq(c->label_length, 25);
    cr_assert_eq(c->unwind, HP_UNWIND_LIBUNWIND);
    cr_assert_str_eq(c->out, "");
    cr_assert_eq(c->help, 0);
}

/* Parse `s`, which must succeed with an empty message. */
static hp_config parse_ok(const char *s)
{
    hp_config c;
    char err[512];
    memset(err, 'x', sizeof err);
    int rc = hp_config_parse(s, &c, err, sizeof err);
    cr_assert_eq(rc, 0, "HEAPPROF=%s refused: %s", s ? s : "(null)", err);
    cr_assert_str_eq(err, "", "HEAPPROF=%s: message on success: %s", s ? s : "(null)", err);
    return c;
}

/* Parse `s`, which must fail; the message must contain every string in the
 * NULL-terminated list. */
static void parse_bad(const char *s, ...)
{
    hp_config c;
    char err[512] = "";
    int rc = hp_config_parse(s, &c, err, sizeof err);
    cr_assert_eq(rc, -1, "HEAPPROF=%s accepted", s);
    cr_assert_neq(err[0], 0, "HEAPPROF=%s: empty message", s);
    cr_assert_null(strchr(err, '\n'), "message is one line: %s", err);
    va_list ap;
    va_start(ap, s);
    for (const char *want; (want = va_arg(ap, const char *)) != NULL;)
        cr_assert_not_null(strstr(err, want),
                           "HEAPPROF=%s: message \"%s\" lacks \"%s\"", s, err, want);
    va_end(ap);
}

Test(config, defaults)
{
    hp_config c;
    memset(&c, 0x5a, sizeof c);
    hp_config_defaults(&c);
    assert_defaults(&c);
}

Test(config, null_and_empty_give_defaults)
{
    hp_config c = parse_ok(NULL);
    assert_defaults(&c);
    memset(&c, 0x5a, sizeof c);
    c = parse_ok("");
    assert_defaults(&c);
}

Test(config, modes)
{
    hp_config c = parse_ok("cc");
    assert_defaults(&c);
    c = parse_ok("retainer");
    cr_assert_eq(c.mode, HP_MODE_RETAINER);
    c = parse_ok("ldv");
    cr_assert_eq(c.mode, HP_MODE_LDV);
    c = parse_ok("roots");
    cr_assert_eq(c.mode, HP_MODE_ROOTS);
    cr_assert_eq(c.depth, 8);
    cr_assert_str_eq(hp_mode_name(HP_MODE_CC), "cc");
    cr_assert_str_eq(hp_mode_name(HP_MODE_RETAINER), "retainer");
    cr_assert_str_eq(hp_mode_name(HP_MODE_LDV), "ldv");
    cr_assert_str_eq(hp_mode_name(HP_MODE_ROOTS), "roots");
}

Test(config, help)
{
    hp_config c = parse_ok("help");
    cr_assert_eq(c.help, 1);
    cr_assert_eq(c.mode, HP_MODE_CC);
    c = parse_ok("cc,help");
    cr_assert_eq(c.help, 1);
    const char *h = hp_config_help();
    cr_assert_not_null(h);
    const char *words[] = {"cc", "retainer", "ldv", "roots", "help", "interval=",
                           "depth=", "length=", "unwind=", "libunwind", "fp", "out=",
                           "1-64", "1-1024", "0.1", "25", "(default 8)"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        cr_assert_not_null(strstr(h, words[i]), "help text lacks \"%s\"", words[i]);
    cr_assert_eq(h[strlen(h) - 1], '\n');
}

Test(config, every_key)
{
    hp_config c = parse_ok("cc,interval=2.5,depth=12,length=40,unwind=fp,out=/tmp/run1");
    cr_assert_eq(c.mode, HP_MODE_CC);
    cr_assert_eq(c.interval, 2.5);
    cr_assert_eq(c.depth, 12);
    cr_assert_eq(c.label_length, 40);
    cr_assert_eq(c.unwind, HP_UNWIND_FP);
    cr_assert_str_eq(c.out, "/tmp/run1");
    cr_assert_eq(c.help, 0);
    cr_assert_eq(parse_ok("unwind=libunwind-raw").unwind, HP_UNWIND_LIBUNWIND_RAW);
    cr_assert_eq(parse_ok("unwind=libunwind").unwind, HP_UNWIND_LIBUNWIND);

    /* The mode may be left out; keys in any order. */
    c = parse_ok("out=x.hp,unwind=libunwind,length=7,depth=3,interval=1");
    cr_assert_eq(c.mode, HP_MODE_CC);
    cr_assert_eq(c.interval, 1.0);
    cr_assert_eq(c.depth, 3);
    cr_assert_eq(c.label_length, 7);
    cr_assert_eq(c.unwind, HP_UNWIND_LIBUNWIND);
    cr_assert_str_eq(c.out, "x.hp");

    /* A later value replaces an earlier one. */
    c = parse_ok("depth=3,depth=5");
    cr_assert_eq(c.depth, 5);
}

Test(config, boundaries)
{
    hp_config c = parse_ok("depth=1");
    cr_assert_eq(c.depth, 1);
    c = parse_ok("depth=64");
    cr_assert_eq(c.depth, 64);
    c = parse_ok("length=1");
    cr_assert_eq(c.label_length, 1);
    c = parse_ok("length=1024");
    cr_assert_eq(c.label_length, 1024);
    c = parse_ok("interval=0");
    cr_assert_eq(c.interval, 0.0);
    c = parse_ok("interval=2.5");
    cr_assert_eq(c.interval, 2.5);
    c = parse_ok("interval=0.1");
    cr_assert_eq(c.interval, 0.1);
    c = parse_ok("interval=0.0");
    cr_assert_eq(c.interval, 0.0);
    c = parse_ok("interval=10");
    cr_assert_eq(c.interval, 10.0);
    c = parse_ok("depth=008");
    cr_assert_eq(c.depth, 8);
}

Test(config, out_values)
{
    /* Only the first '=' splits key from value. */
    hp_config c = parse_ok("out=/tmp/a=b");
    cr_assert_str_eq(c.out, "/tmp/a=b");
    c = parse_ok("cc,out=rel/dir/name.hp");
    cr_assert_str_eq(c.out, "rel/dir/name.hp");
    parse_bad("out=", "'out='", "out takes a file path", NULL);
    parse_bad("cc,out=", "'out='", "out takes a file path", NULL);
}

Test(config, unknown_mode)
{
    parse_bad("xyz", "unknown mode 'xyz'", "cc, module, kind, retainer, ldv, roots", "help",
              VALID_KEYS_TEXT, NULL);
    /* Another letter case: the mode meant. */
    parse_bad("CC", "unknown mode 'CC' in HEAPPROF: modes are written in lower case, "
              "HEAPPROF=cc", NULL);
    parse_bad("Retainer,interval=0", "HEAPPROF=retainer", NULL);
    parse_bad("xyz,depth=3", "'xyz'", "cc, module, kind, retainer, ldv, roots", NULL);
}

Test(config, unknown_key)
{
    parse_bad("foo=1", "unknown option 'foo=1'", VALID_KEYS_TEXT, NULL);
    parse_bad("cc,bogus=7", "'bogus=7'", VALID_KEYS_TEXT, NULL);
    parse_bad("cc,Depth=3", "'Depth=3'", VALID_KEYS_TEXT, NULL);
    parse_bad("cc,=3", "'=3'", VALID_KEYS_TEXT, NULL);
}

Test(config, bad_depth)
{
    const char *bad[] = {"depth=0", "depth=65", "depth=abc", "depth=-1", "depth=",
                         "depth=1.5", "depth=+3", "depth=9999999", "depth= 3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char tok[64];
        snprintf(tok, sizeof tok, "'%s'", bad[i]);
        parse_bad(bad[i], tok, "from 1 to 64", NULL);
    }
}

Test(config, bad_length)
{
    const char *bad[] = {"length=0", "length=1025", "length=abc", "length=-1", "length="};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char tok[64];
        snprintf(tok, sizeof tok, "'%s'", bad[i]);
        parse_bad(bad[i], tok, "from 1 to 1024", NULL);
    }
}

Test(config, bad_interval)
{
    const char *bad[] = {"interval=abc", "interval=1e3", "interval=-1", "interval=",
                         "interval=1.2.3", "interval=.", "interval=0x10", "interval=5s"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char tok[64];
        snprintf(tok, sizeof tok, "'%s'", bad[i]);
        parse_bad(bad[i], tok, "interval takes seconds", "0.1", NULL);
    }
}

Test(config, bad_unwind)
{
    parse_bad("unwind=xyz", "'unwind=xyz'", "libunwind, fp or libunwind-raw", NULL);
    parse_bad("cc,unwind=", "'unwind='", "libunwind, fp or libunwind-raw", NULL);
    parse_bad("unwind=FP", "'unwind=FP'", "libunwind, fp or libunwind-raw", NULL);
}

Test(config, commas)
{
    parse_bad("cc,", "trailing comma", "HEAPPROF=mode,key=value", NULL);
    parse_bad("cc,depth=3,", "trailing comma", "HEAPPROF=mode,key=value", NULL);
    parse_bad("cc,,depth=3", "two commas", "HEAPPROF=mode,key=value", NULL);
    parse_bad(",depth=3", "empty option", "HEAPPROF=mode,key=value", NULL);
    parse_bad(",", "empty option", NULL);
}

Test(config, mode_not_first)
{
    parse_bad("depth=3,cc", "'cc'", "not an option", "mode comes first", VALID_KEYS_TEXT,
              NULL);
    parse_bad("cc,ldv", "'ldv'", "not an option", "mode comes first", NULL);
    parse_bad("cc,word", "'word'", "not an option", NULL);
}

Test(config, short_error_buffer_is_terminated)
{
    hp_config c;
    char err[16];
    memset(err, 'x', sizeof err);
    cr_assert_eq(hp_config_parse("depth=0", &c, err, sizeof err), -1);
    cr_assert_lt(strlen(err), sizeof err);
    cr_assert_eq(strncmp(err, "bad value in HE", 15), 0, "got \"%s\"", err);
}

Test(config, long_bad_token_is_cut)
{
    char s[2000];
    memset(s, 'q', sizeof s - 1);
    s[sizeof s - 1] = 0;
    hp_config c;
    char err[1024] = "";
    cr_assert_eq(hp_config_parse(s, &c, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "unknown mode 'qqqq"));
    cr_assert_lt(strlen(err), sizeof err);
}

Test(config, retainer_and_roots_keys)
{
    hp_config c = parse_ok("retainer");
    cr_assert_eq(c.bound, 8);
    cr_assert_str_eq(c.retainers, "");
    cr_assert_str_eq(c.filter_rset, "");
    cr_assert_eq(c.noroot, 0);
    c = parse_ok("retainer,retainers=session_new+cache_put,bound=3");
    cr_assert_str_eq(c.retainers, "session_new+cache_put");
    cr_assert_eq(c.bound, 3);
    c = parse_ok("cc,rset=g_cache+stack:main");
    cr_assert_str_eq(c.filter_rset, "g_cache+stack:main");
    cr_assert_eq(parse_ok("roots,noroot=yes").noroot, 1);
    cr_assert_eq(parse_ok("roots,noroot=yes,noroot=no").noroot, 0);
    cr_assert_eq(parse_ok("roots,noroot=retainers").noroot, HP_NOROOT_RETAINERS);
    cr_assert_eq(parse_ok("bound=1").bound, 1);
    cr_assert_eq(parse_ok("bound=64").bound, 64);
    parse_bad("retainer,bound=0", "'bound=0'", "1 to 64", NULL);
    parse_bad("retainer,bound=65", "'bound=65'", "1 to 64", NULL);
    parse_bad("retainer,retainers=", "'retainers='", "joined by '+'", NULL);
    parse_bad("retainer,retainers=a++b", "'retainers=a++b'", "joined by '+'", NULL);
    parse_bad("retainer,retainers=+a", "'retainers=+a'", NULL);
    parse_bad("cc,rset=a b", "'rset=a b'", NULL);
    parse_bad("roots,noroot=maybe", "'noroot=maybe'", "yes, no or retainers", NULL);
    cr_assert_eq(c.ret_walk, HP_WALK_AUTO);
    cr_assert_eq(parse_ok("retainer,walk=depth").ret_walk, HP_WALK_DEPTH);
    cr_assert_eq(parse_ok("retainer,walk=components").ret_walk, HP_WALK_SCC);
    cr_assert_eq(parse_ok("retainer,walk=components,walk=auto").ret_walk, HP_WALK_AUTO);
    parse_bad("retainer,walk=scc", "'walk=scc'", "auto, depth or components", NULL);
    cr_assert_eq(c.walk_helper, HP_HELPER_AUTO);
    cr_assert_eq(parse_ok("retainer,helper=yes").walk_helper, HP_HELPER_YES);
    cr_assert_eq(parse_ok("retainer,helper=no").walk_helper, HP_HELPER_NO);
    cr_assert_eq(parse_ok("retainer,helper=no,helper=auto").walk_helper, HP_HELPER_AUTO);
    parse_bad("retainer,helper=2", "'helper=2'", "auto, yes or no", NULL);
    parse_bad("roots,rset=g_cache", "'rset=g_cache'", "cannot be used in mode roots", NULL);
}

/* Mode ldv: the re-arming policy and its fruitless-fault limit. */
Test(config, ldv_policy)
{
    hp_config c = parse_ok("ldv");
    cr_assert_eq(c.mode, HP_MODE_LDV);
    cr_assert_eq(c.ldv_policy, HP_LDV_ADAPTIVE);
    cr_assert_eq(c.ldv_repeat, 8);
    c = parse_ok("ldv,ldv=precise");
    cr_assert_eq(c.ldv_policy, HP_LDV_PRECISE);
    c = parse_ok("ldv,ldv=page");
    cr_assert_eq(c.ldv_policy, HP_LDV_PAGE);
    c = parse_ok("ldv,ldv=adaptive,repeat=3");
    cr_assert_eq(c.ldv_policy, HP_LDV_ADAPTIVE);
    cr_assert_eq(c.ldv_repeat, 3);
    c = parse_ok("ldv,repeat=999999");
    cr_assert_eq(c.ldv_repeat, 999999);
    parse_bad("ldv,ldv=exact", "'ldv=exact'", "adaptive", "page", "precise", NULL);
    parse_bad("ldv,ldv=", "'ldv='", "adaptive", NULL);
    parse_bad("ldv,repeat=0", "'repeat=0'", "1 to 999999", NULL);
    cr_assert(c.ldv_budget > 0.299 && c.ldv_budget < 0.301);   /* the default */
    c = parse_ok("ldv,budget=0");
    cr_assert_eq(c.ldv_budget, 0.0);
    c = parse_ok("ldv,budget=2.5");
    cr_assert(c.ldv_budget > 2.49 && c.ldv_budget < 2.51);
    parse_bad("ldv,budget=x", "'budget=x'", "multiple of the program's own time", NULL);
    parse_bad("ldv,budget=2000", "'budget=2000'", "from 0 to 1000", NULL);
    /* floor=: the budget's floor, seconds. */
    cr_assert(c.ldv_floor > 0.499 && c.ldv_floor < 0.501);   /* the default */
    c = parse_ok("ldv,floor=0");
    cr_assert_eq(c.ldv_floor, 0.0);
    c = parse_ok("ldv,floor=0.1");
    cr_assert(c.ldv_floor > 0.099 && c.ldv_floor < 0.101);
    parse_bad("ldv,floor=x", "'floor=x'", "seconds such as 0.5", NULL);
    parse_bad("ldv,floor=4000", "'floor=4000'", "from 0 to 3600", NULL);
    /* faults=: the same in faults (Note [A floor in faults]). */
    cr_assert_eq(parse_ok("ldv").ldv_floor_faults, 65536);   /* the default */
    cr_assert_eq(parse_ok("ldv,faults=0").ldv_floor_faults, 0);
    cr_assert_eq(parse_ok("ldv,faults=100000").ldv_floor_faults, 100000);
    parse_bad("ldv,faults=x", "'faults=x'", "whole number of faults", NULL);
    parse_bad("ldv,faults=-1", "'faults=-1'", "from 0 to 99999999", NULL);
    parse_bad("ldv,faults=100000000", "'faults=100000000'", "from 0 to 99999999", NULL);
    /* window=: mode ldv, bytes between its collections. */
    cr_assert_eq(c.ldv_window, 0);   /* (the default: none) */
    c = parse_ok("ldv,window=64K");
    cr_assert_eq(c.ldv_window, 65536);
    parse_bad("ldv,window=0", "'window=0'", "65536 or 64K", NULL);
    parse_bad("ldv,window=x", "'window=x'", "bytes allocated between collections", NULL);
    parse_bad("retainer,window=4K", "'window='", "needs mode ldv", NULL);
    /* stacks=no: mode kind only, no filters, no other files. */
    c = parse_ok("kind,stacks=no");
    cr_assert_eq(c.no_stacks, 1);
    cr_assert_eq(c.outputs, 0);
    c = parse_ok("kind,stacks=yes");
    cr_assert_eq(c.no_stacks, 0);
    parse_bad("cc,stacks=no", "'stacks=no'", "needs mode kind", NULL);
    parse_bad("kind,stacks=no,ccs=make", "'stacks=no'", "ccs=", NULL);
    parse_bad("kind,report=gen,stacks=no", "'stacks=no'", "report=", NULL);
    parse_bad("kind,stacks=maybe", "'stacks=maybe'", "yes or no", NULL);
    /* sample=: bytes with K/M/G, modes cc, module, kind; seed=. */
    c = parse_ok("cc,sample=512K,seed=7");
    cr_assert_eq(c.sample, 524288);
    cr_assert_eq(c.seed, 7);
    c = parse_ok("module,sample=4096");
    cr_assert_eq(c.sample, 4096);
    c = parse_ok("kind,sample=1M");
    cr_assert_eq(c.sample, 1048576);
    parse_bad("cc,sample=0", "'sample=0'", "mean bytes between samples", NULL);
    parse_bad("cc,sample=12Q", "'sample=12Q'", "512K", NULL);
    parse_bad("retainer,sample=4096", "'sample='", "needs mode cc, module or kind", NULL);
    parse_bad("ldv,sample=4096", "'sample='", "needs mode cc, module or kind", NULL);
    parse_bad("cc,report=gen,sample=4096", "'sample='", "report=", NULL);
    parse_bad("kind,stacks=no,sample=4096", "'sample='", "stacks=no", NULL);
    parse_bad("cc,seed=x", "'seed=x'", "whole number", NULL);
    parse_bad("ldv,repeat=1000000", "'repeat=1000000'", NULL);
    parse_bad("ldv,repeat=x", "'repeat=x'", NULL);
    const char *h = hp_config_help();
    cr_assert_not_null(strstr(h, "ldv=P"));
    cr_assert_not_null(strstr(h, "repeat=N"));
    cr_assert_not_null(strstr(h, "INHERENT_USE"));
}

/* rset= labels objects in the same word of their record as mode ldv's
 * biography: refused there, as in mode roots. */
/* HEAPPROF=ldv=page is mode ldv with that policy (it was mode cc, the
 * policy silently ignored); after another mode ldv= is that mode's
 * (ignored) key. */
Test(config, ldv_policy_first_names_the_mode)
{
    hp_config c;
    char err[256];
    cr_assert_eq(hp_config_parse("ldv=page,interval=0", &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.mode, HP_MODE_LDV);
    cr_assert_eq(c.ldv_policy, HP_LDV_PAGE);
    cr_assert_eq(hp_config_parse("ldv=precise", &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.mode, HP_MODE_LDV);
    cr_assert_eq(c.ldv_policy, HP_LDV_PRECISE);
    cr_assert_eq(hp_config_parse("cc,ldv=page", &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.mode, HP_MODE_CC);
}

Test(config, rset_is_refused_in_mode_ldv)
{
    hp_config c;
    char err[512];
    cr_assert_eq(hp_config_parse("ldv,rset=g_cache", &c, err, sizeof err), -1);
    cr_assert(strstr(err, "'rset=g_cache' cannot be used in mode ldv") != NULL, "%s", err);
    cr_assert(strstr(err, "use rset= with mode cc, module or kind") != NULL, "%s", err);
    cr_assert_eq(hp_config_parse("cc,rset=g_cache", &c, err, sizeof err), 0);
}

/* out= names a file stem: a directory (trailing '/') would give hidden
 * files ".hp", ".prof"; a component too long for a file name would pass
 * the start-up check and lose the profile at the first census. A huge
 * unknown key is named, cut, in a message that keeps its list of keys. */
Test(config, out_must_name_a_file_stem_that_fits)
{
    hp_config c;
    char err[1024];   /* as preload/hp_lifecycle.c's */
    cr_assert_eq(hp_config_parse("cc,out=/tmp/dir/", &c, err, sizeof err), -1);
    cr_assert(strstr(err, "out names the profile's file stem, not a directory") != NULL, "%s", err);
    char big[400];
    memcpy(big, "out=/tmp/", 9);
    memset(big + 9, 'a', 240);
    big[249] = 0;
    cr_assert_eq(hp_config_parse(big, &c, err, sizeof err), -1);
    cr_assert(strstr(err, "longer than 230 bytes") != NULL, "%s", err);
    big[9 + 230] = 0;
    cr_assert_eq(hp_config_parse(big, &c, err, sizeof err), 0, "%s", err);
    static char huge[100000];
    memset(huge, 'k', sizeof huge - 1);
    memcpy(huge, "cc,", 3);
    memcpy(huge + sizeof huge - 3, "=1", 2);
    cr_assert_eq(hp_config_parse(huge, &c, err, sizeof err), -1);
    cr_assert(strstr(err, "...' in HEAPPROF; valid options: ") != NULL, "%s", err);
    cr_assert(strstr(err, "repeat=N") != NULL, "%s", err);   /* the whole list */
}
