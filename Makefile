# Qirkat: one plain Makefile. Project flags live apart from the user's
# CFLAGS/LDFLAGS so `make CFLAGS=-O0` keeps -Wall -Werror and the includes.
#
#   make            build build/qirkatd and build/qirkat
#   make deps       install missing Debian packages (deploy/deps.sh)
#   make run        deps + build + start qirkatd on 127.0.0.1:7420 (the web page and
#                   WebSocket on http://127.0.0.1:7421/) with ./qirkat.db
#   make test       the layer check, unit tests (rules, protocol, store) + integration tests,
#                   then test-pg where PostgreSQL is installed, then test-web (WEB=0
#                   skips it; so does T=AREA)
#   make test-pg    the PostgreSQL tests (tests/pg/) on a throwaway cluster
#   make check-layers  the server's include rule (docs/design.md "Server layers")
#   make asan       the same tests built with ASan + UBSan in build-asan/
#   make bench      benchmarks (perft, move throughput, ...); timings only
#   make bench-ratios  qirkatd / minimal servers in one run (bench/ratios.c);
#                   with PostgreSQL installed, also the PostgreSQL figures
#   make bench-pg   only the PostgreSQL figures of bench-ratios
#   make bench-profile  perf on one server under the move load (bench/profile.sh)
#   make bench-ceiling  the move loads against a copy that stores no move
#                   (bench/ceiling.sh): the bound of any change to a move's storage
#   make test-web   the web client: replay applier (node) + browser tests
#                   (Debian chromium driven by playwright-core, tests/web/)
#   make fuzz       libFuzzer targets of tests/fuzz/ (clang), FUZZ_SECONDS each
#   make install PREFIX=/usr/local DESTDIR=
#   make pot        refresh po/qirkat.pot from the client's sources and merge it
#                   into every po/LANG.po (then translate what is new or fuzzy)

BUILD    ?= build
PREFIX   ?= /usr/local
CC       ?= cc
CFLAGS   ?= -O2 -g
LISTEN   ?= 127.0.0.1:7420
HTTP     ?= 127.0.0.1:7421
WEB      ?= 1
DB       ?= ./qirkat.db
SHARED   ?= ../shared
LOCALEDIR ?= $(PREFIX)/share/locale

PKGS      := libuv libcjson sqlite3 libsodium nettle libsystemd libpq
# qirkatd --http (server/net/ws.c): http-parser and wslay ship no .pc file.
NET_LIBS  := -lwslay -lhttp_parser
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# Line editing at the client's prompt (Debian libedit-dev): the client only.
EDIT_CFLAGS = $(shell pkg-config --cflags libedit 2>/dev/null)
EDIT_LIBS   = $(shell pkg-config --libs libedit 2>/dev/null)
TEST_CFLAGS = $(shell pkg-config --cflags criterion 2>/dev/null)
# qirkatd's allocator (Debian libmimalloc-dev), linked ahead of libc so it
# replaces malloc for the server and every library in it: a move made ~150
# allocations (cJSON trees, SQLite), 20% of the server's instructions in
# glibc malloc/free (docs/perf.md "Third round"). ASan brings its own
# allocator, so `make asan` links none; `make ALLOC_LIBS=` builds without.
ALLOC_LIBS ?= -lmimalloc
TEST_LIBS   = $(shell pkg-config --libs criterion 2>/dev/null)

QK_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
             -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers \
             -MMD -MP -Icommon -Iserver -Iclient-cli
QK_LIBS   := -lm -lpthread

