# bloomforge — the two commands a new user needs: `make demo` and `make test` (both set up first).
SHELL := /bin/bash
APT_PACKAGES := verilator iverilog yosys nextpnr-ice40 fpga-icestorm
# command -> Debian package that provides it
TOOLS := verilator:verilator iverilog:iverilog yosys:yosys nextpnr-ice40:nextpnr-ice40 icepack:fpga-icestorm

.PHONY: setup deps tools demo test test-full check lint generate bench clean

setup: deps tools

# npm ci only when node_modules is missing or older than the lock file.
deps: node_modules/.package-lock.json
node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

# Install the Debian packages whose commands are missing (apt-get update once, first).
tools:
	@missing=""; for t in $(TOOLS); do cmd=$${t%%:*}; pkg=$${t##*:}; \
	  command -v $$cmd >/dev/null 2>&1 || missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "tools: $(APT_PACKAGES) present"; fi

demo: setup
	npx bloomforge demo

# What CI runs: the fast tier plus the *.slow.test.ts files (Verilator and Icarus on 10^5-op
# streams, Yosys, nextpnr, the bench), the per-preset slow checks on the presets that cover every
# pipeline shape or filter value and target (test/helpers/presets.ts). Unisolated like `check`
# (below): the files of a worker share loaded modules.
test: setup
	npx vitest run --no-isolate

# The same with the per-preset slow checks on every preset (Yosys on the largest ECP5/Xilinx
# presets takes minutes each): before a release, or after a change to a generator.
test-full: setup
	BLOOMFORGE_TESTS=full npx vitest run --no-isolate

# The fast tier, for every change: TypeScript-only tests, goldens, lint of the presets, model ≡
# compiled simulator on every preset, a few Verilator co-simulations.
# --no-isolate: the test files of one worker share loaded modules (collect 21 s -> 6 s).
check: setup
	npx vitest run --exclude '**/*.slow.test.ts' --no-isolate

# The last step checks the import graph of src, sim and bin against .dependency-cruiser.cjs (cycles,
# layering, family folders); `npm run lint:deps` is the same check.
lint: deps
	npx eslint .
	npx prettier --check .
	npx tsc --noEmit
	npx depcruise src sim bin --config .dependency-cruiser.cjs --output-type err-long

generate: deps
	npx bloomforge golden -o generated

bench: setup
	npm run bench:sim

clean:
	rm -rf .cache
