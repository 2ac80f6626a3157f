"""Integration test: the retainer profile (HEAPPROF=retainer) on a heap whose
every retainer set is known by construction (tests/progs/retainers.c): a
global list, a cycle, an interior pointer, a million-node list (the
traversal is iterative: no stack overflow), a worker thread's stack
variable holding a tree, an object held by both a global and that stack,
and an object reachable only through a designated retainer
(retainers=session_new). The program prints the bytes each set must hold
(from GC_size); the census taken at exit must show exactly those bands,
and the .prof must list each set with exactly those members.
"""
import csv
import os
import re

import hptest


def expected(stdout):
    exp = {}
    for line in stdout.splitlines():
        if line.startswith("EXPECT "):
            _, members, nbytes = line.split()
            exp[members] = int(nbytes)
    return exp


def bands(sample):
    """{sorted members joined by ',': bytes} from '(id)a,b' labels."""
    out = {}
    for label, v in sample.items():
        m = re.fullmatch(r"\((\d+)\)(.*)", label)
        assert m, f"retainer band label {label!r} is not (id)members"
        key = ",".join(sorted(m.group(2).split(",")))
        out[key] = out.get(key, 0) + v
    return out


def set_lines(prof):
    """{id: sorted member list} from 'SET id = {<a>, <b>}' lines."""
    sets = {}
    for m in re.finditer(r"^SET (\d+) = \{(.*)\}$", prof, re.M):
        sets[int(m.group(1))] = sorted(x.strip()[1:-1] for x in m.group(2).split(","))
    return sets