COMMON_SRC := $(wildcard common/*.c)
SERVER_SRC := $(filter-out server/main.c,$(wildcard server/*.c server/*/*.c server/store/*/*.c))
CLIENT_SRC := $(filter-out client-cli/main.c,$(wildcard client-cli/*.c))
# One test binary per area, so work in progress in one area never stops
# another's tests from building: tests/AREA/*.c -> build/test-AREA.
# pg: the PostgreSQL tests; `make test` runs them through test-pg, which
# gives them a cluster, never as a plain area (they would all skip).
TEST_AREAS := rules records proto engine server client integration pg
BENCH_SRC  := $(wildcard bench/*.c)
# The client's message catalogues (client-cli/i18n.h): po/LANG.po compiled
# to $(BUILD)/locale/LANG/LC_MESSAGES/qirkat.mo, where the binary in
# $(BUILD) finds them; a new language is one more po/LANG.po.
PO_LANGS   := $(patsubst po/%.po,%,$(wildcard po/*.po))
MO_FILES   := $(foreach l,$(PO_LANGS),$(BUILD)/locale/$(l)/LC_MESSAGES/qirkat.mo)
# What xgettext reads: the client, and common/'s texts that the client
# shows (marked QK_N_, translated where the client prints them): the rules'
# summaries, the position parser's reasons, the PDN reader's messages.
POT_SRC    := $(sort $(wildcard client-cli/*.c)) common/qk_rules.c common/qk_rules_text.c \
              common/qk_pdn.c

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))

LIBQK     := $(BUILD)/libqk.a
LIBSERVER := $(BUILD)/libqkserver.a
LIBCLIENT := $(BUILD)/libqkclient.a
QIRKATD   := $(BUILD)/qirkatd
QIRKAT    := $(BUILD)/qirkat
TESTS     := $(foreach a,$(TEST_AREAS),$(if $(wildcard tests/$(a)/*.c),$(BUILD)/test-$(a)))
BENCHES   := $(patsubst bench/%.c,$(BUILD)/bench-%,$(BENCH_SRC))

.PHONY: all deps run test tests asan solved-table bench bench-ratios fuzz fuzz-build install clean format check-layers
all: $(QIRKATD) $(QIRKAT) $(MO_FILES)

$(BUILD)/locale/%/LC_MESSAGES/qirkat.mo: po/%.po
	@mkdir -p $(dir $@)
	msgfmt --check -o $@ $<

.PHONY: pot check-po
pot:
	xgettext --from-code=UTF-8 --language=C --keyword=_ --keyword=N_ --keyword=P_:1,2 --keyword=C_:1c,2 \
	    --keyword=QK_N_ --add-comments=TRANSLATORS: --package-name=qirkat \
	    --msgid-bugs-address=qirkat-issues --no-location --sort-output -o po/qirkat.pot $(POT_SRC)
	@for l in $(PO_LANGS); do msgmerge --quiet --update --backup=none --no-location \
	    --sort-output po/$$l.po po/qirkat.pot && \
	    msgattrib --no-obsolete --no-location --sort-output -o po/$$l.po po/$$l.po; done

# Every message of the sources is in po/qirkat.pot and translated, not
# fuzzy, in every po/LANG.po (tools/check-po.sh).
check-po:
	@sh tools/check-po.sh $(POT_SRC)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(QK_CFLAGS) $(PKG_CFLAGS) $(TEST_CFLAGS) $(CFLAGS) -c $< -o $@

$(call obj,$(CLIENT_SRC) client-cli/main.c): PKG_CFLAGS += $(EDIT_CFLAGS)
$(call obj,client-cli/i18n.c): PKG_CFLAGS += -DQK_LOCALEDIR='"$(LOCALEDIR)"'

# Generated sources, kept in git (a build needs no shell step) and
# regenerated here when their source changed, so they cannot go stale.
server/net/web_files.c: $(wildcard web/* web/*/*) server/net/web-files-gen.sh
	sh server/net/web-files-gen.sh
# One run writes both (a grouped target: make runs the script once, not
# once per file at the same time under -j).
server/store/schema.c server/store/pg/pg_schema.c &: schema.sql schema-pg.sql server/store/schema-gen.sh
	sh server/store/schema-gen.sh

# rm first: `ar rcs` never drops a member, so a source file that was
# renamed or deleted would otherwise live on in the archive.
$(LIBQK): $(call obj,$(COMMON_SRC))
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBSERVER): $(call obj,$(SERVER_SRC))
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBCLIENT): $(call obj,$(CLIENT_SRC))
	@rm -f $@
	$(AR) rcs $@ $^

$(QIRKATD): $(call obj,server/main.c) $(LIBSERVER) $(LIBQK)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(ALLOC_LIBS) $(NET_LIBS) $(PKG_LIBS) $(QK_LIBS)
$(QIRKAT): $(call obj,client-cli/main.c) $(LIBCLIENT) $(LIBQK)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(EDIT_LIBS) $(QK_LIBS)

