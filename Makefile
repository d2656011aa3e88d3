# vivpoll: see README.md. Every target installs what it needs first (deps).
SHELL := /bin/bash
KVER ?= 6.1
KCONFIG ?= default
export KVER KCONFIG
ifdef VIVPOLL_CACHE
export VIVPOLL_CACHE
endif
ifdef SUITES
export SUITES
endif
ifdef STRESS_SCALE
export STRESS_SCALE
endif
ifdef HOSTDIR
export HOSTDIR
endif
ifdef TIER
export TIER
endif

.PHONY: all deps kernel guest run shell demo check check-full check-harness check-all series check-series upstream bench clean help

all: guest

help:
	@sed -n '/^## Make targets/,/^## /p' README.md

# what the goals need: make check does not install make demo's drawing and browser
deps:
	@tools/deps.sh $(or $(MAKECMDGOALS),all)

kernel: deps
	@tools/build-kernel.sh > /dev/null

guest: kernel
	@tools/build-guest.sh

# CMD reaches the guest byte for byte: $(value) keeps make from expanding
# the $ in it, and the environment carries quotes, \ and newlines as they are.
# Make exports a command-line variable expanded (running any $(shell ...)
# in it on the host): CMD itself is never exported.
unexport CMD
run: export VIVPOLL_RUN_CMD = $(value CMD)
run: guest
	@tools/qemu-run.sh $(if $(TIMEOUT),--timeout $(TIMEOUT)) -- "$$VIVPOLL_RUN_CMD"

shell: guest
	@tools/qemu-run.sh --interactive

demo: guest
	@tools/demo.sh

check: guest
	@tools/check.sh

check-full: guest
	@TIER=full tools/check.sh

check-harness: guest
	@tools/check-harness.sh

bench: guest
	@tools/bench.sh

series: deps
	@tools/make-series.sh

upstream: deps
	@tools/make-upstream.sh

check-series: deps
	@tools/deps.sh check-series
	@tools/check-series.sh

check-all: deps
	@tools/check-all.sh

clean:
	rm -rf build
