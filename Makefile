# Each target bootstraps .venv itself when it is missing or older than pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SUBPACKAGES := game protocol kit words seats server client bots tournament arena

.PHONY: play test lint typecheck unit coverage bench fuzz soak catalogs vectors clean

# The install is quiet: setuptools' notice at every editable install ("Editable
# installation": mind folders named like the package) is left out, as the folder of
# that name here is the package itself.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS='ignore:Editable installation' \
		$(BIN)/python -m pip install --quiet -e '.[dev,fast,lan,cluster,web]'
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/leastscore play --local

test: lint typecheck unit

# The pages' scripts that say // @ts-check are type-checked by tsc (package.json, its
# lockfile; npm ci puts it in node_modules/); without node they are not, and it is said.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
		test -x node_modules/.bin/tsc || npm ci --no-audit --no-fund --silent; \
		echo "node_modules/.bin/tsc --noEmit -p ."; node_modules/.bin/tsc --noEmit -p .; \
	else \
		echo "lint: node/npm are not installed: the pages' scripts are not type-checked (tsc)"; \
	fi

# mypy reads the one package as it installs: a tree of links that puts the
# repository's folders where the wheel puts them (leastscore/game, ...).
TYPED := $(VENV)/typecheck
typecheck: $(STAMP)
	rm -rf $(TYPED) && mkdir -p $(TYPED)/leastscore
	ln -s $(CURDIR)/leastscore/*.py $(CURDIR)/leastscore/py.typed $(TYPED)/leastscore/
	for p in $(SUBPACKAGES); do ln -s $(CURDIR)/$$p $(TYPED)/leastscore/$$p; done
	ln -s $(CURDIR)/bench $(TYPED)/bench
	cd $(TYPED) && $(CURDIR)/$(BIN)/mypy --config-file $(CURDIR)/pyproject.toml \
		--cache-dir $(CURDIR)/.mypy_cache

# Three test processes (pytest-xdist): most tests wait on real processes, sockets and
# terminals rather than compute, so three share two cores well. JOBS=1 runs them in one.
# The suite starts some 500 Python processes (commands, workers, programs): each would
# compile the package again where bytecode is not written (PYTHONDONTWRITEBYTECODE),
# a quarter of a small tournament's CPU, so it is compiled once first.
JOBS ?= 3
unit: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 leastscore $(SUBPACKAGES) bench
	$(BIN)/pytest -n $(JOBS)

# Line coverage of the whole suite, subprocesses and worker processes included
# (configured in pyproject.toml), summed per subpackage. Slower than `unit`.
coverage: $(STAMP)
	rm -f $(VENV)/.coverage $(VENV)/.coverage.* $(VENV)/coverage.json
	status=0; $(BIN)/coverage run -m pytest -p no:cacheprovider || status=$$?; \
	$(BIN)/coverage combine -q && \
	$(BIN)/coverage json -q -o $(VENV)/coverage.json && \
	$(BIN)/python -m tests.coverage_table $(VENV)/coverage.json && exit $$status

# The test vectors (protocol/vectors/) are built from the code: rebuild them after
# changing a message, then read the diff. A test fails while they are out of date.
vectors: $(STAMP)
	$(BIN)/python -m leastscore.protocol.vectorgen protocol/vectors

bench: $(STAMP)
	$(BIN)/python -m bench.engine
	$(BIN)/python -m bench.server --connections 200 --seconds 10
	$(BIN)/python -m bench.server --connections 200 --seconds 10 --db
	$(BIN)/python -m bench.store
	$(BIN)/python -m bench.server --connections 1000 --seconds 10 --think 100
	$(BIN)/python -m bench.web
	$(BIN)/python -m bench.tournament
	$(BIN)/python -m bench.arena
	$(BIN)/python -m bench.sandbox
	$(BIN)/python -m bench.ladder --matches 200 --seats 4 --seats 2

# A million hostile frames against leastscore serve while honest bots play (minutes).
fuzz: $(STAMP)
	$(BIN)/python -m bench.fuzz --frames 1000000

# 1,000 connections playing for 10 minutes; the server's RSS every 10 s.
soak: $(STAMP)
	$(BIN)/python -m bench.soak --connections 1000 --minutes 10

# The players' languages: extract every message from the code into the template,
# bring each language's catalog up to date (a new message arrives untranslated,
# a changed one fuzzy: translate both), and compile the .mo files the package
# ships. A new language: pybabel init -i $(LOCALE)/leastscore.pot -d $(LOCALE)
# -D leastscore -l CODE, then add it to leastscore/lang.py.
LOCALE := leastscore/locale
SOURCES := game protocol kit words seats bots server client tournament leastscore
catalogs: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg -k _f -k Phrase --no-location --project=leastscore \
		--version=$$($(BIN)/python -c 'from leastscore.about import VERSION; print(VERSION)') \
		-o $(LOCALE)/leastscore.pot $(SOURCES)
	$(BIN)/pybabel update -i $(LOCALE)/leastscore.pot -d $(LOCALE) -D leastscore \
		--ignore-obsolete
	$(BIN)/pybabel compile -d $(LOCALE) -D leastscore --statistics

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