# Only the server, pg and client areas link those libraries.
area_libs = $(if $(filter server pg,$(1)),$(LIBSERVER))$(if $(filter client,$(1)), $(LIBCLIENT)) $(LIBQK)
.SECONDARY:
.SECONDEXPANSION:
$(BUILD)/test-%: $$(call obj,$$(wildcard tests/$$*/*.c)) $$(call area_libs,$$*)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TEST_LIBS) $(if $(filter server pg,$*),$(NET_LIBS)) $(PKG_LIBS) $(if $(filter client,$*),$(EDIT_LIBS)) $(QK_LIBS)
$(BUILD)/bench-%: $(BUILD)/bench/%.o $(LIBSERVER) $(LIBQK)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(NET_LIBS) $(PKG_LIBS) $(QK_LIBS)

deps:
	@bash deploy/deps.sh

# The server's include rule (docs/design.md "Server layers").
check-layers:
	@sh tools/test-check-layers.sh
	@sh tools/check-layers.sh

run: deps
	@$(MAKE) --no-print-directory all
	./deploy/run.sh $(BUILD) $(LISTEN) $(DB) $(HTTP)

# Tests run from the project root: data comes from $(SHARED), binaries from
# $(BUILD). `make test T=rules` runs one area (T=pg: test-pg).
T ?= $(TEST_AREAS)
tests: $(TESTS)

# COST_GUARD=0: without the instruction-count guard (cost-guard, below).
COST_GUARD ?= 1
test: all tests check-layers check-po $(if $(filter 1,$(COST_GUARD)),cost-guard)
	@set -e; for a in $(filter-out pg,$(T)); do \
	    if [ -x $(BUILD)/test-$$a ]; then \
	        echo "== test-$$a"; QK_SHARED=$(SHARED) QK_BIN=$(BUILD) $(BUILD)/test-$$a --jobs 2; \
	    fi; done
	@if [ -n "$(filter pg,$(T))" ]; then \
	    if command -v pg_config >/dev/null 2>&1 && sh tests/pg/cluster.sh bindir >/dev/null 2>&1; then \
	        $(MAKE) --no-print-directory test-pg; \
	    else \
	        echo "== test-pg skipped: no pg_config or initdb (make deps installs postgresql, libpq-dev)"; \
	    fi; fi
	@if [ "$(WEB)" = 1 ] && [ "$(T)" = "$(TEST_AREAS)" ]; then $(MAKE) --no-print-directory test-web; fi

# The PostgreSQL tests (tests/pg/) on a throwaway cluster of their own
# (tests/pg/cluster.sh: initdb in a temporary directory, a free loopback
# port), stopped and removed whatever happens (the trap). Under /tmp, not
# TMPDIR: as root the server runs as `postgres`, who must reach the
# directory. QK_PG_URL is exported for everything the recipe runs after
# the cluster starts.
.PHONY: test-pg
# Then server suites whose servers run on PostgreSQL (QK_TEST_PG_URL:
# tests/server/helper.c gives each server a fresh database of the
# cluster), PG_SUITES below, the nodes' tests (several qirkatd on one
# database, tests/server/test_nodes.c) and qirkatd migrate's
# (tests/server/test_migrate.c: its source server on SQLite, the copy on
# the cluster).
PG_SUITES ?= nodes flow live corr tourney inbox class_privacy records ratings admin errors bot migrate hostile adversarial
test-pg: all $(BUILD)/test-pg $(BUILD)/test-server
	@set -e; dir=$$(mktemp -d /tmp/qk-pg.XXXXXX); \
	trap 'sh tests/pg/cluster.sh stop "$$dir"' EXIT; trap 'exit 1' INT TERM HUP; \
	QK_PG_URL=$$(sh tests/pg/cluster.sh start "$$dir"); export QK_PG_URL; \
	echo "== test-pg ($$QK_PG_URL)"; \
	QK_SHARED=$(SHARED) QK_BIN=$(BUILD) $(BUILD)/test-pg --jobs 2; \
	haproxy -c -q -f deploy/haproxy.cfg; \
	for suite in $(PG_SUITES); do \
	    echo "== test-server $$suite/* on PostgreSQL"; \
	    QK_TEST_PG_URL=$$QK_PG_URL QK_SHARED=$(SHARED) QK_BIN=$(BUILD) \
	        $(BUILD)/test-server --jobs 2 --filter "$$suite/*"; \
	done

# The web client's tests (tests/web/): the replay move applier against the
# recorded games, then the browser tests against a real `qirkatd --http`
# (run.mjs: play, watch, replay, reconnect; school.mjs: classes and
# tournaments; french.mjs: the page in French, no English left;
# i18n.test.mjs: the catalogues are complete). Screenshots go to $(BUILD)/web-artifacts/. The npm packages come from deploy/deps.sh; a
# checkout without them gets them here (npm ci, from the lock file).
.PHONY: test-web
test-web: all
	@[ -f tests/web/node_modules/.package-lock.json ] || (cd tests/web && npm ci --no-audit --no-fund --loglevel=error)
	@echo "== test-web"
	QK_SHARED=$(SHARED) QK_BIN=$(BUILD) node --test-reporter=spec tests/web/rules.test.mjs
	node --test-reporter=spec tests/web/i18n.test.mjs
	node --test-reporter=spec tests/web/results.test.mjs
	node --test-reporter=spec tests/web/codes.test.mjs
	node --test-reporter=spec tests/web/glyphs.test.mjs
	QK_SHARED=$(SHARED) QK_BIN=$(BUILD) node --test-reporter=spec tests/web/run.mjs
	QK_SHARED=$(SHARED) QK_BIN=$(BUILD) node --test-reporter=spec tests/web/school.mjs
	QK_SHARED=$(SHARED) QK_BIN=$(BUILD) node --test-reporter=spec tests/web/french.mjs
	QK_SHARED=$(SHARED) QK_BIN=$(BUILD) node --test-reporter=spec tests/web/results.mjs
	QK_SHARED=$(SHARED) QK_BIN=$(BUILD) node --test-reporter=spec tests/web/tablet.mjs
	QK_SHARED=$(SHARED) QK_BIN=$(BUILD) node --test-reporter=spec tests/web/access.mjs

asan: export LSAN_OPTIONS = suppressions=$(CURDIR)/tests/lsan.supp
asan: export UBSAN_OPTIONS = print_stacktrace=1:halt_on_error=1
asan:
	@$(MAKE) --no-print-directory BUILD=build-asan WEB=0 COST_GUARD=0 ALLOC_LIBS= \
	    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined" test

# docs/solved.tsv: every Alquerkonane board 2..8 x 2..8 (docs/solved.md);
# resumable, rows already there are kept (RETRY=1 re-runs undecided ones).
solved-table: $(QIRKAT)
	sh tools/solved-table.sh $(QIRKAT) docs/solved.tsv

bench: all $(BENCHES)
	@set -e; for b in $(BENCHES); do QK_SHARED=$(SHARED) QK_BIN=$(BUILD) $$b; done

# Only the ratios of issue 16 (bench/ratios.c): qirkatd against a minimal
# group-commit server, a raw echo and 10,000 idle connections, same run;
# then, where PostgreSQL is installed (tests/pg/cluster.sh bindir), those
# of issue 22: qirkatd on PostgreSQL against a minimal libpq group-commit
# server, and 1, 2 and 3 nodes on one database (the scale curve), on a
# throwaway cluster the bench starts and stops (tests/pg/cluster.sh).
# bench-pg runs only the PostgreSQL part (BENCH_ONLY=pg), about a minute.
.PHONY: bench-pg
bench-ratios: all $(BUILD)/bench-ratios
	@QK_BIN=$(BUILD) $(BUILD)/bench-ratios
bench-pg: all $(BUILD)/bench-ratios
	@QK_BIN=$(BUILD) BENCH_ONLY=pg $(BUILD)/bench-ratios

# The regression guard (issue 26): qirkatd's instructions per move on a
# fixed load, counted with valgrind (not a timing: the same count on a
# busy machine), against bench/cost.txt; more than 15% over fails. `make
# test` runs it (COST_GUARD=0 skips it: `make asan` does, as a sanitized
# build counts other instructions). bench-count prints every count: both
# servers' instructions and syscalls (strace -c) per move.
.PHONY: cost-guard bench-count
cost-guard: all $(BUILD)/bench-ratios
	@echo "== cost-guard"
	@QK_BIN=$(BUILD) BENCH_ONLY=count BENCH_COST_FILE=bench/cost.txt $(BUILD)/bench-ratios
bench-count: all $(BUILD)/bench-ratios
	@QK_BIN=$(BUILD) BENCH_ONLY=count $(BUILD)/bench-ratios

# Where a server's time goes, in us a move, under a move load (perf
# attached to it: bench/profile.sh; needs Debian's linux-perf). PROFILE_SERVER is
# qk, base, pgqk or pgbase; PROFILE_GAMES the games in flight.
.PHONY: bench-profile
PROFILE_SERVER ?= qk
PROFILE_GAMES  ?= 50
bench-profile: all $(BUILD)/bench-ratios
	@QK_BIN=$(BUILD) sh bench/profile.sh $(PROFILE_SERVER) $(PROFILE_GAMES)

# The ceiling of the move loads (bench/ceiling.sh): the stock server against
# an experiment copy of HEAD (bench/ceiling.patch) that skips the move's
# statements, then its flush too; the arms run CEILING_RUNS times each.
.PHONY: bench-ceiling
CEILING_RUNS ?= 2
bench-ceiling: all $(BUILD)/bench-ratios
	@QK_BIN=$(BUILD) sh bench/ceiling.sh $(CEILING_RUNS)

# Fuzzing (tests/fuzz/, not a Criterion area): one libFuzzer binary per
# tests/fuzz/fuzz_NAME.c, built with Debian's clang under ASan + UBSan in
# $(FUZZ_BUILD)/, each run for FUZZ_SECONDS from the seed corpus
# tests/fuzz/corpus/NAME/ (read only; new inputs go to
# $(FUZZ_BUILD)/corpus-NAME/, crashes to $(FUZZ_BUILD)/crash-NAME-*).
# `make fuzz FUZZ_SECONDS=10` is the short pass; `make test` never runs it.
# fuzz-server_id talks to a real $(QIRKATD) (QK_BIN), so fuzz builds it
# first (with the normal flags: QK_BIN=build-asan after `make asan` runs
# the server under ASan instead).
FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
                -fno-sanitize-recover=all
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS    := $(patsubst %,$(FUZZ_BUILD)/fuzz-%,$(FUZZ_NAMES))
FUZZ_OBJS    := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(COMMON_SRC))

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(QK_CFLAGS) $(PKG_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_BUILD)/fuzz-%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS) $(QK_LIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: export UBSAN_OPTIONS = print_stacktrace=1:halt_on_error=1
fuzz: export QK_BIN ?= $(BUILD)
fuzz: fuzz-build $(QIRKATD)
	@set -e; for n in $(FUZZ_NAMES); do \
	    mkdir -p $(FUZZ_BUILD)/corpus-$$n; \
	    echo "== fuzz-$$n ($(FUZZ_SECONDS) s)"; \
	    $(FUZZ_BUILD)/fuzz-$$n -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	        -print_final_stats=1 -dict=tests/fuzz/$$n.dict \
	        -artifact_prefix=$(FUZZ_BUILD)/crash-$$n- \
	        $(FUZZ_BUILD)/corpus-$$n tests/fuzz/corpus/$$n; \
	done

# The binaries; the web board's files (also built into qirkatd, which
# serves its own copy: these are for a reverse proxy or a CDN); the unit
# (its ExecStart names $(PREFIX)/bin); the example settings, installed as
# /etc/qirkat/qirkatd.conf only when none is there; the man pages.
SYSCONFDIR ?= /etc
UNITDIR    ?= $(PREFIX)/lib/systemd/system
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/qirkat/web \
	    $(DESTDIR)$(UNITDIR) $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man8 \
	    $(DESTDIR)$(SYSCONFDIR)/qirkat
	install -m 755 $(QIRKATD) $(QIRKAT) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 schema.sql $(DESTDIR)$(PREFIX)/share/qirkat/
	install -m 644 web/* $(DESTDIR)$(PREFIX)/share/qirkat/web/
	sed 's|/usr/local/bin/qirkatd|$(PREFIX)/bin/qirkatd|; s|/etc/qirkat/|$(SYSCONFDIR)/qirkat/|' \
	    deploy/qirkatd.service > $(DESTDIR)$(UNITDIR)/qirkatd.service
	chmod 644 $(DESTDIR)$(UNITDIR)/qirkatd.service
	install -m 644 deploy/qirkatd.conf $(DESTDIR)$(PREFIX)/share/qirkat/qirkatd.conf.example
	[ -e $(DESTDIR)$(SYSCONFDIR)/qirkat/qirkatd.conf ] || \
	    install -m 644 deploy/qirkatd.conf $(DESTDIR)$(SYSCONFDIR)/qirkat/qirkatd.conf
	install -m 644 deploy/man/qirkat.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 deploy/man/qirkatd.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	@set -e; for l in $(PO_LANGS); do \
	    install -d $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES; \
	    install -m 644 $(BUILD)/locale/$$l/LC_MESSAGES/qirkat.mo $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/; \
	done

format:
	clang-format -i common/*.[ch] server/*.[ch] server/*/*.[ch] server/store/*/*.[ch] client-cli/*.[ch] tests/*/*.[ch] bench/*.c

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) $(if $(filter fuzz fuzz-build,$(MAKECMDGOALS)),$(FUZZ_BUILD)) -name '*.d' 2>/dev/null)