class Retainer(hptest.ProfileTest):

    def bands_without_gc_strays(self, sample):
        """A sample's bands with gc:frames and gc:data taken out of each
        set (a stale pointer in libgc's own frames or static data may add
        them), the sets so merged summed; neither may hold bytes alone."""
        got = {}
        for key, v in bands(sample).items():
            members = [m for m in key.split(",") if m not in ("gc:frames", "gc:data")]
            self.assertTrue(members, "%s alone holds %d bytes" % (key, v))
            got[",".join(members)] = got.get(",".join(members), 0) + v
        return got

    def run_retainers(self, deep, extra=""):
        r, hp, prof = self.profile(
            "retainers",
            heapprof="retainer,retainers=session_new,length=200" + extra,
            env={"DEEP": str(deep)})
        return r, hp, prof

    def test_known_sets_exact(self):
        # The same sets whichever walk computes them (walk=auto, the
        # default, picks one of these per census).
        for walk in ("depth", "components"):
            with self.subTest(walk=walk):
                self.check_known_sets(",walk=" + walk, walk)

    def check_known_sets(self, extra, walk):
        r, hp, prof = self.run_retainers(1000000, extra)
        self.assertIn("(walk=%s)" % walk, prof)
        exp = expected(r.stdout)
        self.assertEqual(len(exp), 8, r.stdout)
        last = bands(hp.last())
        self.assertEqual(last, exp)
        # Every band of the last census is a SET line with those members,
        # and the id in the .hp label is the .prof's id.
        sets = set_lines(prof)
        for label in hp.last():
            sid, members = re.fullmatch(r"\((\d+)\)(.*)", label).groups()
            self.assertEqual(sets[int(sid)], sorted(members.split(",")), label)
        # The sanity line: everything live was attributed at that census.
        lines = re.findall(r"^\S+  .*bytes.*$", prof.split("RETAINER CENSUSES")[1], re.M)
        total = sum(exp.values())
        self.assertIn(f"{total} of {total} bytes", lines[-1])
        self.assertNotIn("not reached", lines[-1])

    def test_auto_walk_choice(self):
        # walk=auto (doc/retainers.md): by components first, whose cost is
        # bounded; depth-first once the components' sets average at most
        # 1.5 members; back to components once a depth-first walk scanned
        # objects again. walks.c: four collections each of a list held by 8
        # variables (8 members a node), a list held by one, the same list
        # held by the 8 again. Censuses (interval=0): the first, with
        # nothing live, by components; phase A by components (4); phase B
        # by components once, then depth-first (3); phase C depth-first
        # once (7 rescans a node: it gives up, and the census is walked by
        # components: Note [A depth-first walk gives up]), then by
        # components (3), and the census at exit: 3 depth-first, 11 by
        # components, one depth-first walk given up.
        # (bound=16: a stale pointer in libgc's data may add gc:data.)
        # (Starting depth-first, as before, phase A's first census was
        # walked depth-first.) The
        # sets are those walk=depth computes, census by census.
        runs = {}
        for walk in ("auto", "depth"):
            r, hp, prof = self.profile("walks",
                                       heapprof="retainer,interval=0,length=200,bound=16,walk=" +
                                       walk)
            self.assertIn("PHASES 4 4 4", r.stdout)
            runs[walk] = (hp, prof)
        hp, prof = runs["auto"]
        self.assertIn("walks: 3 depth-first from each root, 11 by strongly connected "
                      "components (walk=auto)", prof)
        self.assertRegex(prof, r"\n  depth-first walks given up for components \(more objects "
                               r"scanned again than half the records: Note \[A depth-first "
                               r"walk gives "
                               r"up\]\): 1\n")
        self.assertIn("walks: 14 depth-first from each root, 0 by strongly connected "
                      "components (walk=depth)", runs["depth"][1])
        def sets(sample):
            # gc:frames and gc:data taken out of each set; what they alone
            # hold (a dropped list's tail that libgc's static data still
            # points at, in one run and not the other) left out.
            got = {}
            for key, v in bands(sample).items():
                members = [m for m in key.split(",") if m not in ("gc:frames", "gc:data")]
                if members:
                    got[",".join(members)] = got.get(",".join(members), 0) + v
            return got
        auto = [sets(s) for _, s in hp.samples]
        depth = [sets(s) for _, s in runs["depth"][0].samples]
        self.assertEqual(auto, depth)
        self.assertIn({"g_root0": 960000}, auto)
        self.assertTrue(any(",".join("g_root%d" % i for i in range(8)) in b for b in auto))

    def test_walks_agree_on_random_graphs(self):
        # tests/progs/graphs.c: random graphs of 300,000 nodes, trees with
        # a few shared nodes and cycles, and meshes where most nodes are
        # shared, held by static variables and uncollectable holders. The component walk
        # (over heads only on trees: retainer/hp_trace_scc_sigsafe.c, Note
        # [Tree nodes]; over every node on meshes) gives the sets the
        # depth-first walk gives, census by census, for three seeds.
        # The component walk's first step shared by a helper thread
        # (retainer/hp_trace_scc_sigsafe.c, Note [Two walkers]: on every
        # census with helper=yes) gives the same sets as without.
        # The traversal's page index by page number (these heaps) and
        # hashed (a heap spread wide by a 4 GB object freed first, never
        # written, so never in memory:
        # hp_trace_index.h, Note [The page map]) give the same sets.
        two_cpus = len(os.sched_getaffinity(0)) >= 2
        for seed in ("1", "7", "12345"):
            runs = {}
            for walk in ("depth", "components", "components,helper=no", "wide"):
                args = ["graphs", seed] + (["300000", "4096"] if walk == "wide" else [])
                r, hp, prof = self.profile(args,
                                           heapprof="retainer,interval=0,length=400,walk=" +
                                           ("components" if walk == "wide" else walk) +
                                           (",helper=yes" if walk == "components" else ""))
                self.assertIn("PHASES 4 3", r.stdout)
                got = [self.bands_without_gc_strays(s) for _, s in hp.samples]
                # The census at exit (the last): main has returned, and
                # what its thread's stack holds is the exit's frames and
                # the stale words below them that heapprof's own calls
                # left, which differ from walk to walk (the component walk
                # calls deeper on this thread than the depth-first one):
                # a stale pointer to the nodes array put stack:main in its
                # set in one run of the CI suite (2026-11-29). Its stack
                # roots are not compared.
                last = {}
                for key, v in got[-2].items():
                    k = ",".join(m for m in key.split(",") if m != "stack:main")
                    last[k] = last.get(k, 0) + v
                got[-2] = last
                runs[walk] = (got, prof)
            depth, comps = runs["depth"][0], runs["components"][0]
            with self.subTest(seed=seed):
                self.assertEqual(len(depth), 17)   # (15 censuses and the bookends)
                self.assertEqual(comps, depth)
                self.assertEqual(runs["components,helper=no"][0], depth)
                self.assertEqual(runs["wide"][0], depth)
                # (every census but perhaps the last, whose few pages the
                # 256 MB heap the program grows first spreads over)
                pattern = r"pages found by page number: (\d+) of 15 traversals"
                m = re.search(pattern, runs["components"][1])
                self.assertIsNotNone(m, runs["components"][1])
                self.assertGreaterEqual(int(m.group(1)), 14)
                m = re.search(pattern, runs["wide"][1])
                self.assertIsNotNone(m, runs["wide"][1])
                # (but the collection the big allocation itself starts,
                # before the heap grows for it)
                self.assertLessEqual(int(m.group(1)), 1)
                # The index of the big censuses built by two threads (Note
                # [Two builders]), with the helper; never without.
                built = r"built by two threads: (\d+)"
                self.assertEqual(int(re.search(built, runs["components,helper=no"][1]).group(1)), 0)
                self.assertGreaterEqual(int(re.search(built, runs["components"][1]).group(1)),
                                        12 if two_cpus else 0)
                self.assertIn("with a helper thread (the walk's first step shared by two "
                              "threads, helper=yes): %d of them" % (15 if two_cpus else 0),
                              runs["components"][1])
                self.assertIn("helper=no): 0 of them", runs["components,helper=no"][1])
                # Both ways of the component walk ran: over heads (the two
                # tree phases' three censuses each) and over every node (the
                # meshes', and the small heaps of the first and last).
                m = re.search(r"^walks: 0 depth-first from each root, (\d+) by strongly connected "
                              r"components \(walk=components\)\n  by components over heads only "
                              r"\(.*\): (\d+) of them$", runs["components"][1], re.M)
                self.assertIsNotNone(m, runs["components"][1])
                total, heads = int(m.group(1)), int(m.group(2))
                self.assertEqual(total, 15)
                self.assertEqual(heads, 6)
                # A tree phase's sets: g_var0 holds its root, so every node.
                self.assertTrue(any(sum(v for k, v in b.items() if "g_var0" in k.split(",")) >=
                                    300000 * 32 for b in depth))

    def test_root_kinds_the_collector_has(self):
        # Roots a walk from the pushed ranges alone misses (issue
        # "retainers on real runtimes"): a mark procedure's side table, an
        # uncollectable object, a GC_add_roots region, a tagged pointer
        # (displacement 1, interior pointers off). Each is a named retainer
        # holding exactly its bytes at the census of the last GC_gcollect
        # (the program gave the collector a mark procedure, so the census
        # at exit is taken without a collection, hence without traversal).
        for walk in ("depth", "components"):
            with self.subTest(walk=walk):
                r, hp, prof = self.profile("rootkinds",
                                           heapprof="retainer,interval=0,length=200,walk=" + walk)
                exp = expected(r.stdout)
                self.assertEqual(len(exp), 5, r.stdout)
                traced = [s for _, s in hp.samples if any("mark:" in k for k in s)]
                self.assertTrue(traced, "no census names the mark procedure")
                self.assertEqual(bands(traced[-1]), exp)
                self.assertNotIn("roots@", prof)

    def test_stack_named_labels_stay_distinct_when_cut(self):
        # tests/progs/rootlabels.c: three root regions registered through
        # one register_region/open_resource, two uncollectable holders made
        # by one new_holder, each from its own caller. At the default label
        # length (25) each band says first what tells it apart
        # ("roots:..load_fonts", not "roots:register_region/o" five times),
        # holds exactly its bytes, and the .prof's SET line gives the whole
        # stack. With a length that fits, the whole stack is the label.
        r, hp, prof = self.profile("rootlabels", heapprof="retainer,interval=0")
        exp = {"%s:..%s" % tuple(k.split()[:2]): v for k, v in
               ((l[len("EXPECT "):].rsplit(" ", 1)[0], int(l.split()[-1]))
                for l in r.stdout.splitlines() if l.startswith("EXPECT "))}
        self.assertEqual(len(exp), 5, r.stdout)
        sample = self.bands_without_gc_strays_sample(hp)
        self.assertEqual(bands(sample), exp)
        sets = set_lines(prof)
        for label in sample:
            m = re.fullmatch(r"\((\d+)\)(\w+):\.\.(\w+)", label)
            self.assertTrue(m, label)
            kind, caller = m.group(2), m.group(3)
            inner = "register_region/open_resource" if kind == "roots" else "new_holder"
            self.assertEqual(sets[int(m.group(1))],
                             ["%s:%s/%s/setup/main" % (kind, inner, caller)])
        # The named-roots profile's NOROOT:<set> bands (no root named):
        # the short forms, with the prefix counted in the length.
        r, hp, prof = self.profile("rootlabels", heapprof="roots,noroot=retainers,interval=0")
        noroot = [l for l in hp.last() if "gc:" not in l]
        self.assertEqual(len(noroot), 5, hp.last())
        for label in noroot:
            self.assertRegex(label, r"^NOROOT:\(\d+\)(roots:\.\.load_|uncoll:\.\.from_c)", label)
        r, hp, prof = self.profile("rootlabels", heapprof="retainer,interval=0,length=200")
        self.assertIn("(%s)roots:register_region/open_resource/load_fonts/setup/main" %
                      re.search(r"SET (\d+) = \{<roots:register_region/open_resource/load_fonts/",
                                prof).group(1), hp.last())

    def bands_without_gc_strays_sample(self, hp):
        """The last census's sample, gc:frames and gc:data dropped from its
        sets' labels (see bands_without_gc_strays), as (id)label: bytes."""
        out = {}
        for label, v in hp.last().items():
            m = re.fullmatch(r"\((\d+)\)(.*)", label)
            members = [x for x in m.group(2).split(",") if x not in ("gc:frames", "gc:data")]
            self.assertTrue(members, "%s alone holds %d bytes" % (label, v))
            key = "(%s)%s" % (m.group(1), ",".join(members))
            out[key] = out.get(key, 0) + v
        return out

    def test_pushes_and_ranges_beyond_first_room(self):
        # What mark procedures push and the root ranges the collector
        # pushes are recorded in room that starts small (1,024 of each a
        # collection: room for every range and 65,536 pushes, committed up
        # front, was 5 MB of every retainer run's profiler memory; Guile
        # pushes 78) and grows as they come, inside the mark phase.
        # 100,000 holders of the mark-procedure kind push 100,000 a
        # collection, and 1,500 registered regions are 1,500 ranges more (libgc allows
        # 2,048 root sets):
        # no census may lose any, and every byte goes to its retainer.
        r, hp, prof = self.profile(["rootkinds", "100000", "1500"],
                                   heapprof="retainer,interval=0,length=200,walk=components")
        exp = expected(r.stdout)
        self.assertEqual(len(exp), 6, r.stdout)
        census = re.findall(r"^\S+  .*bytes.*$", prof.split("RETAINER CENSUSES")[1], re.M)
        self.assertTrue(census)
        for line in census:
            self.assertNotIn("not recorded", line)
            self.assertNotIn("not reached", line)
        traced = [s for _, s in hp.samples if any("mark:" in k for k in s)]
        # (A stale pointer in libgc's data or frames to the last holder
        # made may add gc:data or gc:frames to its set: dropped, as in
        # test_what_the_collector_keeps_for_itself.)
        self.assertEqual(self.bands_without_gc_strays(traced[-1]), exp)
        mem = int(re.search(r"profiler memory\s+(\d+) bytes", prof).group(1))
        self.assertLess(mem, 64 << 20, "profiler memory %d" % mem)

    def test_a_thread_past_the_first_room_for_stacks(self):
        # heapprof's table of thread stacks starts with room for 256 and
        # grows as threads register (room for 65,536, committed up front,
        # was 1.5 MB of every run). The 401st thread to register holds a
        # chain on its stack alone: its bytes, exact, go to its own name.
        r, hp, prof = self.profile("manythreads", heapprof="retainer,interval=0")
        exp = expected(r.stdout)
        self.assertEqual(sorted(exp), ["keep", "stack:thread400"], r.stdout)
        # (glibc hands a joined thread's stack to the next thread: the
        # stack is named after the newest thread registered on it)
        held = [bands(s) for _, s in hp.samples if s]
        self.assertIn(exp, held, "no census while the thread held its chain")
        for s in held:
            self.assertEqual([k for k in s if k.startswith("stack:")],
                             ["stack:thread400"] if len(s) > 1 else [], s)

    def test_what_the_collector_keeps_for_itself(self):
        # tests/progs/gcroles.c: finalizers' client data and objects whose
        # finalizer is due (with the chains they hold) are kept by libgc's
        # finalization (gc:finalization: the ranges GC_push_finalizer_
        # structures pushes, and what the collector marks after the mark
        # phase); a block grown in place by GC_realloc holds what its grown
        # part points to (the traversal scanned the size at allocation:
        # 1,088 of 25,696 bytes "not reached"; poke's heap lost up to 10%
        # at a census so). Exact bytes per retainer at the last census,
        # every byte attributed. A stale pointer in libgc's own frames or
        # static data may add gc:frames or gc:data to a set: they are
        # dropped before comparing, and may never hold bytes alone.
        for walk in ("depth", "components"):
            with self.subTest(walk=walk):
                r, hp, prof = self.profile("gcroles",
                                           heapprof="retainer,interval=0,length=200,walk=" + walk)
                exp = expected(r.stdout)
                self.assertEqual(len(exp), 3, r.stdout)
                traced = [s for _, s in hp.samples if s]
                self.assertTrue(traced, "no census with bands")
                self.assertEqual(self.bands_without_gc_strays(traced[-1]), exp)
                census = re.findall(r"^\S+  .*bytes.*$", prof.split("RETAINER CENSUSES")[1], re.M)
                self.assertTrue(census)
                for line in census:
                    self.assertNotIn("not reached", line)

    def test_cpp_uncollectable_containers(self):
        # A C++ program on gc_cpp (tests/progs/gccpp.cc): every collectable
        # object is held only by uncollectable ones -- a gc_cpp NoGC
        # object, a std::vector whose buffer comes from traceable_allocator
        # -- as Inkscape's are. Every live byte is attributed, the Holder's
        # retainer (named by the stack that made it) holds exactly itself
        # and its nodes, and the vector buffer's retainer exactly itself
        # and its nodes. Issue "retainers on real runtimes": uncollectable
        # objects are roots for the collector.
        for walk in ("depth", "components"):
            with self.subTest(walk=walk):
                self.check_gccpp(walk)

    def check_gccpp(self, walk):
        r, hp, prof = self.profile("gccpp", heapprof="retainer,interval=0,length=400,walk=" + walk)
        want = dict(l.split() for l in r.stdout.splitlines() if l.split()[0] in ("HOLDER", "VECTOR"))
        lines = re.findall(r"^\S+  .*bytes.*$", prof.split("RETAINER CENSUSES")[1], re.M)
        m = re.search(r"(\d+) of (\d+) bytes", lines[-1])
        self.assertEqual(m.group(1), m.group(2), lines[-1])
        self.assertNotIn("not reached", lines[-1])
        last = hp.last()
        def held_by(pred):
            return sum(v for label, v in last.items()
                       if any(pred(x) for x in re.fullmatch(r"\((\d+)\)(.*)", label).group(2).split(",")))
        self.assertEqual(held_by(lambda x: x.startswith("uncoll:") and
                                 x.endswith("/make_holder/setup/main")), int(want["HOLDER"]))
        self.assertEqual(held_by(lambda x: x.startswith("uncoll:") and "traceable_allocator" in x),
                         int(want["VECTOR"]))
        # Nothing is held by the stack or static data alone.
        self.assertEqual(held_by(lambda x: x.startswith("uncoll:")), sum(last.values()))

    def test_retained_sizes(self):
        """dominators=yes: the dominator tree of the census with the most
        bytes reached (tests/progs/retained.c, whose tree is known): what
        each object under the root keeps alive alone, and per allocation
        stack with nested objects counted once, exactly."""
        r, hp, prof = self.profile("retained", heapprof="retainer,interval=0,dominators=yes")
        want_top, want_stack = {}, {}
        for line in r.stdout.splitlines():
            w = line.split()
            (want_top if w[0] == "TOP" else want_stack)[w[1]] = (int(w[2]), int(w[3]))
        part = prof.split("\nRETAINED SIZES (dominators=yes", 1)[1]
        top_txt, stack_txt = part.split("What each allocation stack", 1)
        top = {}
        for m in re.finditer(r"^\s+(\d+)\s+(\d+)\s+\d+\s+\d+  (\S+); (.*)$", top_txt, re.M):
            top.setdefault(m.group(3), []).append((int(m.group(1)), int(m.group(2)),
                                                    m.group(4)))
        self.assertEqual([t[:2] for t in top["make_list/build/main"]], [want_top["list"]])
        self.assertTrue(top["make_list/build/main"][0][2].endswith("g_list"))
        self.assertEqual([t[:2] for t in top["make_shared/build/main"]], [want_top["shared"]])
        self.assertTrue(top["make_shared/build/main"][0][2].endswith("g_a,g_b"))
        self.assertEqual([t[:2] for t in top["make_holder/build/main"]], [want_top["holder"]])
        self.assertEqual([t[:2] for t in top["make_leaf/build/main"]], [want_top["leaf"]])
        stacks = {m.group(3): (int(m.group(1)), int(m.group(2))) for m in re.finditer(
            r"^\s+(\d+)\s+(\d+)  (\S+)$", stack_txt, re.M)}
        for name, want in want_stack.items():
            self.assertEqual(stacks[name + "/build/main"], want, name)
        # Largest first in both tables.
        tops = [int(x) for x in re.findall(r"^\s+(\d+)\s+\d+\s+\d+\s+\d+  ", top_txt, re.M)]
        self.assertEqual(tops, sorted(tops, reverse=True))
        self.assertEqual(list(stacks.values()), sorted(stacks.values(), reverse=True))
        # The tree, three levels down, exact: the list's head, its next
        # node and the one after; the shared object, the chain's head and
        # its next; the holder, its five largest leaves (each 1 object) and
        # the other fourteen on one line.
        ns = want_top["list"][0] // want_top["list"][1]
        ls = want_top["leaf"][0]
        hs = want_top["holder"][0] - (want_top["holder"][1] - 1) * ls
        tree_txt = part.split("\nThe dominator tree, three levels down", 1)[1]
        tree_txt = tree_txt.split("\n\n", 1)[0].splitlines()[2:]
        rows = []
        for line in tree_txt:
            # Columns of 11, 13 and 13 characters (own bytes blank on the
            # line of the others), two spaces, two more per level.
            own, rest = line[24:37].strip(), line[39:]
            name = rest.lstrip(" ")
            rows.append(((len(rest) - len(name)) // 2, int(line[0:11]), int(line[11:24]),
                         int(own) if own else None, name.split(";")[0]))
        n_list, n_chain, n_leaf = want_top["list"][1], want_top["shared"][1] - 1, want_top["holder"][1]
        want_rows = [
            (0, n_list * ns, n_list, ns, "make_list/build/main"),
            (1, (n_list - 1) * ns, n_list - 1, ns, "make_list/build/main"),
            (2, (n_list - 2) * ns, n_list - 2, ns, "make_list/build/main"),
            (0, (n_chain + 1) * ns, n_chain + 1, ns, "make_shared/build/main"),
            (1, n_chain * ns, n_chain, ns, "make_chain/build/main"),
            (2, (n_chain - 1) * ns, n_chain - 1, ns, "make_chain/build/main"),
            (0, hs + (n_leaf - 1) * ls, n_leaf, hs, "make_holder/build/main"),
        ] + [(1, ls, 1, ls, "make_leaf/build/main")] * 5 + [
            (1, (n_leaf - 6) * ls, n_leaf - 6, None, "(%d others)" % (n_leaf - 6)),
        ]
        ours = [row for row in rows if not row[4].startswith("(objects heapprof")]
        self.assertEqual(ours[:len(want_rows)], want_rows)
        self.assertEqual(ours[len(want_rows):], [(0, ls, 1, ls, "make_leaf/build/main")])
        # The CSV: a `retained` row per stack, the same figures.
        with open(os.path.join(r.cwd, "retained.alloc.csv"), newline="") as f:
            got = {row["stack"]: (int(row["bytes"]), int(row["objects"]), row["requested"])
                   for row in csv.DictReader(f) if row["breakdown"] == "retained"}
        self.assertEqual(got, {name + "/build/main": (want[0], want[1], "")
                               for name, want in want_stack.items()})

    def test_retained_size_of_the_guide_leak(self):
        # doc/guide.md, "Finding a leak": in one run, the newest log entry
        # (allocated by log_reply, held by session_log) keeps the whole log
        # alive alone, at the census with the most bytes reached (which may
        # come before the last requests: the log then has fewer entries,
        # and the newest may be on a stack too); the CSV's retained line
        # for log_reply/main says the same.
        leak = os.path.join(hptest.BUILD, "examples", "leak")
        r = hptest.run(self, [leak, "8000"], heapprof="retainer,dominators=yes")
        self.assertEqual(r.rc, 0, r.stderr)
        prof = r.prof()
        part = prof.split("\nRETAINED SIZES (dominators=yes", 1)[1]
        reached = int(re.match(r"[^\n]*most bytes reached: (\d+) bytes", part).group(1))
        first = re.search(r"^\s+(\d+)\s+(\d+)\s+(\d+)\s+1  (\S+); \(\d+\)(\S+)$", part, re.M)
        self.assertIsNotNone(first, part[:2000])
        retained, objects, own = int(first.group(1)), int(first.group(2)), int(first.group(3))
        self.assertEqual(first.group(4), "log_reply/main")
        self.assertIn("session_log", first.group(5).split(","))
        # The log: one entry a request so far, each of the entry's size
        # (GC_size of a 208-byte request: 224, or a little more for the
        # first few), and almost everything the census reached.
        self.assertGreater(objects, 4000)
        self.assertLessEqual(objects, 8000)
        self.assertGreaterEqual(retained, objects * own)
        self.assertLess(retained, objects * own + 64 * objects // 100)
        with open(os.path.join(r.cwd, "leak.alloc.csv"), newline="") as f:
            rows = {(row["stack"], row["breakdown"]): row for row in csv.DictReader(f)}
        # All the log's subtrees together: almost everything reached.
        self.assertGreater(int(rows[("log_reply/main", "retained")]["bytes"]), reached * 0.95)
        # The stack's figure counts all its objects' subtrees (the newest
        # entries may hang from the root apart, held by a stack too): the
        # per-stack table's, at least the first object's.
        ret = rows[("log_reply/main", "retained")]
        per_stack = re.search(r"^\s+(\d+)\s+(\d+)  log_reply/main$",
                              part.split("What each allocation stack", 1)[1], re.M)
        self.assertEqual((int(ret["bytes"]), int(ret["objects"])),
                         (int(per_stack.group(1)), int(per_stack.group(2))))
        self.assertGreaterEqual(int(ret["objects"]), objects)

    def test_words_that_repeat(self):
        # tests/progs/repeats.c: A's two words both point at C, B's one
        # word too; A and B, held by two statics next to each other, are
        # scanned one after the other. A word is dropped only when the
        # same object's previous word pointed at the same node
        # (retainer/hp_trace_scc_sigsafe.c, Note [Words that repeat]): C
        # is retained by g_a and g_b, A by g_a alone, B by g_b alone -- with
        # words resolved as read (a small table) and through the word ring
        # (300,000 more records). Dropping B's word as a repeat of A's, or
        # A's second word's test carried over to B, puts C in A's set.
        for nfill in ("0", "300000"):
            with self.subTest(nfill=nfill):
                r, hp, prof = self.profile(["repeats", nfill], heapprof="retainer,interval=0")
                self.assertIn("adjacent 1", r.stdout, "g_a and g_b are not next to each "
                              "other: the scenario was not exercised")
                censuses = [{re.sub(r"^\(\d+\)", "", k): v for k, v in smp.items()
                             if "g_fill" not in k} for _, smp in hp.nonempty()]
                self.assertTrue(censuses)
                for c in censuses:
                    self.assertEqual(sorted(c), ["g_a", "g_a,g_b", "g_b"], c)
                    self.assertEqual(c["g_a"], c["g_b"], c)   # (A and B: one size)
                self.assertNotIn("not reached", prof.split("RETAINER CENSUSES")[1])

    def test_helper_gone(self):
        # tests/progs/helper_gone.c: a single-threaded program with 600,000
        # objects has one thread after each collection, under the modes
        # that traverse: the helper thread a traversal made to share its
        # index build, its walk and its labels (core/hp_helper_sigsafe.c,
        # Note [A kept helper]) is gone before the world restarts. The
        # .prof says the helper was used. (Needs two CPUs.)
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("one CPU: no helper thread is made")
        for mode in ("retainer,helper=yes", "roots,helper=yes", "retainer,walk=depth,helper=yes"):
            with self.subTest(mode=mode):
                r, hp, prof = self.profile(["helper_gone", "300000"], heapprof=mode + ",interval=0")
                self.assertEqual(r.stdout, "threads 1\nthreads 1\nthreads 1\n", prof[-2000:])
                if mode.startswith("retainer,helper"):
                    self.assertRegex(prof, r"built by two threads: [1-9]")
                    self.assertRegex(prof, r"with a helper thread .*: [1-9]\d* of them")

    def test_incremental_refused(self):
        # A heap traversal (retainer, roots, rset=) needs full collections:
        # GC_ENABLE_INCREMENTAL makes them refuse to start (exit 2, no
        # profile); other modes run (their censuses at partial collections
        # are in doc/limitations.md). A program's own GC_enable_incremental
        # call is ignored with a message (gctest: tests/external).
        for mode in ("retainer", "roots", "cc,rset=g_cache", "retainer,bands=drag"):
            with self.subTest(mode=mode):
                r = self.run_prog("retainers", heapprof=mode,
                                  env={"DEEP": "10", "GC_ENABLE_INCREMENTAL": "1"})
                self.assertEqual(r.rc, 2, r.stderr)
                self.assertIn("GC_ENABLE_INCREMENTAL is set: unset it", r.stderr)
                self.assertFalse(os.path.exists(r.hp_path))
        r = self.run_prog("retainers", heapprof="cc",
                          env={"DEEP": "10", "GC_ENABLE_INCREMENTAL": "1"})
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertTrue(os.path.exists(r.hp_path))

    def test_bound_makes_many(self):
        # bound=1: the object held by both g_cache and the thread's stack
        # has two retainers: MANY.
        for walk in ("depth", "components"):
            with self.subTest(walk=walk):
                r, hp, prof = self.run_retainers(10, ",bound=1,walk=" + walk)
                exp = expected(r.stdout)
                last = hp.last()
                self.assertEqual(last.get("MANY"), exp["g_cache,stack:thread1"])
                self.assertIn("SET MANY = {more than 1 retainers}", prof)

    def test_rset_filter_in_cc_mode(self):
        # GHC's -hr as a filter of the cost-centre profile: only what
        # g_cache retains (the list built by make_list, and the shared node
        # allocated in build).
        r, hp, prof = self.profile("retainers", heapprof="cc,rset=g_cache,length=200",
                                   env={"DEEP": "10"})
        exp = expected(r.stdout)
        last = hp.last()
        self.assertEqual(sum(last.values()),
                         exp["g_cache"] + exp["g_cache,stack:thread1"], last)
        self.assertEqual(last.get("make_list/build/main"), exp["g_cache"])


if __name__ == "__main__":
    hptest.unittest.main()
